"""Monte Carlo of the tests that compare two systems' correlations with one instrument.

Each sample is n items of (T, A, B) from a trivariate normal whose Spearman correlations are
rho_AT = rho, rho_BT = rho + difference and rho_AB = r_ab (Pearson r = 2 sin(pi rho / 6)).
With difference = 0 the share of samples with p < p0 is the test's size (its type-I error);
with a difference it is the power. Tests (two-tailed):

- ``spearman``: `harness.stats.spearman_difference` on the Spearman rhos (harness's test);
- ``steiger_on_spearman``: Steiger's Z with pooled r applied to the Spearman rhos (what
  harness did before, and what a published MRDS table assumes);
- ``steiger_on_pearson``: Steiger's Z on Pearson's r, the case it was made for.

`scripts/calibrate_comparisons.py` runs the grid methods.md tabulates; the tests run a few
cells with a seed. Samples are drawn in batches, and the statistics are computed for a whole
batch at once (continuous data: no ties), with the same formulas as the single-sample code.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats

from harness.stats.spearman_difference import normal_cholesky

TESTS = ("spearman", "steiger_on_spearman", "steiger_on_pearson")
_BATCH_VALUES = 600_000  # samples x items per batch, to bound memory


@dataclass(frozen=True)
class Rejections:
    """Share of samples with p < p0, per test."""

    n: int
    rho: float
    r_ab: float
    difference: float
    samples: int
    rates: dict[str, float]


def feasible(rho: float, r_ab: float, difference: float = 0.0) -> bool:
    """Whether three normal variables can have these Spearman correlations."""
    return normal_cholesky(rho, rho + difference, r_ab) is not None


def rejection_rates(
    n: int,
    rho: float,
    r_ab: float,
    *,
    difference: float = 0.0,
    samples: int = 2000,
    p0: float = 0.05,
    seed: int = 0,
) -> Rejections:
    """The share of ``samples`` samples of n items in which each test rejects at p0."""
    root = normal_cholesky(rho, rho + difference, r_ab)
    if root is None:
        raise ValueError(f"no normal variables with rho {rho}, {rho + difference}, r_AB {r_ab}")
    rng = np.random.default_rng(seed)
    batch = max(1, _BATCH_VALUES // n)
    hits = dict.fromkeys(TESTS, 0)
    done = 0
    while done < samples:
        size = min(batch, samples - done)
        x = rng.standard_normal((size, n, 3)) @ root.T
        for name, p in batch_p_values(x).items():
            hits[name] += int(np.sum(p < p0))
        done += size
    return Rejections(
        n=n,
        rho=rho,
        r_ab=r_ab,
        difference=difference,
        samples=samples,
        rates={k: v / samples for k, v in hits.items()},
    )


def batch_p_values(x: np.ndarray) -> dict[str, np.ndarray]:
    """p of each test for samples x (samples, n, 3: T, A, B), no ties."""
    n = x.shape[1]
    f = (np.argsort(np.argsort(x, axis=1), axis=1) + 0.5) / n  # mid-distribution values
    spearman = _correlations(f)
    pearson = _correlations(x)
    ft, fa, fb = f[:, :, 0], f[:, :, 1], f[:, :, 2]
    rho_a, rho_b = spearman[:, 0, 1], spearman[:, 0, 2]
    w = _influence(ft, fb) / (1 - rho_b**2)[:, None] - _influence(ft, fa) / (1 - rho_a**2)[:, None]
    z = (np.arctanh(rho_b) - np.arctanh(rho_a)) / np.sqrt(w.var(axis=1, ddof=1) / n)
    return {
        "spearman": 2 * stats.norm.sf(np.abs(z)),
        "steiger_on_spearman": _steiger_p(rho_a, rho_b, spearman[:, 1, 2], n),
        "steiger_on_pearson": _steiger_p(pearson[:, 0, 1], pearson[:, 0, 2], pearson[:, 1, 2], n),
    }


def _influence(f: np.ndarray, g: np.ndarray) -> np.ndarray:
    """`spearman_difference._influence` for a batch of samples (rows), no ties."""
    fg = f * g
    out: np.ndarray = 12 * (fg + _above(f, g) + _above(g, f)) - 36 * fg.mean(axis=1, keepdims=True)
    return out


def _above(key: np.ndarray, weight: np.ndarray) -> np.ndarray:
    n = key.shape[1]
    order = np.argsort(-key, axis=1)
    ordered = np.take_along_axis(weight, order, axis=1)
    above = np.cumsum(ordered, axis=1) - ordered / 2  # an item ties with itself: half
    out = np.empty_like(above)
    np.put_along_axis(out, order, above, axis=1)
    scaled: np.ndarray = out / n
    return scaled


def _correlations(x: np.ndarray) -> np.ndarray:
    centred = x - x.mean(axis=1, keepdims=True)
    s = np.einsum("sni,snj->sij", centred, centred)
    d = np.sqrt(np.einsum("sii->si", s))
    r: np.ndarray = s / d[:, :, None] / d[:, None, :]
    return r


def _steiger_p(r_a: np.ndarray, r_b: np.ndarray, r_ab: np.ndarray, n: int) -> np.ndarray:
    """`harness.stats.dependent.steiger_z`'s two-tailed p, for arrays."""
    r_bar = (r_a + r_b) / 2
    psi = r_ab * (1 - 2 * r_bar**2) - 0.5 * r_bar**2 * (1 - 2 * r_bar**2 - r_ab**2)
    s = psi / (1 - r_bar**2) ** 2
    z = (np.arctanh(r_a) - np.arctanh(r_b)) * math.sqrt(n - 3) / np.sqrt(2 - 2 * s)
    return np.asarray(2 * stats.norm.sf(np.abs(z)))
