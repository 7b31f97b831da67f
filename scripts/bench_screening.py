"""Benchmark and evidence for screening: who the default policy flags, and how fast live is.

Run from the project root:

    python scripts/bench_screening.py [--seeds 5] [--judgments 100000] [--crowd-workers 40]

1. Confusion tables. Crowds simulated from the WS353 item means (the bundled copy) on the
   ws353_reproduction scale (0-10, step 1): 60 workers, 13 raters per item, 30 items per HIT,
   20%, 30% and 40% bad workers, seeds 1..N. Screened under the policy of
   task_specs/ws353_reproduction.yaml. Printed: per true archetype, the share flagged under the
   policy (``flagged``) and the flag rate of every heuristic (policy or not).
2. Live update time. A rating study of synthetic items (truths drawn from the WS353 means) with
   about ``--judgments`` judgments in a SQLite file, ``--workers`` workers (300), 13 raters per
   item, 30 items per HIT, the ws353_reproduction policy. All assignments but the last ten
   are stored and screened in one batch (the process's first call builds its scores from the
   store: timed as "cold start"); then each of the last ten is stored and `screen_pending`
   timed alone (median and max, wall and CPU).
   In the same run, a full recomputation: the stored long table read back and the policy's
   heuristics run on it.
3. Live screening as a crowd works. The WS353 reproduction spec (353 items and its 12
   identical pairs, 13 raters, 30 items per HIT) done by ``--crowd-workers`` simulated
   workers (30% bad); the assignments arrive rater by rater across the HITs, in batches of
   one to three (seeded), and `screen_pending` runs after each batch is stored, as the task
   server does. Printed: the median and p95 ms per call (wall and CPU), and in the same run,
   as references on the final table, the CPU time of a trivial pandas groupby (each worker's
   mean and sd) and of the batch screening of the policy's heuristics, with the ratio of the
   median call's CPU time to each (less dependent on the machine and its load).
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd
import yaml

from harness.datasets import load_ws353
from harness.screening import ScreeningContext, screen_workers
from harness.screening.live import forget_states, screen_pending
from harness.screening.stored import study_context
from harness.simulate import Crowd, control_truths, simulate_judgments
from harness.simulate.mixes import SCREENING_MIXES
from harness.simulate.stored import store_assignments
from harness.spec import load_spec
from harness.store import create_study, make_engine, session_scope, study_judgments
from harness.store.migrations import upgrade

ROOT = Path(__file__).resolve().parent.parent
SPEC = ROOT / "task_specs" / "ws353_reproduction.yaml"
MIXES = SCREENING_MIXES
LIVE_MIX = MIXES["30% bad"]
KEPT = {True: "removed", False: "kept"}


def confusion(seeds: int) -> None:
    loaded = load_spec(SPEC)
    context = ScreeningContext.from_spec(loaded)
    truths = load_ws353().judgments.groupby("item_id")["value"].mean()
    for name, mix in MIXES.items():
        parts = []
        for seed in range(1, seeds + 1):
            table = simulate_judgments(truths, loaded.scale, Crowd(mix, 60, seed), 13, 30, seed)
            truth = table.groupby("worker_id")["true_archetype"].first()
            report = screen_workers(table.drop(columns="true_archetype"), context)
            flags = pd.DataFrame(
                {k: f.set_index("worker_id")["flag"] for k, f in report.results.items()}
            )
            flags["flagged"] = report.flagged
            flags["archetype"] = truth
            parts.append(flags)
        every = pd.concat(parts)
        rates = every.groupby("archetype").mean()
        confusion = pd.crosstab(every["archetype"], every["flagged"].map(KEPT))
        table = pd.concat([confusion, rates[["flagged"]], rates.drop(columns="flagged")], axis=1)
        print(
            f"\n== {name}, seeds 1-{seeds}: workers flagged under the policy (counts), "
            "then the share of each archetype each heuristic flags =="
        )
        with pd.option_context("display.width", 250, "display.max_columns", None):
            print(table.to_string(float_format=lambda v: f"{v:.2f}"))


def synthetic_spec(directory: Path, n_items: int) -> Path:
    """A rating spec of ``n_items`` synthetic word pairs with the ws353_reproduction policy."""
    policy = yaml.safe_load(SPEC.read_text())["screening"]
    items = pd.DataFrame(
        {
            "item_id": [f"p{i:05d}" for i in range(n_items)],
            "word1": [f"left{i}" for i in range(n_items)],
            "word2": [f"right{i}" for i in range(n_items)],
        }
    )
    items.to_csv(directory / "items.csv", index=False)
    spec = {
        "study": {"name": "bench-live"},
        "type": "rating",
        "items": {"csv": "items.csv", "display": ["word1", "word2"]},
        "guidelines": {"text": "Rate how similar the two words are."},
        "scale": {"min": 0, "max": 10, "step": 1},
        "raters_per_item": 13,
        "items_per_hit": 30,
        "hit": {"title": "Rate words", "description": "Rate word pairs.", "reward": "0.75"},
        "screening": policy,
    }
    path = directory / "bench.yaml"
    path.write_text(yaml.safe_dump(spec))
    return path


def live(n_judgments: int, n_workers: int, directory: Path) -> None:
    n_items = n_judgments // 13
    loaded = load_spec(synthetic_spec(directory, n_items))
    means = load_ws353().judgments.groupby("item_id")["value"].mean().to_numpy()
    rng = np.random.default_rng(7)
    truths = pd.Series(rng.choice(means, n_items), index=loaded.items["item_id"].to_numpy())
    table = simulate_judgments(truths, loaded.scale, Crowd(LIVE_MIX, n_workers, 7), 13, 30, 7)
    table = table.drop(columns="true_archetype")
    url = f"sqlite:///{directory / 'bench.db'}"
    upgrade(url)
    engine = make_engine(url)
    tail = 10
    order = list(dict.fromkeys(table["assignment_id"]))
    head = table[table["assignment_id"].isin(order[:-tail])]
    start = time.perf_counter()
    with session_scope(engine) as session:
        study = create_study(session, loaded)
        for _ in store_assignments(session, study, head):
            pass
    print(f"\nstored {len(head):,} judgments in {time.perf_counter() - start:.1f} s (SQLite file)")
    forget_states()
    start = time.perf_counter()
    screen_pending(engine, study.id)  # type: ignore[arg-type]
    cold = time.perf_counter() - start
    times: list[float] = []
    cpu: list[float] = []
    decisions = 0
    for name in order[-tail:]:
        with session_scope(engine) as session:
            part = table[table["assignment_id"] == name]
            list(store_assignments(session, study, part))
        start, start_cpu = time.perf_counter(), time.process_time()
        decisions += len(screen_pending(engine, study.id))  # type: ignore[arg-type]
        times.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    with session_scope(engine) as session:
        start, start_cpu = time.perf_counter(), time.process_time()
        stored = study_judgments(session, study.id)  # type: ignore[arg-type]
        context = study_context(session, study)
        screen_workers(stored, context, only=list(context.policy))
        full = time.perf_counter() - start
        full_cpu = time.process_time() - start_cpu
    median, median_cpu = statistics.median(times), statistics.median(cpu)
    print(
        f"judgments stored at the end: {len(stored):,} from {n_workers} workers; "
        f"assignments screened live: {tail}"
    )
    print(
        f"live update (screen_pending, one assignment): median {median * 1000:.1f} ms wall "
        f"({median_cpu * 1000:.1f} ms CPU), max {max(times) * 1000:.1f} ms wall; "
        f"decisions stored: {decisions}"
    )
    print(
        f"full recomputation (read table + policy heuristics): {full * 1000:.0f} ms wall "
        f"({full_cpu * 1000:.0f} ms CPU); live/full = {median / full:.4f} wall, "
        f"{median_cpu / full_cpu:.4f} CPU"
    )
    print(
        f"cold start: first call of the process, building the scores and screening "
        f"{len(order) - tail} assignments: {cold * 1000:.0f} ms wall"
    )
    print(f"load average during the run: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    engine.dispose()


def crowd(n_workers: int, directory: Path) -> None:
    loaded = load_spec(SPEC)
    truths = load_ws353().judgments.groupby("item_id")["value"].mean()
    truths = pd.concat([truths, control_truths(loaded.items, loaded.scale).dropna()])
    roles = loaded.items.set_index("item_id")["role"]
    people = Crowd(LIVE_MIX, n_workers, 3)
    table = simulate_judgments(truths, loaded.scale, people, 13, 30, 3, roles)
    table = table.drop(columns="true_archetype")
    # a crowd works across the HITs: every HIT's first rater, then every HIT's second, ...
    parts = table["assignment_id"].str.rsplit("-", n=1, expand=True)
    table = table.assign(_r=parts[1].astype(int), _h=parts[0]).sort_values(
        ["_r", "_h", "position"], kind="stable"
    )
    table = table.drop(columns=["_r", "_h"])
    order = list(dict.fromkeys(table["assignment_id"]))
    rng = np.random.default_rng(3)
    batches: list[list[str]] = []
    while order:
        size = int(rng.integers(1, 4))
        batches.append(order[:size])
        order = order[size:]
    url = f"sqlite:///{directory / 'crowd.db'}"
    upgrade(url)
    engine = make_engine(url)
    with session_scope(engine) as session:
        study = create_study(session, loaded)
    forget_states()
    times: list[float] = []
    cpu: list[float] = []
    decisions = 0
    for batch in batches:
        with session_scope(engine) as session:
            list(store_assignments(session, study, table[table["assignment_id"].isin(batch)]))
        start, start_cpu = time.perf_counter(), time.process_time()
        decisions += len(screen_pending(engine, study.id))  # type: ignore[arg-type]
        times.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    with session_scope(engine) as session:
        stored = study_judgments(session, study.id)  # type: ignore[arg-type]
        context = study_context(session, study)
    groupby = _best_of(lambda: stored.groupby("worker_id")["value"].agg(["mean", "std"]), 20)
    batch_time = _best_of(lambda: screen_workers(stored, context, only=list(context.policy)), 3)
    median, p95 = statistics.median(times), float(np.percentile(times, 95))
    median_cpu, p95_cpu = statistics.median(cpu), float(np.percentile(cpu, 95))
    print(
        f"\n== live screening as a crowd works: WS353 reproduction, {len(stored):,} judgments, "
        f"{stored['worker_id'].nunique()} workers, {len(batches)} calls of 1-3 assignments =="
    )
    print(
        f"screen_pending per call: median {median * 1000:.1f} ms wall "
        f"({median_cpu * 1000:.1f} ms CPU), p95 {p95 * 1000:.1f} ms wall "
        f"({p95_cpu * 1000:.1f} ms CPU), all calls {sum(times):.2f} s; "
        f"decisions stored: {decisions}"
    )
    print(
        f"references on the final table (least CPU of several runs): pandas groupby (mean, sd "
        f"per worker) {groupby * 1000:.2f} ms, batch screening (policy's heuristics) "
        f"{batch_time * 1000:.1f} ms"
    )
    print(
        f"median call's CPU / groupby = {median_cpu / groupby:.1f}; "
        f"median call's CPU / batch screening = {median_cpu / batch_time:.2f}"
    )
    print(f"load average during the run: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    engine.dispose()


def _best_of(run: Callable[[], object], repeats: int) -> float:
    """The least CPU time of ``repeats`` runs of ``run`` (seconds)."""
    best = float("inf")
    for _ in range(repeats):
        start = time.process_time()
        run()
        best = min(best, time.process_time() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=5, help="0: skip the confusion tables")
    parser.add_argument("--judgments", type=int, default=100_000, help="0: skip")
    parser.add_argument("--workers", type=int, default=300, help="crowd size of the live study")
    parser.add_argument(
        "--crowd-workers", type=int, default=40, help="crowd size of the WS353 study; 0: skip"
    )
    args = parser.parse_args()
    if args.seeds > 0:
        confusion(args.seeds)
    with tempfile.TemporaryDirectory() as directory:
        if args.crowd_workers > 0:
            crowd(args.crowd_workers, Path(directory))
        if args.judgments > 0:
            live(args.judgments, args.workers, Path(directory))


if __name__ == "__main__":
    main()
