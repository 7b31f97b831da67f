"""Which slot an arriving participant gets: the pure choice, no database.

`harness.store.allocation` reads the candidates and takes the chosen slot by a conditional
update; this module only decides. The rule: among the HITs that still need raters, skip every
HIT sharing an item with work the participant already did or holds (nobody rates an item twice),
and every HIT the caller's ``allowed`` refuses (the arms of #18 keep a worker in one arm); then
take the HIT furthest from its raters (fewest taken, so the study fills evenly and every HIT
reaches its raters at about the same time), ties by HIT index, and its lowest free position.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class Candidate:
    """A slot that can be taken now (open, or reserved by someone whose time ran out)."""

    slot_id: int
    hit_id: int
    hit_index: int
    position: int
    items: frozenset[str]  # the HIT's item keys
    taken: int  # slots of this HIT reserved (and not expired) or submitted


def preference(
    candidates: Iterable[Candidate],
    seen_items: Iterable[str],
    allowed: Callable[[Candidate], bool] | None = None,
) -> list[Candidate]:
    """Every slot a participant who rated (or holds) ``seen_items`` may take, best first; a
    caller tries them in this order when another process took the first meanwhile."""
    seen = frozenset(seen_items)
    usable = [c for c in candidates if not (c.items & seen) and (allowed is None or allowed(c))]
    return sorted(usable, key=lambda c: (c.taken, c.hit_index, c.position))
