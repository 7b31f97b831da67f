"""The whole-loop measures of `scripts/bench_scale.py` (issue 19): launching on the local MTurk
service through `harness launch`, a simulated crowd doing every assignment through the worker
side and `harness sync` storing and screening them, one live screening update in a large
study, and the commands' start-up. Each returns a `Timing` (see bench_scale.py)."""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import requests
import yaml
from bench_local_mturk import running_service
from click.testing import CliRunner

from harness.cli import main as harness_main

ROOT = Path(__file__).resolve().parent.parent
SPEC = ROOT / "task_specs" / "ws353_reproduction.yaml"
RATERS = 3
ITEMS_PER_HIT = 2


def loop_spec(directory: Path, hits: int, name: str = "bench-loop") -> Path:
    """A rating study of ``hits`` HITs x 3 raters (2 items each, mturk hosting: the crowd
    needs no task server) under the ws353_reproduction screening policy."""
    n_items = hits * ITEMS_PER_HIT
    pd.DataFrame(
        {
            "item_id": [f"p{i:06d}" for i in range(n_items)],
            "word1": [f"left{i}" for i in range(n_items)],
            "word2": [f"right{i}" for i in range(n_items)],
        }
    ).to_csv(directory / "items.csv", index=False)
    spec = {
        "study": {"name": name},
        "type": "rating",
        "items": {"csv": "items.csv", "display": ["word1", "word2"]},
        "guidelines": {"text": "Rate how similar the two words are."},
        "scale": {"min": 0, "max": 10, "step": 1},
        "raters_per_item": RATERS,
        "items_per_hit": ITEMS_PER_HIT,
        "hosting": "mturk",
        "hit": {"title": "Rate words", "description": "Rate word pairs.", "reward": "0.10"},
        "screening": yaml.safe_load(SPEC.read_text())["screening"],
    }
    path = directory / "loop.yaml"
    path.write_text(yaml.safe_dump(spec))
    return path


def _harness(*args: str) -> str:
    result = CliRunner().invoke(harness_main, list(args))
    if result.exit_code != 0:
        raise RuntimeError(f"harness {' '.join(args)} failed: {result.output[-2000:]}")
    return result.output


def launch_hits(hits: int) -> float:
    """Seconds of `harness launch` posting ``hits`` HITs x 3 on the local service."""
    with tempfile.TemporaryDirectory() as work:
        directory = Path(work)
        spec = loop_spec(directory, hits)
        db = f"sqlite:///{directory / 'h.db'}"
        with running_service(directory / "mturk.sqlite") as url:
            start = time.perf_counter()
            _harness("launch", str(spec), "--target", "local", "--endpoint-url", url, "--db", db)
            return time.perf_counter() - start


@dataclass(frozen=True)
class LoopRun:
    """One crowd and sync run: seconds of each, the CPU seconds the sync cost harness and the
    local service together (what it takes on a machine of its own, however busy this one is),
    and how many assignments were done."""

    crowd: float
    sync: float
    sync_cpu: float
    done: int


def crowd_and_sync(hits: int) -> LoopRun:
    """A simulated crowd doing every assignment of a launched ``hits``-HIT study through the
    worker side, then `harness sync` storing and screening them."""
    from harness.providers.mturk.crowd import SimulatedWorkers
    from harness.simulate import Crowd
    from harness.spec import load_spec

    with tempfile.TemporaryDirectory() as work:
        directory = Path(work)
        spec = loop_spec(directory, hits)
        db = f"sqlite:///{directory / 'h.db'}"
        loaded = load_spec(spec)
        rng = np.random.default_rng(3)
        draws = rng.uniform(0, 10, len(loaded.items))
        truths = {str(k): float(v) for k, v in zip(loaded.items["item_id"], draws, strict=True)}
        workers = Crowd({"careful": 0.8, "sloppy": 0.1, "spammer": 0.1}, size=60, seed=3)
        service_db = directory / "mturk.sqlite"
        with running_service(service_db) as url:
            _harness("launch", str(spec), "--target", "local", "--endpoint-url", url, "--db", db)
            start = time.perf_counter()
            with requests.Session() as http:
                report = SimulatedWorkers(
                    url,
                    workers.workers(loaded.scale),
                    truths,
                    loaded.scale,
                    http,
                    seed=3,
                    profile={"country": "US", "numberApproved": 5000, "percentApproved": 99},
                ).run()
            crowd = time.perf_counter() - start
            cpu = time.process_time() + service_cpu(service_db)
            start = time.perf_counter()
            _harness("sync", "bench-loop", "--db", db)
            sync = time.perf_counter() - start
            cpu = time.process_time() + service_cpu(service_db) - cpu
        return LoopRun(crowd, sync, cpu, len(report.submitted))


