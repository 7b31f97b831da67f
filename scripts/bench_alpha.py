"""Benchmark: harness's Krippendorff's alpha against the PyPI `krippendorff` package (GPL, used
here only to compare; harness never imports it).

Run from the project root:

    python scripts/bench_alpha.py

Cases (interval alpha; values on a 0-10 scale in whole steps so that the package's value
domain stays small and it can run at all):

1. 13 raters x 353 items, dense (WS353's 13 raters of all 353 pairs from the bundled copy,
   with its fractional votes; simulated if that copy is missing);
2. 200 workers x 10,000 items, 10 judgments per item (100,000 judgments);
3. 20,000 workers x 100,000 items, 10 per item (1,000,000 judgments). The package needs a dense
   20,000 x 100,000 float matrix (16 GB) plus a boolean workers x items x values array; it is
   not run in this process: its memory need is estimated, and it is tried in a subprocess under
   an address-space limit (resource.setrlimit) so that the attempt fails fast instead of
   swapping or exhausting the machine.

Then: 1,000 bootstrap resamples on WS353 (both methods), and alpha at every level on case 3.
Time is the best of a few runs (perf_counter); peak memory is tracemalloc's peak of the call
(numpy and pandas allocations are traced), input data excluded, measured in a separate run.
"""

from __future__ import annotations

import argparse
import gc
import resource
import subprocess
import sys
import time
import tracemalloc
import warnings
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from harness.stats import alpha_from_arrays, bootstrap_alpha, krippendorff_alpha  # noqa: E402

WS353_DIR = ROOT / "harness" / "datasets" / "data" / "ws353"  # the bundled copy
CHILD_LIMIT_BYTES = 4 * 1024**3


def measure(func: Callable[[], object], repeat: int = 3) -> tuple[float, float, object]:
    """(best seconds, peak MiB, result) of ``func``."""
    best = float("inf")
    result: object = None
    for _ in range(repeat):
        gc.collect()
        start = time.perf_counter()
        result = func()
        best = min(best, time.perf_counter() - start)
    gc.collect()
    tracemalloc.start()
    func()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return best, peak / 2**20, result


def simulated(workers: int, items: int, per_item: int, seed: int = 0) -> pd.DataFrame:
    """A long table: each item rated by ``per_item`` distinct random workers, whole 0-10 steps."""
    rng = np.random.default_rng(seed)
    truth = rng.uniform(0, 10, items)
    item = np.repeat(np.arange(items), per_item)
    # Distinct workers per item: a random offset plus a stride (coprime with `workers`).
    start = rng.integers(0, workers, items)
    worker = (np.repeat(start, per_item) + np.tile(np.arange(per_item) * 7919, items)) % workers
    value = np.clip(np.round(truth[item] + rng.normal(0, 1.5, len(item))), 0, 10)
    return pd.DataFrame({"item_id": item, "worker_id": worker, "value": value})


def dense(table: pd.DataFrame, workers: int, items: int) -> np.ndarray:
    matrix = np.full((workers, items), np.nan)
    matrix[table["worker_id"].to_numpy(), table["item_id"].to_numpy()] = table["value"].to_numpy()
    return matrix


def package_alpha(matrix: np.ndarray) -> float:
    import krippendorff

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return float(krippendorff.alpha(matrix, level_of_measurement="interval"))


def ws353_dense13() -> tuple[pd.DataFrame, np.ndarray, str]:
    if WS353_DIR.is_dir():
        from harness.datasets import load_ws353

        j = load_ws353(WS353_DIR).judgments
        raters = sorted(j["worker_id"].unique())[:13]
        j = j[j["worker_id"].isin(raters)]
        matrix = j.pivot(index="worker_id", columns="item_id", values="value").to_numpy()
        return j[["item_id", "worker_id", "value"]], matrix, "WS353 raters 1-13, fractional"
    table = simulated(13, 353, 13)
    return table, dense(table, 13, 353), "simulated"


def row(name: str, ours: tuple[float, float], theirs: tuple[float, float] | str, same: str) -> None:
    t, m = ours
    if isinstance(theirs, str):
        print(f"{name:<44} {t:>8.3f} s {m:>9.1f} MiB | {theirs}")
        return
    pt, pm = theirs
    print(
        f"{name:<44} {t:>8.3f} s {m:>9.1f} MiB | {pt:>8.3f} s {pm:>9.1f} MiB | "
        f"{pt / t:>6.1f}x faster {pm / max(m, 1e-9):>7.1f}x less memory | {same}"
    )


