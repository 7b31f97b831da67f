"""The report's plots (matplotlib, Agg backend), each returned as PNG bytes.

Plots: the crescent plot (per-item sd against mean) of each instrument, new against original
item means and sds, agreement against threshold (resolution) and per distance band with its
fitted psychometric curve, and per-rater rho per system.
"""

from __future__ import annotations

import io
import textwrap
from typing import Any

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from harness.characterize.precision import Precision  # noqa: E402
from harness.characterize.reproducibility import Reproducibility  # noqa: E402
from harness.characterize.resolution import Resolution  # noqa: E402

DPI = 110
_COLOURS = ("#1f5f99", "#c2571a", "#3c8d3c", "#8e44ad", "#7f7f7f")
# a legend on a white box, so points under it do not run through its text
_LEGEND: dict[str, Any] = {"fontsize": 7, "frameon": True, "framealpha": 0.9, "edgecolor": "none"}


def crescent(panels: dict[str, Precision], scale: tuple[float, float] | None) -> bytes:
    """Per-item sd against per-item mean, one panel per instrument, with the mean sd."""
    fig, axes = plt.subplots(
        1, len(panels), figsize=(3.4 * len(panels), 3.2), sharey=True, squeeze=False
    )
    for ax, (name, p), colour in zip(axes[0], panels.items(), _COLOURS, strict=False):
        ax.scatter(p.mean, p.sd, s=9, alpha=0.6, color=colour, linewidths=0)
        ax.axhline(p.mean_sd, color="black", lw=0.8, ls="--", label=f"mean sd {p.mean_sd:.2f}")
        ax.axhspan(*p.band, color=colour, alpha=0.08, label="middle two thirds")
        if scale is not None:
            ax.set_xlim(scale[0] - 0.3, scale[1] + 0.3)
        ax.set_title(textwrap.fill(name, 34), fontsize=10)  # long names wrap, never overlap
        ax.set_xlabel("item mean")
        ax.legend(**_LEGEND, loc="upper left")
    axes[0][0].set_ylabel("item sd (sample, ddof = 1)")
    return _png(fig)


def versus(
    repro: Reproducibility, column: str, *, new_name: str, original_name: str, label: str
) -> bytes:
    """New against original per shared item (``column``: "mean" or "sd"), with the diagonal."""
    x = repro.changes[f"{column}_original"].to_numpy()
    y = repro.changes[f"{column}_new"].to_numpy()
    fig, ax = plt.subplots(figsize=(3.6, 3.4))
    ax.scatter(x, y, s=9, alpha=0.6, color=_COLOURS[0], linewidths=0)
    low, high = float(min(x.min(), y.min())), float(max(x.max(), y.max()))
    ax.plot([low, high], [low, high], color="black", lw=0.8, ls="--", label="new = original")
    ax.set_xlabel(f"{original_name}: item {label}")
    ax.set_ylabel(f"{new_name}: item {label}")
    ax.legend(**_LEGEND, loc="upper left")
    ax.set_aspect("equal", adjustable="datalim")
    return _png(fig)


def agreement_curve(res: Resolution) -> bytes:
    """Agreement against threshold, the 95% line, the resolution, and n on a second axis."""
    curve = res.curve
    fig, ax = plt.subplots(figsize=(6.4, 3.2))
    ax.plot(curve["threshold"], curve["agreement"], color=_COLOURS[0], lw=1.5, label="agreement")
    ax.axhline(res.target, color="black", lw=0.8, ls="--", label=f"{res.target:.0%}")
    if res.threshold_95 is not None:
        ax.axvline(
            res.threshold_95, color=_COLOURS[1], lw=1.0, label=f"resolution {res.threshold_95:.2f}"
        )
    ax.set_xlabel("threshold t (original distance |mean(P) - mean(Q)| >= t)")
    ax.set_ylabel("agreement with the original")
    ax.set_ylim(min(0.5, float(curve["agreement"].min()) - 0.02), 1.01)
    counts = ax.twinx()
    counts.plot(curve["threshold"], curve["n"], color=_COLOURS[4], lw=0.8, ls=":")
    counts.set_ylabel("pairs of pairs with d >= t", color=_COLOURS[4])
    ax.legend(fontsize=7, loc="center right", frameon=False)
    return _png(fig)


def psychometric_curve(res: Resolution) -> bytes:
    """Agreement per distance band (points sized by their pairs of pairs), the fitted logistic
    curve, the 95% line and the distance where the curve reaches it, with its interval."""
    bands = res.bands[res.bands["n"] > 0]
    fig, ax = plt.subplots(figsize=(6.4, 3.4))
    centres = (bands["low"] + bands["high"]) / 2
    ax.scatter(
        centres,
        bands["agreement"],
        s=12 + 2 * bands["n"],
        color=_COLOURS[0],
        alpha=0.7,
        linewidths=0,
        label="agreement per band",
    )
    ax.axhline(res.target, color="black", lw=0.8, ls="--", label=f"{res.target:.0%}")
    curve = res.psychometric
    if curve is not None:
        reach = min(curve.d_target, 2 * curve.max_distance)
        top = max(curve.max_distance, reach)
        grid = np.linspace(0.0, top, 200)
        ax.plot(grid, curve.at(grid), color=_COLOURS[1], lw=1.5, label="logistic fit")
        if curve.ci is not None:
            ax.axvspan(*curve.ci, color=_COLOURS[1], alpha=0.12, label="its bootstrap 95% interval")
        ax.axvline(
            curve.d_target,
            color=_COLOURS[1],
            lw=0.8,
            ls=":",
            label=f"reaches {res.target:.0%} at {curve.d_target:.2f}",
        )
    ax.set_xlabel("distance |mean(P) - mean(Q)| in the original")
    ax.set_ylabel("agreement with the original")
    ax.set_ylim(-0.02, 1.02)
    ax.legend(fontsize=7, loc="lower right", frameon=True, framealpha=0.9)
    return _png(fig)


def per_rater_rho(per_rater: dict[str, pd.DataFrame]) -> bytes:
    """Each system's rho against every rater, one box per system, one panel per instrument."""
    fig, axes = plt.subplots(
        1, len(per_rater), figsize=(3.4 * len(per_rater), 3.2), sharey=True, squeeze=False
    )
    rng = np.random.default_rng(0)
    for ax, (name, table) in zip(axes[0], per_rater.items(), strict=False):
        data = [table[c].dropna().to_numpy() for c in table.columns]
        ax.boxplot(data, showfliers=False, widths=0.5)
        for i, values in enumerate(data, start=1):
            jitter = rng.uniform(-0.12, 0.12, len(values))
            ax.scatter(i + jitter, values, s=8, alpha=0.6, color=_COLOURS[0], linewidths=0)
        ax.set_xticks(range(1, len(table.columns) + 1), list(table.columns), fontsize=8)
        ax.set_title(f"{name} ({len(table)} raters)", fontsize=10)
    axes[0][0].set_ylabel("Spearman rho, system vs one rater")
    return _png(fig)


def _png(fig: Figure) -> bytes:
    fig.tight_layout()
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=DPI)
    plt.close(fig)
    return buffer.getvalue()
