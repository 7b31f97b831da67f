"""H7 low correlation and H8 consensus correlation: does a worker agree with the others?

Both use real items only. A correlation with fewer than `MIN_PAIRS` shared items, or where
either side is constant, is not computed (it says nothing), never a crash or a warning.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats

from harness.screening.context import ScreeningContext, content, result, workers_of

MIN_SHARED = 3  # H7: items two workers must share for their correlation to count
TOP = 3  # H7: the mean of this many best correlations
MIN_ITEMS = 5  # H8: items with other raters needed for a consensus correlation
BACKWARDS_BELOW = -0.3  # H8: label "backwards" below this r


def pearson(x: np.ndarray, y: np.ndarray) -> float:
    """Pearson r of two equal-length arrays; NaN when either is constant or too short."""
    if len(x) < 2:
        return float("nan")
    dx, dy = x - x.mean(), y - y.mean()
    denominator = np.sqrt((dx * dx).sum() * (dy * dy).sum())
    if denominator <= 1e-12:
        return float("nan")
    return float(np.clip((dx * dy).sum() / denominator, -1.0, 1.0))


def low_correlation(judgments: pd.DataFrame, context: ScreeningContext) -> pd.DataFrame:
    """H7: per assignment, the mean of the three best correlations with other workers.

    Each of the worker's assignments (all their judgments when there is no ``assignment_id``)
    is correlated with every other worker on the items both rated; the worker's score is the
    mean over assignments of the mean of the best three. Flag below the threshold (0.3). The
    evidence is the number of correlations computed.
    """
    rows = content(judgments, context)
    wide = rows.pivot_table(index="item_id", columns="worker_id", values="value", aggfunc="mean")
    if "assignment_id" in rows.columns:
        unit = rows["assignment_id"].astype(str).where(rows["assignment_id"].notna(), "")
        unit = unit.where(unit != "", "worker:" + rows["worker_id"])
    else:
        unit = "worker:" + rows["worker_id"]
    scores: dict[str, list[float]] = {}
    evidence: dict[str, int] = {}
    for (name, _), part in rows.groupby([rows["worker_id"], unit]):
        worker = str(name)
        block = wide.loc[list(dict.fromkeys(part["item_id"]))]
        own = block[worker].to_numpy()
        best: list[float] = []
        for other in block.columns:
            if other == worker:
                continue
            theirs = block[other].to_numpy()
            shared = ~np.isnan(own) & ~np.isnan(theirs)
            if shared.sum() >= MIN_SHARED:
                r = pearson(own[shared], theirs[shared])
                if not np.isnan(r):
                    best.append(r)
        evidence[worker] = evidence.get(worker, 0) + len(best)
        if best:
            scores.setdefault(worker, []).append(float(np.mean(sorted(best)[-TOP:])))
    score = pd.Series({w: float(np.mean(s)) for w, s in scores.items()}, dtype=float)
    flag = score < context.threshold("low_correlation")
    return result(workers_of(judgments), score, pd.Series(evidence, dtype=int), flag)


def consensus_correlation(judgments: pd.DataFrame, context: ScreeningContext) -> pd.DataFrame:
    """H8: Pearson r with the leave-one-out mean of the other raters, over >= 5 items.

    Flag r below the threshold (0.3); ``label`` is ``backwards`` when r < -0.3 (the scale read
    the wrong way round). ``rho``, the leave-one-out Spearman correlation, is added for the
    report. The evidence is the number of the worker's items that have other raters.
    """
    rows = content(judgments, context)
    cell = rows.groupby(["item_id", "worker_id"], as_index=False)["value"].mean()
    totals = cell.groupby("item_id")["value"].agg(["sum", "size"])
    cell = cell.join(totals, on="item_id")
    cell = cell[cell["size"] > 1]
    cell = cell.assign(others=(cell["sum"] - cell["value"]) / (cell["size"] - 1))
    r: dict[str, float] = {}
    rho: dict[str, float] = {}
    count: dict[str, int] = {}
    for worker, part in cell.groupby("worker_id"):
        x, y = part["value"].to_numpy(), part["others"].to_numpy()
        count[str(worker)] = len(part)
        if len(part) >= MIN_ITEMS:
            r[str(worker)] = pearson(x, y)
            rho[str(worker)] = _spearman(x, y)
    score = pd.Series(r, dtype=float)
    flag = score < context.threshold("consensus_correlation")
    label = pd.Series(np.where(score < BACKWARDS_BELOW, "backwards", ""), index=score.index)
    return result(
        workers_of(judgments),
        score,
        pd.Series(count, dtype=int),
        flag,
        label=label.reindex(workers_of(judgments)).fillna(""),
        rho=pd.Series(rho, dtype=float),
    )


def _spearman(x: np.ndarray, y: np.ndarray) -> float:
    """Spearman rho (Pearson r of average ranks), NaN when either side is constant."""
    return pearson(stats.rankdata(x), stats.rankdata(y))
