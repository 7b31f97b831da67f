"""Benchmark: how harness scales (issue 19), every figure beside its goal, measured in one run.

Run from the project root:

    .venv/bin/python scripts/bench_scale.py [--quick] [--only NAME ...]

Each measure times one harness step at three sizes (``--quick``: a quarter of them) and
prints, per size, the best of up to three runs (wall clock, perf_counter), with a reference
measured in the same run where there is one: the quadratic definition the step replaced, the
`krippendorff` package (GPL; used only here and in tests, never imported by harness), or the
text read of a CSV. Then the growth exponent of each over the three sizes (the slope of
log time on log size: 1 linear, 2 quadratic) and the goal, met or not, at the largest size.

Measures are small functions in ``MEASURES``; add one by writing a function of the size that
returns a `Timing`, and a `Measure` line.

Data (synthetic, seeded): characterization studies of n items x 50 raters (values = a latent
truth on 0-10 plus noise, two systems = truth plus noise); alpha tables of 100 judgments per
item from a pool of 1,000 workers (values 1-5), or 10 per item with continuous values on 0-10;
screening studies of 13 raters per item and 30 items per assignment, 1 worker per 1,000
judgments, a crowd of 65% careful, 10% spammers, 10% straight-liners, 10% backwards and 5%
sloppy workers, rated 0-10 in whole steps, under the ws353_reproduction screening policy.
"""

from __future__ import annotations

import argparse
import functools
import gc
import math
import os
import statistics
import sys
import tempfile
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))  # scale_loop, bench_local_mturk, bench_screening

from harness.characterize import precision, rank_stability_se  # noqa: E402
from harness.characterize.systems import distance_correlation, instrument_systems  # noqa: E402
from harness.judgments import (  # noqa: E402
    normalize_judgments,
    read_judgments,
    read_text_csv,
    write_judgments,
)
from harness.screening import ScreeningContext, screen_workers  # noqa: E402
from harness.screening.context import content  # noqa: E402
from harness.screening.correlation import unit_correlations, with_units  # noqa: E402
from harness.spec import load_spec  # noqa: E402
from harness.stats import alpha_from_arrays, krippendorff_alpha  # noqa: E402
from tests.characterize import quadratic  # noqa: E402
from tests.screening import h7_reference  # noqa: E402

SPEC = ROOT / "task_specs" / "ws353_reproduction.yaml"
THRESHOLDS = [0.0, 0.9, 1.8, 2.7, 3.6]


@dataclass(frozen=True)
class Timing:
    """Seconds of harness at one size, and of the reference (None: no reference)."""

    seconds: float
    reference: float | None = None
    cpu: float | None = None  # CPU seconds of harness's best run (wall well above: a busy machine)


@dataclass(frozen=True)
class Measure:
    name: str
    unit: str  # what the size counts
    sizes: tuple[int, int, int]
    run: Callable[[int], Timing]
    goal: str
    met: Callable[[Timing], bool] | None = None  # the goal, judged at the largest size
    reference: str = ""  # what the reference is
    sized: bool = True  # the goal names the full largest size (not judged with --quick)


_LAST_CPU: list[float] = []


def best(step: Callable[[], Any], repeat: int = 3) -> float:
    """Best wall time of ``step``; runs taking over a second are not repeated. The CPU time of
    that run is kept for `timed`."""
    runs: list[tuple[float, float]] = []
    while len(runs) < repeat:
        gc.collect()
        start, start_cpu = time.perf_counter(), time.process_time()
        step()
        runs.append((time.perf_counter() - start, time.process_time() - start_cpu))
        if runs[-1][0] > 1.0:
            break
    wall, cpu = min(runs)
    _LAST_CPU[:] = [cpu]
    return wall


def timed(step: Callable[[], Any], repeat: int = 3) -> Timing:
    """`best` of harness's ``step`` as a `Timing` with its CPU seconds."""
    wall = best(step, repeat)
    return Timing(wall, cpu=_LAST_CPU[0])


