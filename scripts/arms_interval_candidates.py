"""The candidates for the interval of a difference of arms' alphas that lost to the relabeling
test (docs/arms.md, "How well the verdict is calibrated"), measured on the same simulated
studies as `scripts/arms_false_positives.py`:

- **multiway** (Cameron, Gelbach & Miller 2011, "Robust inference with multiway clustering",
  Journal of Business & Economic Statistics 29(2), 238-249): V = V_items + V_workers -
  V_judgments, each the variance of the difference under a one-way resampling of that factor
  alone (items jointly for the two arms, workers within their arm, single judgments), and the
  normal interval d +- z sqrt(V) (V <= 0: the largest one-way variance). Two versions of the
  one-way variances: the Bayesian bootstrap (Exp(1) weights, ``--resamples``) and the
  delete-one jackknife;
- **studentized relabeling**: the relabeling test of `harness.characterize.arm_relabel` with
  t = d / se as its statistic, se the items' infinitesimal jackknife (the delta method over
  item weights) of the difference, recomputed for every split (Chung & Romano 2013, "Exact
  and asymptotically robust permutation tests", Annals of Statistics 41(2), 484-507).

Prints, per candidate, the share of seeds told apart (the false-positive rate when the arms'
noise is equal, the power otherwise) with its binomial standard error, and the coverage of the
mean difference over seeds.

    python scripts/arms_interval_candidates.py [--seeds 400] [--jobs 2] [--bias 0.5]
        [--noisier 1.5] [--items-per-hit 20 | 20,10]
"""

from __future__ import annotations

import argparse
import math
import time
from concurrent.futures import ProcessPoolExecutor

import numpy as np
import pandas as pd
from scipy import stats

from harness.characterize.arm_alpha import ArmValues, unit_matrix, weighted_alphas
from harness.characterize.arm_relabel import draw_splits
from harness.simulate.arms import simulate_arms

CANDIDATES = ("multiway, bootstrap", "multiway, jackknife", "studentized relabeling")


def _jackknife(thetas: np.ndarray) -> float:
    g = len(thetas)
    return float((g - 1) / g * ((thetas - thetas.mean()) ** 2).sum())


