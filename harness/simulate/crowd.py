"""A simulated crowd and the study it produces: the long judgment table, reproducibly.

A `Crowd` is a number of workers and a mix of archetypes with proportions; the count of each
archetype is fixed by the proportions (largest remainders), so a test knows exactly how many
spammers there are. `simulate_judgments` cuts the items into assignments (HITs) of
``items_per_assignment``, gives each HIT ``raters_per_item`` distinct workers (the least busy
first, ties broken at random), and lets every worker answer from the latent truths. The true
archetype of each worker is kept in ``true_archetype`` for evaluation only: screening never
reads it. The same seed gives the same table.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from harness.roles import ItemRole
from harness.simulate.archetypes import Archetype, Worker
from harness.spec.scale import Scale

RANDOM_PAIR_CEILING = 0.15  # a random pair's truth: in this lowest share of the scale's range


@dataclass(frozen=True)
class Crowd:
    """``size`` workers in the given archetype proportions (normalized), drawn with ``seed``."""

    mix: Mapping[Archetype | str, float] = field(default_factory=lambda: {Archetype.CAREFUL: 1.0})
    size: int = 60
    seed: int = 0

    def counts(self) -> dict[Archetype, int]:
        """How many workers of each archetype: proportions rounded by largest remainder."""
        if self.size < 1:
            raise ValueError("a crowd needs at least one worker")
        weights = {Archetype(k): float(v) for k, v in self.mix.items() if v > 0}
        total = sum(weights.values())
        if total <= 0:
            raise ValueError("a crowd's mix needs at least one positive proportion")
        exact = {k: self.size * v / total for k, v in weights.items()}
        counts = {k: int(np.floor(x)) for k, x in exact.items()}
        order = sorted(exact, key=lambda k: (-(exact[k] - counts[k]), list(Archetype).index(k)))
        for k in order[: self.size - sum(counts.values())]:
            counts[k] += 1
        return counts

    def workers(self, scale: Scale) -> list[Worker]:
        """The crowd's workers, archetypes in a seeded random order, traits drawn per worker."""
        rng = np.random.default_rng([self.seed, 1])
        kinds = [k for k, n in self.counts().items() for _ in range(n)]
        rng.shuffle(kinds)
        return [Worker.draw(f"w{i + 1:03d}", kind, scale, rng) for i, kind in enumerate(kinds)]


def simulate_judgments(
    truths: pd.Series,
    scale: Scale,
    crowd: Crowd,
    raters_per_item: int,
    items_per_assignment: int,
    seed: int = 0,
    roles: pd.Series | None = None,
    *,
    machine: pd.Series | None = None,
) -> pd.DataFrame:
    """The long table a study of ``truths`` (item_id -> latent truth) would give with ``crowd``.

    Columns: ``item_id, worker_id, value, skipped, assignment_id, position, seconds, role,
    answered_hidden, true_archetype``. ``roles`` (item_id -> `ItemRole`) marks control items
    (default: all are content items); build their truths with `control_truths`. For a pair
    comparison the truths are latent differences (see `harness.simulate.archetypes`).
    ``machine`` (item_id -> a system's answer, `harness.simulate.machine.machine_answers`) is
    what model-assisted workers answer from (items without one: the truth); a crowd with
    model-assisted workers needs it. ``answered_hidden`` is the page signal "answered while
    the page was hidden": a bot fills a page in a background tab, people do not.
    """
    if raters_per_item > crowd.size:
        raise ValueError(
            f"raters_per_item={raters_per_item} needs at least that many workers "
            f"(the crowd has {crowd.size})"
        )
    if items_per_assignment < 1:
        raise ValueError("items_per_assignment must be at least 1")
    workers = crowd.workers(scale)
    if machine is None and any(w.archetype is Archetype.MODEL_ASSISTED for w in workers):
        raise ValueError("model-assisted workers need the machine's answers (machine=...)")
    rng = np.random.default_rng([seed, 2])
    item_ids = np.asarray(truths.index.astype(str))
    values = truths.to_numpy(dtype=float)
    assisted = values
    if machine is not None:
        by_item = {str(k): float(v) for k, v in machine.items()}
        assisted = np.array([by_item.get(i, v) for i, v in zip(item_ids, values, strict=True)])
    order = rng.permutation(len(item_ids))
    hits = [order[i : i + items_per_assignment] for i in range(0, len(order), items_per_assignment)]
    load = np.zeros(len(workers))
    parts: list[pd.DataFrame] = []
    for h, hit in enumerate(hits):
        ties = rng.random(len(workers))
        chosen = np.lexsort((ties, load))[:raters_per_item]
        for r, w in enumerate(chosen):
            load[w] += 1
            worker = workers[w]
            shown = hit[rng.permutation(len(hit))]
            source = assisted if worker.archetype is Archetype.MODEL_ASSISTED else values
            parts.append(
                pd.DataFrame(
                    {
                        "item_id": item_ids[shown],
                        "worker_id": worker.worker_id,
                        "value": worker.answer(source[shown], scale, rng),
                        "skipped": False,
                        "assignment_id": f"a{h + 1:03d}-{r + 1:02d}",
                        "position": np.arange(len(shown)),
                        "seconds": worker.seconds(len(shown), rng),
                        "answered_hidden": worker.archetype is Archetype.BOT,
                        "true_archetype": worker.archetype.value,
                    }
                )
            )
    table = pd.concat(parts, ignore_index=True)
    role_of = {} if roles is None else {str(k): str(v) for k, v in roles.items()}
    table["role"] = [role_of.get(i, ItemRole.ITEM.value) for i in table["item_id"]]
    table["position"] = table["position"].astype("Int64")
    columns = ["item_id", "worker_id", "value", "skipped", "assignment_id", "position"]
    return table[[*columns, "seconds", "role", "answered_hidden", "true_archetype"]]


def control_truths(items: pd.DataFrame, scale: Scale, seed: int = 0) -> pd.Series:
    """Latent truths of control items from an item table (``item_id, role``, optional ``gold``).

    Identical pairs -> the scale's maximum; random pairs -> low values (uniform in the lowest
    15% of the range); gold items -> their designated answer. Other
    roles get no truth here (their truths come from the instrument).
    """
    rng = np.random.default_rng([seed, 3])
    role = items["role"].astype(str)
    truths = pd.Series(np.nan, index=items["item_id"].astype(str).to_numpy(), dtype=float)
    identical = (role == ItemRole.IDENTICAL.value).to_numpy()
    truths[identical] = scale.max
    random_pair = (role == ItemRole.RANDOM_PAIR.value).to_numpy()
    truths[random_pair] = scale.min + rng.uniform(
        0.0, RANDOM_PAIR_CEILING * scale.range, random_pair.sum()
    )
    if "gold" in items.columns:
        gold = pd.to_numeric(items["gold"], errors="coerce").to_numpy()
        has_gold = ~np.isnan(gold)
        truths[has_gold] = gold[has_gold]
    return truths.dropna()