def service_cpu(db: Path) -> float:
    """CPU seconds so far of the local service keeping its state in ``db``: gunicorn's master
    (its command line names ``db``) and its worker processes, read from /proc."""
    tick = os.sysconf("SC_CLK_TCK")
    stats = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            command = (entry / "cmdline").read_bytes()
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:  # ended meanwhile, or not ours to read
            continue
        stats[int(entry.name)] = (str(db).encode() in command, int(fields[1]), fields)
    masters = {pid for pid, (named, _, _) in stats.items() if named}
    return sum(
        (int(fields[11]) + int(fields[12])) / tick
        for pid, (_, parent, fields) in stats.items()
        if pid in masters or parent in masters
    )


def live_updates(n_judgments: int, updates: int = 10) -> list[float]:
    """Seconds of each of ``updates`` live screening updates (`screen_pending`, one assignment
    each) after ``n_judgments`` stored judgments (the first call of the process excluded)."""
    from bench_screening import LIVE_MIX, synthetic_spec

    from harness.datasets import load_ws353
    from harness.screening.live import forget_states, screen_pending
    from harness.simulate import Crowd, simulate_judgments
    from harness.simulate.stored import store_assignments
    from harness.spec import load_spec
    from harness.store import create_study, make_engine, session_scope
    from harness.store.migrations import upgrade

    with tempfile.TemporaryDirectory() as work:
        directory = Path(work)
        n_items = max(30, n_judgments // 13)
        loaded = load_spec(synthetic_spec(directory, n_items))
        means = load_ws353().judgments.groupby("item_id")["value"].mean().to_numpy()
        rng = np.random.default_rng(7)
        truths = pd.Series(rng.choice(means, n_items), index=loaded.items["item_id"].to_numpy())
        crowd = Crowd(LIVE_MIX, max(30, n_judgments // 330), 7)
        table = simulate_judgments(truths, loaded.scale, crowd, 13, 30, 7)
        table = table.drop(columns="true_archetype")
        url = f"sqlite:///{directory / 'bench.db'}"
        upgrade(url)
        engine = make_engine(url)
        order = list(dict.fromkeys(table["assignment_id"]))
        with session_scope(engine) as session:
            study = create_study(session, loaded)
            list(
                store_assignments(
                    session, study, table[table["assignment_id"].isin(order[:-updates])]
                )
            )
        forget_states()
        screen_pending(engine, study.id)  # type: ignore[arg-type]  # builds the scores
        seconds = []
        for name in order[-updates:]:
            with session_scope(engine) as session:
                list(store_assignments(session, study, table[table["assignment_id"] == name]))
            start = time.perf_counter()
            screen_pending(engine, study.id)  # type: ignore[arg-type]
            seconds.append(time.perf_counter() - start)
        engine.dispose()
        return seconds


def startup(args: list[str], store: str, repeat: int = 5) -> float:
    """Median CPU seconds (user + system) of ``harness ARGS`` in a fresh interpreter, as a
    person runs it: CPU, not wall time, so that other work on the machine does not count.
    ``{store}`` in ARGS is ``store``, a store with a launched study."""
    runs = []
    with tempfile.TemporaryDirectory() as work:  # no store here: status and sync refuse
        for _ in range(repeat):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "harness",
                    *[a.replace("{root}", str(ROOT)).replace("{store}", store) for a in args],
                ],
                cwd=work,
                check=False,
                capture_output=True,
                env={**os.environ, "PYTHONPATH": str(ROOT), "HARNESS_DASHBOARD_PASSWORD": ""},
            )
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            runs.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return statistics.median(runs)


STARTUP: list[tuple[str, list[str], float]] = [
    ("harness --help", ["--help"], 0.3),
    ("harness --version", ["--version"], 0.5),
    (
        "harness validate (WS353 spec)",
        ["validate", "{root}/task_specs/ws353_reproduction.yaml"],
        0.5,
    ),
    ("harness status (refused: no store)", ["status", "some-study"], 0.5),
    ("harness status (a launched study)", ["status", "bench-loop", "--db", "{store}"], 0.5),
    ("harness sync (refused: no store)", ["sync", "some-study"], 0.5),
    ("harness dashboard (refused: no password)", ["dashboard", "--host", "0.0.0.0"], 0.5),
    ("harness characterize --help", ["characterize", "--help"], 0.3),
]


def print_startup(say: Callable[[str], None] = print) -> list[dict[str, object]]:
    """The start-up figures with their goals (the median of five runs each)."""
    rows = []
    with tempfile.TemporaryDirectory() as work:
        directory = Path(work)
        store = f"sqlite:///{directory / 'h.db'}"
        with running_service(directory / "mturk.sqlite") as url:
            spec = str(loop_spec(directory, 4))
            _harness("launch", spec, "--target", "local", "--endpoint-url", url, "--db", store)
        timings = [(name, startup(args, store), goal) for name, args, goal in STARTUP]
    for name, seconds, goal in timings:
        verdict = "met" if seconds < goal else "NOT met"
        say(f"  {name:<44} {seconds:6.3f} s cpu   goal < {goal} s: {verdict}")
        rows.append(
            {
                "measure": f"start-up (cpu): {name}",
                "size": 1,
                "seconds": seconds,
                "goal": f"< {goal} s",
                "verdict": verdict,
                "exponent": float("nan"),
            }
        )
    return rows
