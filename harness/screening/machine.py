"""H11 machine agreement: does a worker agree with a machine more than with people?

A worker who pastes a language model's ratings agrees with the consensus rather well (a good
model ranks items much as people do), so H7 and H8 pass them. What gives them away is whose
errors they share: a model's ratings follow other models' orderings more closely than they
follow people's, and a careful person's the other way round. For each machine reference (a
system's scores, `ScreeningContext.references`) H11 takes the worker's items that have a score
and at least ``context.min_others`` other raters, and compares two Spearman correlations over
those items: with the reference, and with the leave-one-out human consensus (H8's). The score
is the largest difference, reference minus consensus, over the references; flagged above the
threshold (0) with at least `MIN_ITEMS` items, when the worker agrees with that reference at
all (rho at least `MIN_MACHINE_RHO`: a random worker's two near-zero correlations differ by
chance, which says nothing about a machine). The worker's model need not be one of the
references: models of a family share their errors (docs/screening.md, "Machine-made answers").
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from harness.screening.aggregates import ItemAggregates, cells
from harness.screening.context import ScreeningContext, content, result, workers_of
from harness.screening.correlation import grouped_pearson, grouped_ranks
from harness.spec.heuristics import HeuristicKey

MIN_ITEMS = 10  # items with a reference score and enough other raters needed for a flag
MIN_MACHINE_RHO = 0.5  # agreement with the reference needed for a flag


def machine_agreement(judgments: pd.DataFrame, context: ScreeningContext) -> pd.DataFrame:
    """H11: Spearman rho with the closest reference minus rho with the leave-one-out consensus;
    ``reference``, ``machine_rho`` and ``human_rho`` added."""
    rows = content(judgments, context)
    totals = ItemAggregates.of(rows, context.scale.midpoint).totals
    return machine_agreement_of(
        workers_of(judgments), cells(rows), totals, context, context.references
    )


def machine_agreement_of(
    workers: pd.Index,
    cell: pd.DataFrame,
    totals: pd.DataFrame,
    context: ScreeningContext,
    references: Mapping[str, pd.Series],
) -> pd.DataFrame:
    """H11 for ``workers`` from their ``cell`` values, every item's cell ``totals`` and the
    ``references`` (name -> score by the same item ids as ``cell``)."""
    at = totals.index.get_indexer(pd.Index(cell["item_id"]))
    size = np.where(at >= 0, totals["size"].to_numpy()[at], 0)
    rated = size > context.min_others
    table = cell[rated].assign(
        others=(totals["sum"].to_numpy()[at][rated] - cell["value"].to_numpy()[rated])
        / (size[rated] - 1)
    )
    found = []
    for name, scores in references.items():
        part = table.assign(machine=table["item_id"].map(scores)).dropna(subset=["machine"])
        count = part.groupby("worker_id").size()
        part = part[part["worker_id"].map(count) >= MIN_ITEMS]
        if part.empty:
            continue
        keys = part["worker_id"]
        own = grouped_ranks(keys, part["value"])
        human = grouped_pearson(keys, own, grouped_ranks(keys, part["others"]))
        machine = grouped_pearson(keys, own, grouped_ranks(keys, part["machine"]))
        found.append(
            pd.DataFrame(
                {
                    "score": machine - human,
                    "evidence": count.reindex(machine.index),
                    "reference": name,
                    "machine_rho": machine,
                    "human_rho": human,
                }
            )
        )
    if not found:
        empty = pd.Series(dtype=float)
        return result(workers, empty, empty, empty.astype(bool), reference=empty.astype(object))
    every = pd.concat(found).dropna(subset=["score"])
    best = every.sort_values("score", ascending=False, kind="stable")
    best = best[~best.index.duplicated()]
    threshold = context.threshold(HeuristicKey.MACHINE_AGREEMENT)
    return result(
        workers,
        best["score"],
        best["evidence"],
        (best["score"] > threshold) & (best["machine_rho"] >= MIN_MACHINE_RHO),
        reference=best["reference"].reindex(workers).fillna(""),
        machine_rho=best["machine_rho"],
        human_rho=best["human_rho"],
    )
