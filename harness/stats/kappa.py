"""Chance-corrected agreement for nominal data: Cohen's kappa (two raters) and Fleiss' kappa.

- Cohen, J. (1960). A coefficient of agreement for nominal scales. Educational and
  Psychological Measurement 20(1), 37-46: kappa = (p_o - p_e) / (1 - p_e), with p_o the share of
  items both raters put in the same category and p_e = sum_c p_Ac p_Bc from each rater's own
  marginal shares, over the items both rated.
- Fleiss, J. L. (1971). Measuring nominal scale agreement among many raters. Psychological
  Bulletin 76(5), 378-382: kappa = (P_bar - P_e) / (1 - P_e) with, for item i with n_i ratings
  of which n_ij in category j, P_i = (sum_j n_ij^2 - n_i) / (n_i (n_i - 1)), P_bar the mean of
  P_i, p_j = sum_i n_ij / sum_i n_i and P_e = sum_j p_j^2. Fleiss defines it for a constant
  n_i = n; with varying n_i the same formulas are applied to the items with n_i >= 2 (stated).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from harness.errors import StatsError
from harness.stats._table import valued


def cohen_kappa(a: np.ndarray | pd.Series, b: np.ndarray | pd.Series) -> float:
    """Cohen's kappa of two raters' labels on the same items (parallel sequences)."""
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape or a.ndim != 1 or len(a) == 0:
        raise StatsError("Cohen's kappa needs two equally long, non-empty sequences of labels")
    _, codes = np.unique(np.concatenate([a, b]), return_inverse=True)
    ca, cb = codes[: len(a)], codes[len(a) :]
    k = int(codes.max()) + 1
    p_o = float(np.mean(ca == cb))
    p_e = float(np.dot(np.bincount(ca, minlength=k), np.bincount(cb, minlength=k))) / len(a) ** 2
    if p_e == 1:
        raise StatsError("Cohen's kappa is undefined: both raters used one and the same category")
    return (p_o - p_e) / (1 - p_e)


def cohen_kappa_workers(judgments: pd.DataFrame, worker_a: str, worker_b: str) -> float:
    """Cohen's kappa of two workers of a long table, over the items both gave a value for."""
    table = valued(judgments)
    pair = table[table["worker_id"].isin([worker_a, worker_b])].pivot_table(
        index="item_id", columns="worker_id", values="value", aggfunc="first"
    )
    if worker_a not in pair or worker_b not in pair:
        raise StatsError(f"no values from worker {worker_a!r} or {worker_b!r}")
    both = pair[[worker_a, worker_b]].dropna()
    return cohen_kappa(both[worker_a].to_numpy(), both[worker_b].to_numpy())


def fleiss_kappa_counts(counts: np.ndarray) -> float:
    """Fleiss' kappa from an items x categories table of rating counts n_ij."""
    counts = np.asarray(counts, dtype=np.float64)
    n_i = counts.sum(axis=1)
    counts, n_i = counts[n_i >= 2], n_i[n_i >= 2]
    if len(n_i) == 0:
        raise StatsError("Fleiss' kappa needs items with at least two ratings")
    p_i = ((counts * counts).sum(axis=1) - n_i) / (n_i * (n_i - 1))
    p_j = counts.sum(axis=0) / n_i.sum()
    p_e = float(np.dot(p_j, p_j))
    if p_e == 1:
        raise StatsError("Fleiss' kappa is undefined: every rating is in one category")
    return (float(p_i.mean()) - p_e) / (1 - p_e)


def fleiss_kappa(judgments: pd.DataFrame) -> float:
    """Fleiss' kappa of a long table; values are labels compared for equality."""
    table = valued(judgments)
    counts = pd.crosstab(table["item_id"], table["value"]).to_numpy()
    return fleiss_kappa_counts(counts)
