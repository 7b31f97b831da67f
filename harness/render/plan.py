"""Split an instrument's items into HITs and order each worker's showings.

Every content item goes into exactly one HIT (HIT sizes differ by at most one), so each item
gets the spec's raters per item when each HIT gets that many assignments. Generated controls
(identical pairs, random pairs) are spread ``per_hit`` to a HIT; a repeated control shows
``per_hit`` of a HIT's content items a second time. Within a HIT each worker sees the items in
an order seeded by (spec seed, study, worker), with the two showings of a repeated item at
least ``min_gap`` positions apart when the HIT is long enough (else as far apart as it allows).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from harness.roles import ItemRole
from harness.spec.load import CONTENT_ROLES, LoadedSpec
from harness.spec.model import OrderPolicy

_HIT_KEY = re.compile(r"^(?P<study>[A-Za-z0-9][A-Za-z0-9_.-]*)-(?P<index>\d{3,})$")


@dataclass(frozen=True)
class HitPlan:
    """One HIT: its 0-based index, its items (each shown once) and the ones shown twice."""

    index: int
    items: tuple[str, ...]
    repeated: tuple[str, ...] = ()

    @property
    def showings(self) -> list[str]:
        """Item keys per showing (a repeated item twice): what the store keeps for the HIT."""
        return [*self.items, *self.repeated]

    @classmethod
    def from_showings(cls, index: int, showings: Sequence[str]) -> HitPlan:
        """The plan back from its stored showings (a second occurrence marks a repeat)."""
        seen: set[str] = set()
        items: list[str] = []
        repeated: list[str] = []
        for key in showings:
            (repeated if key in seen else items).append(key)
            seen.add(key)
        return cls(index, tuple(items), tuple(repeated))


def plan_hits(loaded: LoadedSpec) -> list[HitPlan]:
    """The HITs of ``loaded``'s instrument: content split evenly, controls spread, repeats picked.

    Deterministic: the content items are assigned to HITs in an order seeded by the spec's
    order seed, so a re-run of a launch plans the same HITs.
    """
    spec = loaded.spec
    items = loaded.items
    content = items.loc[items["role"].isin(CONTENT_ROLES), "item_id"].astype(str).to_numpy()
    n_hits = loaded.n_hits
    rng = np.random.default_rng(spec.order.seed)
    if spec.order.policy is OrderPolicy.RANDOM_PER_WORKER:
        content = content[rng.permutation(len(content))]
    chunks = [list(chunk) for chunk in np.array_split(content, n_hits)]
    for role in (ItemRole.IDENTICAL, ItemRole.RANDOM_PAIR):
        keys = items.loc[items["role"] == role.value, "item_id"].astype(str).tolist()
        for i, key in enumerate(keys):
            chunks[i % n_hits].append(key)
    plans = []
    per_hit = spec.controls.repeated.per_hit if spec.controls.repeated else 0
    content_set = set(content)
    for index, chunk in enumerate(chunks):
        candidates = [key for key in chunk if key in content_set]
        count = min(per_hit, len(candidates))
        picked = sorted(int(p) for p in rng.choice(len(candidates), size=count, replace=False))
        repeated = tuple(candidates[i] for i in picked)
        plans.append(HitPlan(index, tuple(str(k) for k in chunk), repeated))
    return plans


def hit_key(study_name: str, index: int) -> str:
    """The public key of a study's HIT, as used in task page URLs: ``<study>-<index, 3 digits>``."""
    return f"{study_name}-{index:03d}"


def parse_hit_key(key: str) -> tuple[str, int]:
    """(study name, HIT index) of a key made by `hit_key`; ValueError when it is not one."""
    match = _HIT_KEY.match(key)
    if match is None:
        raise ValueError(f"{key!r} is not a HIT key (expected <study>-<index>, e.g. ws353-000)")
    return match["study"], int(match["index"])


def worker_seed(seed: int, study_name: str, worker_id: str) -> int:
    """A 64-bit seed from (spec seed, study, worker): the same worker sees the same order."""
    digest = hashlib.sha256(f"{seed}\x1f{study_name}\x1f{worker_id}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def showing_order(
    plan: HitPlan,
    *,
    study_name: str,
    worker_id: str,
    seed: int = 0,
    policy: OrderPolicy = OrderPolicy.RANDOM_PER_WORKER,
    min_gap: int = 3,
) -> list[str]:
    """Item key per position (0-based) for this worker in this HIT.

    ``fixed`` keeps the plan order and puts second showings at the end. ``random_per_worker``
    shuffles with `worker_seed`, then inserts each second showing at a random position at least
    ``min_gap`` positions after or before the first (first and last when the HIT is too short).
    """
    order = list(plan.items)
    if policy is OrderPolicy.FIXED:
        return order + list(plan.repeated)
    rng = np.random.default_rng(worker_seed(seed, study_name, worker_id))
    order = [order[i] for i in rng.permutation(len(order))]
    return place_repeats(order, plan.repeated, min_gap, lambda n: int(rng.integers(n)))


def place_repeats(
    order: list[str], repeated: Sequence[str], min_gap: int, choose: Callable[[int], int]
) -> list[str]:
    """``order`` with each key of ``repeated`` shown a second time, at a slot ``choose(n)``
    picks among the n slots at least ``min_gap`` positions from the first showing (first and
    last when there is none). Shared by `showing_order` and the page script's `client_order`.
    """
    order = list(order)
    for key in repeated:
        first = order.index(key)
        # inserting at q puts the second showing at q (q > first) or pushes the first to
        # first + 1 (q <= first); the gap is the number of showings strictly between them
        slots = range(len(order) + 1)
        gaps = [q - first - 1 if q > first else first - q for q in slots]
        allowed = [q for q, gap in zip(slots, gaps, strict=True) if gap >= min_gap]
        if allowed:
            order.insert(allowed[choose(len(allowed))], key)
        else:  # too short for the gap: first and last is as far apart as it gets
            order.remove(key)
            order = [key, *order, key]
    return order