def with_reference(ours: Timing, reference: Callable[[], Any], repeat: int = 1) -> Timing:
    """``ours`` with the reference's best wall time."""
    return Timing(ours.seconds, best(reference, repeat), ours.cpu)


# --- data -----------------------------------------------------------------------------------------


def characterization_study(
    n_items: int, seed: int = 1
) -> tuple[pd.DataFrame, dict[str, pd.Series]]:
    """n items x 50 raters from a pool of 200, and two systems scoring the items."""
    rng = np.random.default_rng(seed)
    raters = 50
    truth = rng.uniform(0, 10, n_items)
    workers = np.argsort(rng.random((n_items, 200)), axis=1)[:, :raters]
    values = np.clip(truth[:, None] + rng.normal(0, 1.2, (n_items, raters)), 0, 10).round(2)
    items = pd.Index([f"i{k:06d}" for k in range(n_items)])
    table = pd.DataFrame(
        {
            "item_id": np.repeat(items.to_numpy(), raters),
            "worker_id": pd.Index([f"w{w:03d}" for w in range(200)])[workers.ravel()],
            "value": values.ravel(),
        }
    )
    scores = {
        f"s{k}": pd.Series(truth + rng.normal(0, 1.5 + k, n_items), index=items) for k in range(2)
    }
    return table, scores