def child_dense(workers: int, items: int, per_item: int) -> None:
    """Run the package on case 3 under an address-space limit (called in a subprocess)."""
    resource.setrlimit(resource.RLIMIT_AS, (CHILD_LIMIT_BYTES, CHILD_LIMIT_BYTES))
    table = simulated(workers, items, per_item)
    try:
        matrix = dense(table, workers, items)
        print(f"alpha={package_alpha(matrix)}")
    except MemoryError as exc:
        print(f"MemoryError: {exc}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--child-dense", nargs=3, type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child_dense:
        child_dense(*args.child_dense)
        return

    print(f"{'case':<44} {'harness':>23} | {'krippendorff package':>23} | ratio")
    # 1. dense 13 x 353
    table, matrix13, label = ws353_dense13()
    t, m, ours = measure(lambda: krippendorff_alpha(table, "interval"), repeat=20)
    pt, pm, theirs = measure(lambda: package_alpha(matrix13), repeat=20)
    same = f"alpha {ours:.6f} vs {theirs:.6f}, |diff| {abs(ours - theirs):.1e}"  # type: ignore[operator]
    row(f"1. 13 x 353 dense ({label})", (t, m), (pt, pm), same)

    # 2. 200 x 10,000, 10 per item
    table = simulated(200, 10_000, 10)
    matrix200 = dense(table, 200, 10_000)
    t, m, ours = measure(lambda: krippendorff_alpha(table, "interval"))
    pt, pm, theirs = measure(lambda: package_alpha(matrix200), repeat=3)
    same = f"alpha {ours:.6f} vs {theirs:.6f}, |diff| {abs(ours - theirs):.1e}"  # type: ignore[operator]
    row("2. 200 workers x 10,000 items, 10/item", (t, m), (pt, pm), same)

    # 3. 20,000 x 100,000, 10 per item
    workers, items = 20_000, 100_000
    table = simulated(workers, items, 10)
    ids = table.assign(item_id="item-" + table["item_id"].astype(str))
    t, m, ours = measure(lambda: krippendorff_alpha(table, "interval"))
    cells = workers * items
    need = cells * 8 + cells * 11  # dense float64 matrix + bool (items, workers, 11 values)
    child = subprocess.run(
        [sys.executable, __file__, "--child-dense", str(workers), str(items), "10"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    outcome = (child.stdout.strip() or child.stderr.strip().splitlines()[-1])[:60]
    row(
        "3. 20,000 workers x 100,000 items, 10/item",
        (t, m),
        f"not run here: needs >= {need / 2**30:.0f} GiB (dense {cells * 8 / 2**30:.0f} GiB "
        f"+ {cells * 11 / 2**30:.0f} GiB value counts); under a "
        f"{CHILD_LIMIT_BYTES / 2**30:.0f} GiB limit: {outcome}",
        "",
    )
    print(f"   (alpha = {ours:.6f}; 1,000,000 judgments, integer ids)")
    t, m, _ = measure(lambda: krippendorff_alpha(ids, "interval"))
    row("3b. same, text item ids", (t, m), "", "")
    for level in ("nominal", "ordinal", "ratio"):
        t, m, a = measure(lambda level=level: krippendorff_alpha(table, level))
        row(f"3c. same, {level} (alpha {a:.4f})", (t, m), "", "")
    rng = np.random.default_rng(1)
    cont = table["value"].to_numpy() + np.round(rng.uniform(-0.5, 0.5, len(table)), 2)
    cont = np.clip(cont, 0, 10)
    items_arr = table["item_id"].to_numpy()
    for level in ("interval", "ratio"):
        t, m, a = measure(lambda level=level: alpha_from_arrays(items_arr, cont, level), repeat=1)
        row(f"3d. continuous 2-decimal values, {level} (alpha {a:.4f})", (t, m), "", "")

    # Bootstrap on WS353 (all 16 raters)
    if WS353_DIR.is_dir():
        from harness.datasets import load_ws353

        j = load_ws353(WS353_DIR).judgments
        for method in ("units", "kalpha"):
            t, m, r = measure(lambda method=method: bootstrap_alpha(j, method=method))
            row(
                f"4. WS353 bootstrap, 1,000 resamples, {method}",
                (t, m),
                f"alpha {r.alpha:.4f} [{r.ci_low:.4f}, {r.ci_high:.4f}]",  # type: ignore[attr-defined]
                "",
            )
    t, m, r = measure(lambda: bootstrap_alpha(table, resamples=1000), repeat=1)
    row(
        "5. case 3 bootstrap, 1,000 resamples, units",
        (t, m),
        f"[{r.ci_low:.4f}, {r.ci_high:.4f}]",  # type: ignore[attr-defined]
        "",
    )


if __name__ == "__main__":
    main()