def _alpha_and_item_influence(
    unit: np.ndarray, x: np.ndarray, n_units: int, v: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Interval alpha of each row of value weights ``v`` and its derivative in each item's
    weight at weight 1 (b x units); the sums are those of `harness.characterize.arm_alpha`."""
    to_unit = unit_matrix(unit, n_units)
    big_v = np.asarray((to_unit @ v.T).T)
    q = np.asarray((to_unit @ (v * v).T).T)
    s1 = np.asarray((to_unit @ (v * x).T).T)
    s2 = np.asarray((to_unit @ (v * x * x).T).T)
    pair = big_v * big_v - q
    c = (pair > 0).astype(float)
    a = np.where(pair > 0, big_v * 2 * (big_v * s2 - s1 * s1) / np.where(pair > 0, pair, 1), 0)
    w = (c * big_v).sum(axis=1, keepdims=True)
    t1 = (c * s1).sum(axis=1, keepdims=True)
    t2 = (c * s2).sum(axis=1, keepdims=True)
    den = w * w - (c * q).sum(axis=1, keepdims=True)
    d_o = (c * a).sum(axis=1, keepdims=True) / w
    d_e = 2 * (w * t2 - t1 * t1) / den
    dd_o = (a - d_o * big_v) / w
    dd_e = (2 * (big_v * t2 + w * s2 - 2 * t1 * s1) - d_e * (2 * w * big_v - q)) / den
    return (1 - d_o / d_e)[:, 0], -c * (dd_o * d_e - d_o * dd_e) / (d_e * d_e)


Interval = tuple[float, float]


def one_seed(job: tuple[argparse.Namespace, float, int]) -> tuple[float, dict[str, Interval]]:
    """The difference of alphas of one simulated study and each candidate's interval."""
    args, noisier, seed = job
    table = simulate_arms(
        {"a": args.noise, "b": noisier},
        items=args.items,
        raters_per_item=args.raters,
        items_per_hit=args.items_per_hit,
        bias_sd=args.bias,
        seed=seed,
    )
    codes = {item: i for i, item in enumerate(sorted(table["item_id"].unique()))}
    n_units = len(codes)
    arms = [
        ArmValues.build(
            rows["item_id"].map(codes).to_numpy(),
            rows["worker_id"].to_numpy(),
            rows["value"].to_numpy(),
            n_units,
            "interval",
        )
        for rows in (table[table["arm"] == a] for a in "ab")
    ]
    rng = np.random.default_rng(seed)
    b = args.resamples
    ones = np.ones((b, n_units))
    point = [a.alphas(np.ones((1, n_units)), np.ones((1, a.n_workers)))[0] for a in arms]
    d = float(point[1] - point[0])
    out: dict[str, Interval] = {}
    # multiway: three one-way variances of the difference, Bayesian bootstrap and jackknife
    items = rng.exponential(1.0, (b, n_units))
    boot = {
        "items": [a.alphas(items, np.ones((b, a.n_workers))) for a in arms],
        "workers": [a.alphas(ones, rng.exponential(1.0, (b, a.n_workers))) for a in arms],
        "judgments": [
            weighted_alphas(a.unit, a.x, n_units, ones, rng.exponential(1.0, (b, len(a.x))))
            for a in arms
        ],
    }
    v_boot = {k: float(np.nanvar(s[1] - s[0], ddof=1)) for k, s in boot.items()}
    drop_item = 1 - np.eye(n_units)
    jk_items = [a.alphas(drop_item, np.ones((n_units, a.n_workers))) for a in arms]
    v_jack = {
        "items": _jackknife(jk_items[1] - jk_items[0]),
        "workers": sum(
            _jackknife(a.alphas(np.ones((a.n_workers, n_units)), 1 - np.eye(a.n_workers)))
            for a in arms
        ),
        "judgments": sum(
            _jackknife(
                weighted_alphas(
                    a.unit, a.x, n_units, np.ones((len(a.x), n_units)), 1 - np.eye(len(a.x))
                )
            )
            for a in arms
        ),
    }
    z = stats.norm.ppf((1 + args.confidence) / 2)
    for name, v in (("multiway, bootstrap", v_boot), ("multiway, jackknife", v_jack)):
        total = v["items"] + v["workers"] - v["judgments"]
        if total <= 0:
            total = max(v.values())
        out[name] = (d - z * math.sqrt(total), d + z * math.sqrt(total))
    # studentized relabeling: t = d / se over splits keeping each arm's number of values
    unit = table["item_id"].map(codes).to_numpy()
    worker, _ = pd.factorize(table["worker_id"])
    x = table["value"].to_numpy(float) - table["value"].mean()
    counts = np.bincount(worker)
    in_b = np.bincount(worker, weights=(table["arm"] == "b").to_numpy()) > 0
    splits = np.vstack(
        [
            in_b[None, :].astype(float),
            draw_splits(counts, int(counts[in_b].sum()), args.relabelings, rng),
        ]
    )
    v_b = splits[:, worker]
    alpha_b, g_b = _alpha_and_item_influence(unit, x, n_units, v_b)
    alpha_a, g_a = _alpha_and_item_influence(unit, x, n_units, 1 - v_b)
    t = (alpha_b - alpha_a) / np.sqrt(((g_b - g_a) ** 2).sum(axis=1))
    low, high = np.percentile(
        t[1:], [(1 - args.confidence) / 2 * 100, (1 + args.confidence) / 2 * 100]
    )
    se = abs(d / t[0])
    out["studentized relabeling"] = (d - high * se, d - low * se)
    return d, out


def summary(rows: list[tuple[float, dict[str, Interval]]]) -> list[str]:
    """Per candidate: the share told apart and the coverage of the mean difference."""
    n = len(rows)
    centre = float(np.mean([d for d, _ in rows]))
    lines = []
    for name in CANDIDATES:
        told = covered = 0
        for _, intervals in rows:
            low, high = intervals[name]
            told += low > 0 or high < 0
            covered += low <= centre <= high
        p = told / n
        lines.append(
            f"  {name}: told apart {p:.3f} (se {math.sqrt(p * (1 - p) / n):.3f}); "
            f"covers the mean difference {covered / n:.3f}"
        )
    return lines


def per_arm(text: str) -> int | dict[str, int]:
    parts = [int(p) for p in text.split(",")]
    return parts[0] if len(parts) == 1 else {"a": parts[0], "b": parts[1]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=400)
    parser.add_argument("--jobs", type=int, choices=(1, 2), default=1)
    parser.add_argument("--items", type=int, default=60)
    parser.add_argument("--raters", type=per_arm, default=5)
    parser.add_argument("--items-per-hit", type=per_arm, default=20)
    parser.add_argument("--bias", type=float, default=0.5)
    parser.add_argument("--noise", type=float, default=1.5)
    parser.add_argument("--noisier", type=float, nargs="+", default=[1.5, 1.8])
    parser.add_argument("--resamples", type=int, default=400)
    parser.add_argument("--relabelings", type=int, default=400)
    parser.add_argument("--confidence", type=float, default=0.95)
    args = parser.parse_args()
    start = time.perf_counter()
    print(
        f"{args.seeds} seeds, {args.items} items, {args.raters} raters per item per arm, "
        f"{args.items_per_hit} items per HIT, workers' bias sd {args.bias}; "
        f"{args.resamples} resamples, {args.relabelings} relabelings"
    )
    pool = ProcessPoolExecutor(args.jobs) if args.jobs > 1 else None
    try:
        for noisier in args.noisier:
            jobs = [(args, noisier, seed) for seed in range(args.seeds)]
            rows = list(pool.map(one_seed, jobs, chunksize=8) if pool else map(one_seed, jobs))
            print(f" arm b noise sd {noisier} vs {args.noise}:")
            print("\n".join(summary(rows)))
    finally:
        if pool is not None:
            pool.shutdown()
    print(f"  ({time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()