def screening_study(n_judgments: int, seed: int = 7) -> pd.DataFrame:
    """A long table of 13 raters per item, 30 items per assignment (see the module docstring)."""
    rng = np.random.default_rng(seed)
    per_hit, raters = 30, 13
    n_hits = max(1, n_judgments // (per_hit * raters))
    n_items = n_hits * per_hit
    n_workers = max(raters + 1, n_judgments // 1000)
    truth = rng.uniform(0, 10, n_items)
    kind = rng.choice(5, n_workers, p=[0.65, 0.05, 0.1, 0.1, 0.1])  # careful, sloppy, ...
    constant = rng.integers(0, 11, n_workers)
    stride = next(s for s in range(7919, 10**6) if math.gcd(s, n_workers) == 1)
    offset = rng.integers(0, n_workers, n_hits)
    worker = (offset[:, None] + np.arange(raters)[None, :] * stride) % n_workers  # hits x raters
    item = rng.permutation(n_items).reshape(n_hits, per_hit)
    w = np.repeat(worker.ravel(), per_hit)  # assignment-major rows
    i = np.repeat(item, raters, axis=0).ravel()
    true = truth[i]
    noise = rng.normal(0, 1, len(i))
    value = np.select(
        [kind[w] == 0, kind[w] == 1, kind[w] == 2, kind[w] == 3],
        [true + 1.2 * noise, true + 3 * noise, rng.uniform(0, 10, len(i)), constant[w]],
        10 - true + 1.2 * noise,
    )
    assignment = np.repeat(np.arange(n_hits * raters), per_hit)
    return pd.DataFrame(
        {
            "item_id": pd.Index([f"p{k:06d}" for k in range(n_items)])[i],
            "worker_id": pd.Index([f"w{k:05d}" for k in range(n_workers)])[w],
            "value": np.clip(np.round(value), 0, 10),
            "skipped": False,
            "assignment_id": pd.Index([f"a{k:07d}" for k in range(n_hits * raters)])[assignment],
            "position": np.tile(np.arange(per_hit), n_hits * raters),
            "seconds": rng.lognormal(1.6, 0.5, len(i)).round(2),
            "role": "item",
        }
    )


def screening_context(table: pd.DataFrame) -> ScreeningContext:
    """The ws353_reproduction policy on a 0-10 scale over the table's items."""
    with tempfile.TemporaryDirectory() as directory:
        spec = yaml.safe_load(SPEC.read_text())
        items = pd.DataFrame({"item_id": pd.unique(table["item_id"])})
        items["word1"], items["word2"] = "left", "right"
        items.to_csv(Path(directory) / "items.csv", index=False)
        spec["items"] = {"csv": "items.csv", "display": ["word1", "word2"]}
        spec["scale"] = {"min": 0, "max": 10, "step": 1}
        spec["guidelines"] = {"text": "Rate how similar the two words are."}  # no file beside it
        path = Path(directory) / "bench.yaml"
        path.write_text(yaml.safe_dump(spec))
        return ScreeningContext.from_spec(load_spec(path))


def alpha_design(n_judgments: int, per_item: int, continuous: bool, seed: int = 0) -> pd.DataFrame:
    """``per_item`` judgments per item from a pool of 1,000 workers; 1-5 or continuous 0-10."""
    rng = np.random.default_rng(seed)
    n_items = n_judgments // per_item
    item = np.repeat(np.arange(n_items), per_item)
    start = rng.integers(0, 1000, n_items)
    worker = (np.repeat(start, per_item) + np.tile(np.arange(per_item) * 7, n_items)) % 1000
    if continuous:
        value = np.clip(rng.uniform(0, 10, n_items)[item] + rng.normal(0, 1.5, len(item)), 0, 10)
    else:
        value = np.clip(
            np.round(rng.uniform(1, 5, n_items)[item] + rng.normal(0, 1, len(item))), 1, 5
        )
    return pd.DataFrame({"item_id": item, "worker_id": worker, "value": value})


# --- measures -------------------------------------------------------------------------------------


def systems_step(n_items: int) -> Timing:
    table, scores = characterization_study(n_items)
    return timed(lambda: instrument_systems(table, scores))


def distance_step(n_items: int) -> Timing:
    table, scores = characterization_study(n_items)
    means = table.groupby("item_id")["value"].mean()
    frame = pd.DataFrame(scores)
    ours = timed(lambda: distance_correlation(means, frame, THRESHOLDS))
    m, s = means.to_numpy(), frame.to_numpy()
    return with_reference(ours, lambda: quadratic.distance_correlation(m, s, THRESHOLDS))


def rank_stability_step(n_items: int) -> Timing:
    table, _ = characterization_study(n_items)
    summaries = precision(table).summaries
    se = quadratic.summaries_se(summaries)
    ours = timed(lambda: rank_stability_se(summaries))
    return with_reference(ours, lambda: quadratic.rank_stability_se(summaries["mean"], se))


def ratio_few_values(n_judgments: int) -> Timing:
    table = alpha_design(n_judgments, 100, continuous=False)
    matrix = np.full((1000, table["item_id"].max() + 1), np.nan)
    matrix[table["worker_id"], table["item_id"]] = table["value"]
    import krippendorff

    def package() -> float:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return float(krippendorff.alpha(matrix, level_of_measurement="ratio"))

    ours = timed(lambda: krippendorff_alpha(table, "ratio"), 5)
    return with_reference(ours, package, 5)


def ratio_continuous(n_judgments: int) -> Timing:
    table = alpha_design(n_judgments, 10, continuous=True)
    items, values = table["item_id"].to_numpy(), table["value"].to_numpy()
    return timed(lambda: alpha_from_arrays(items, values, "ratio"))


def batch_screening(n_judgments: int) -> Timing:
    table = screening_study(n_judgments)
    context = screening_context(table)
    return timed(lambda: screen_workers(table, context), 2)


def h7_step(n_judgments: int) -> Timing:
    table = screening_study(n_judgments)
    rows = with_units(content(table, screening_context(table)))
    ours = timed(lambda: unit_correlations(rows))
    return with_reference(ours, lambda: h7_reference.unit_correlations(rows))


def csv_read(n_judgments: int) -> Timing:
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "judgments.csv"
        write_judgments(screening_study(n_judgments), path)
        ours = timed(lambda: read_judgments(path), 2)

        def text_read() -> pd.DataFrame:
            raw = read_text_csv(path, expected_header="a header")
            return normalize_judgments(raw, source=str(path))

        return with_reference(ours, text_read)


def launch_step(hits: int) -> Timing:
    from scale_loop import launch_hits

    return Timing(launch_hits(hits))


@functools.cache
def crowd_and_sync(hits: int) -> Any:
    """One crowd and sync run per size (a `scale_loop.LoopRun`), shared by the two measures
    that report on it."""
    from scale_loop import crowd_and_sync as run

    return run(hits)


def crowd_step(hits: int) -> Timing:
    """The crowd and sync of ``hits`` HITs x 3 assignments; prints each part."""
    run = crowd_and_sync(hits)
    print(
        f"  {'':>10} {run.done:,} assignments: crowd {run.crowd:.1f} s "
        f"({run.done / run.crowd:.0f}/s), sync {run.sync:.1f} s ({run.done / run.sync:.0f}/s)"
    )
    return Timing(run.crowd + run.sync)


def sync_step(hits: int) -> Timing:
    """`harness sync` alone after the crowd of ``hits`` HITs x 3 (the same run as above), with
    the CPU seconds of harness and the local service together."""
    run = crowd_and_sync(hits)
    print(
        f"  {'':>10} {run.done:,} assignments synced: {run.done / run.sync:.0f} a second, "
        f"{run.done / run.sync_cpu:.0f} a CPU second (harness and the local service)"
    )
    return Timing(run.sync, cpu=run.sync_cpu)


def live_step(n_judgments: int) -> Timing:
    """The slowest of ten live updates (the goal is every update); prints the median."""
    from scale_loop import live_updates

    seconds = live_updates(n_judgments)
    print(
        f"  {'':>10} ten updates at {n_judgments:,}: median "
        f"{statistics.median(seconds) * 1000:.1f} ms, max {max(seconds) * 1000:.1f} ms"
    )
    return Timing(max(seconds))


MEASURES = [
    Measure(
        "local service: harness launch, HITs x 3",
        "HITs",
        (250, 500, 1_000),
        launch_step,
        "< 20 s at 1,000",
        lambda t: t.seconds < 20.0,
    ),
    Measure(
        "local service: crowd + sync, HITs x 3",
        "HITs",
        (250, 500, 1_000),
        crowd_step,
        "< 3 min at 1,000 (3,000 assignments)",
        lambda t: t.seconds < 180.0,
    ),
    Measure(
        "local service: harness sync, HITs x 3",
        "HITs",
        (250, 500, 1_000),
        sync_step,
        "< 1 min at 1,000 (3,000 assignments; CPU seconds on a busy machine)",
        lambda t: min(t.seconds, t.cpu if t.cpu is not None else t.seconds) < 60.0,
    ),
    Measure(
        "screening: live update, slowest of ten",
        "judgments",
        (25_000, 50_000, 100_000),
        live_step,
        "every update < 50 ms at 100,000",
        lambda t: t.seconds < 0.050,
    ),
    Measure(
        "characterize: systems step (whole)",
        "items",
        (5_000, 10_000, 20_000),
        systems_step,
        "< 2 s at 20,000 items",
        lambda t: t.seconds < 2.0,
    ),
    Measure(
        "characterize: distance correlation",
        "items",
        (5_000, 10_000, 20_000),
        distance_step,
        "near-linear (exponent < 1.3)",
        reference="quadratic definition",
    ),
    Measure(
        "characterize: rank stability (se)",
        "items",
        (5_000, 10_000, 20_000),
        rank_stability_step,
        "near-linear (exponent < 1.3)",
        reference="quadratic definition",
    ),
    Measure(
        "alpha: ratio, 1-5 values",
        "judgments",
        (75_000, 150_000, 300_000),
        ratio_few_values,
        "<= package at 300,000",
        lambda t: t.reference is not None and t.seconds <= t.reference,
        reference="krippendorff package",
    ),
    Measure(
        "alpha: ratio, continuous",
        "judgments",
        (250_000, 500_000, 1_000_000),
        ratio_continuous,
        "< 2 s at 1,000,000",
        lambda t: t.seconds < 2.0,
    ),
    Measure(
        "screening: batch, every heuristic",
        "judgments",
        (250_000, 500_000, 1_000_000),
        batch_screening,
        "< 5 s at 1,000,000",
        lambda t: t.seconds < 5.0,
    ),
    Measure(
        "screening: H7 per-assignment correlations",
        "judgments",
        (250_000, 500_000, 1_000_000),
        h7_step,
        "near-linear (exponent < 1.3)",
        reference="per-assignment loop",
    ),
    Measure(
        "judgments: read a CSV",
        "judgments",
        (250_000, 500_000, 1_000_000),
        csv_read,
        "faster than the text read",
        lambda t: t.reference is not None and t.seconds < t.reference,
        reference="text read",
        sized=False,
    ),
]


def exponent(sizes: list[int], seconds: list[float]) -> float:
    """Slope of log(seconds) on log(size), least squares."""
    return float(np.polyfit(np.log(sizes), np.log(np.maximum(seconds, 1e-9)), 1)[0])


def report(
    measure: Measure, sizes: list[int], timings: list[Timing], quick: bool
) -> dict[str, Any]:
    ours = [t.seconds for t in timings]
    # CPU seconds where known: on a busy machine wall time carries other processes' turns
    grow = exponent(sizes, [t.cpu if t.cpu is not None else t.seconds for t in timings])
    line = f"  growth exponent {grow:.2f} (cpu)"
    refs = [t.reference for t in timings]
    if all(r is not None for r in refs):
        line += f", reference {exponent(sizes, [r for r in refs if r is not None]):.2f} (wall)"
    if measure.met is not None and quick and measure.sized:
        verdict = "not judged (--quick)"
    elif measure.met is not None:
        verdict = "met" if measure.met(timings[-1]) else "NOT met"
    else:
        verdict = "met" if grow < 1.3 else "NOT met"
    print(f"{line}; goal {measure.goal}: {verdict}", flush=True)
    return {
        "measure": measure.name,
        "size": sizes[-1],
        "seconds": ours[-1],
        "goal": measure.goal,
        "verdict": verdict,
        "exponent": grow,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a quarter of every size")
    parser.add_argument("--only", nargs="+", default=None, help="measures whose name has one")
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs at the start")
    summary = []
    for measure in MEASURES:
        if args.only and not any(word in measure.name for word in args.only):
            continue
        sizes = [max(1, s // 4) if args.quick else s for s in measure.sizes]
        print(
            f"\n== {measure.name}"
            + (f" (reference: {measure.reference})" if measure.reference else ""),
            flush=True,
        )
        timings = []
        for size in sizes:
            timing = measure.run(size)
            timings.append(timing)
            ref = ""
            if timing.reference is not None:
                ratio = timing.reference / max(timing.seconds, 1e-9)
                ref = f"   reference {timing.reference:8.3f} s   ({ratio:,.1f}x)"
            cpu = f" (cpu {timing.cpu:6.3f})" if timing.cpu is not None else ""
            print(f"  {size:>10,} {measure.unit:<10} {timing.seconds:8.3f} s{cpu}{ref}", flush=True)
        summary.append(report(measure, sizes, timings, args.quick))
    if not args.only or any("start-up" in word for word in args.only):
        from scale_loop import print_startup

        print("\n== start-up (CPU seconds, median of five runs in a fresh interpreter)", flush=True)
        summary += print_startup()
    print(
        f"\nload average {os.getloadavg()[0]:.1f} at the end (wall times above the CPU times: "
        "other processes held the CPUs)"
    )
    print(f"\n{'measure':<44} {'at':>18} {'harness':>10}  {'exponent':>8}  goal")
    for row in summary:
        print(
            f"{row['measure']:<44} {row['size']:>18,} {row['seconds']:>8.3f} s  "
            f"{row['exponent']:>8.2f}  {row['goal']}: {row['verdict']}"
        )


if __name__ == "__main__":
    main()
