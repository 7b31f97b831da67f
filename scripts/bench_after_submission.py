"""In-process benchmark of what the task server does after a submission is stored (issue 20,
the after-submission part), apart from the page and submit requests:

1. worker start: CPU and wall time of the first screening pass of a fresh process (a
   subprocess), without and with the start-up imports done before it
   (`harness.web.warm.import_modules`, what `harness serve` does before it forks);
2. MTurk clients: CPU of making one, the first and the next (one per process now);
3. rechecks: ``--rounds`` times, a HIT of ``--raters`` assignments on the local MTurk service
   (in this process, in a thread), each posted to the task server before the worker completed
   it there (so quarantined), then completed; the quarantined submissions are settled one
   at a time (one GetAssignment each, as every recheck did before) or together
   (`Rechecks.recheck_many`: one listing of the HIT). Reported per assignment: CPU in this
   process (the task server's side and the local service's), platform calls, SQL statements.

Run from the project root:

    python scripts/bench_after_submission.py --store sqlite
    python scripts/bench_after_submission.py --store postgresql --rounds 6 --raters 16
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import sqlalchemy as sa

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from sqlmodel import select  # noqa: E402

from harness.store import make_engine, session_scope  # noqa: E402
from harness.store.migrations import upgrade  # noqa: E402
from harness.store.models import (  # noqa: E402
    Hit,
    QuarantinedSubmission,
    QuarantineState,
    StudyPlatform,
)
from tests.factories import create_postgres_database, drop_postgres_database  # noqa: E402

FIRST_PASS = """
import json, sys, time
t0, c0 = time.perf_counter(), time.process_time()
if sys.argv[3] == "warm":
    from harness.web.warm import import_modules
    import_modules()
t1, c1 = time.perf_counter(), time.process_time()
from harness.store import make_engine
from harness.screening.live import screen_pending
engine = make_engine(sys.argv[1])
screen_pending(engine, int(sys.argv[2]))
t2, c2 = time.perf_counter(), time.process_time()
print(json.dumps({"start_cpu": c1 - c0, "first_pass_wall": t2 - t1, "first_pass_cpu": c2 - c1}))
"""


def fresh_store(kind: str, directory: Path) -> str:
    sqlite = f"sqlite:///{directory / 'harness.db'}"
    url = sqlite if kind == "sqlite" else create_postgres_database()
    upgrade(url)
    return url


def first_pass(url: str, directory: Path, repeats: int) -> dict[str, dict[str, float]]:
    """A stored simulated study, its first screening pass in fresh processes, cold and warm."""
    from harness.datasets import load_ws353
    from harness.simulate import Crowd, simulate_judgments
    from harness.simulate.stored import store_assignments
    from harness.spec import load_spec
    from harness.store import create_study
    from harness.store.models import Assignment

    loaded = load_spec(ROOT / "task_specs" / "ws353_reproduction.yaml")
    ws353 = load_ws353(ROOT / "harness" / "datasets" / "data" / "ws353").judgments
    truths = ws353.groupby("item_id")["value"]
    table = simulate_judgments(
        truths.mean().iloc[:60],
        loaded.scale,
        Crowd({"careful": 8, "spammer": 2}, size=10, seed=1),
        8,
        30,
        seed=1,
    )
    engine = make_engine(url)
    with session_scope(engine) as session:
        study = create_study(session, loaded)
        list(store_assignments(session, study, table))
    out: dict[str, list[dict[str, float]]] = {"cold": [], "warm": []}
    for _ in range(repeats):
        for mode in ("cold", "warm"):
            with session_scope(engine) as session:
                session.execute(sa.update(Assignment).values(screened_at=None))
            done = subprocess.run(
                [sys.executable, "-c", FIRST_PASS, url, str(study.id), mode],
                capture_output=True,
                text=True,
                check=True,
                cwd=ROOT,
            )
            out[mode].append(json.loads(done.stdout.strip().splitlines()[-1]))
    engine.dispose()
    return {m: {k: min(r[k] for r in runs) for k in runs[0]} for m, runs in out.items()}


def clients(count: int = 5) -> dict[str, float]:
    """CPU seconds of making an MTurk client in this process: the first, then each next."""
    from harness.providers.mturk.client import make_client

    c0 = time.process_time()
    make_client("local", "http://127.0.0.1:9")
    c1 = time.process_time()
    for _ in range(count):
        make_client("local", "http://127.0.0.1:9")
    return {"first": c1 - c0, "next": (time.process_time() - c1) / count}


def rechecks(url: str, directory: Path, rounds: int, raters: int) -> dict[str, dict[str, float]]:
    """Quarantined submissions of one HIT settled one at a time, and together."""
    from harness.web import create_app
    from tests.providers.mturk.local_service.factories import LocalMTurk, hit_params
    from tests.web.test_trust import Posted

    mturk = LocalMTurk(directory / "mturk.sqlite").start()
    apps: list[Any] = []

    def make_app(**options: Any) -> Any:
        apps.append(create_app(url, **options))
        return apps[-1]

    posted = Posted(make_engine(url), make_app, mturk, directory)
    verifier = posted.app.extensions["harness.trust"].verifier
    with session_scope(posted.engine) as session:
        provider = verifier.provider(session.exec(select(StudyPlatform)).one(), "local")
    calls: Counter[str] = Counter()

    def counting(name: str) -> Any:
        asked = getattr(provider.client, name)

        def call(**params: Any) -> Any:
            calls[name] += 1
            return asked(**params)

        return call

    for name in ("list_assignments_for_hit", "get_assignment"):
        setattr(provider.client, name, counting(name))
    statements = Counter[str]()
    sa.event.listen(
        posted.app.extensions["harness"].engine,
        "before_cursor_execute",
        lambda *_args: statements.update(["sql"]),
    )
    rechecks = posted.app.extensions["harness.trust"].rechecks
    results: dict[str, list[tuple[float, int, int]]] = {"one at a time": [], "together": []}
    for round_ in range(rounds):
        for mode in ("one at a time", "together"):
            hit_id = posted.requester.create_hit(
                **hit_params(
                    MaxAssignments=raters,
                    Question=posted.requester.get_hit(HITId=posted.hit_id)["HIT"]["Question"],
                )
            )["HIT"]["HITId"]
            with session_scope(posted.engine) as session:
                hit = session.exec(select(Hit)).one()
                hit.platform_hit_id = hit_id
                session.add(hit)
            posted.hit_id = hit_id
            # a posted HIT's platform id never changes, so the task server keeps it: the bench,
            # which points its one HIT at a new MTurk HIT each round, drops what it kept
            posted.app.extensions["harness"]._hits.clear()  # noqa: SLF001
            workers = [f"AW{round_}{mode[0].upper()}{i}" for i in range(raters)]
            mine = [(posted.accept(w), w) for w in workers]
            for assignment, worker in mine:
                answer = posted.post(assignment, worker)
                assert answer.status_code == 200, answer.get_data(as_text=True)
            for assignment, worker in mine:
                posted.complete_on_mturk(assignment, worker)
            with session_scope(posted.engine) as session:
                ids = [
                    r.id
                    for r in session.exec(
                        select(QuarantinedSubmission).where(
                            QuarantinedSubmission.state == QuarantineState.PENDING
                        )
                    )
                ]
            assert len(ids) == raters, len(ids)
            calls.clear()
            statements.clear()
            c0 = time.process_time()
            if mode == "together":
                rechecks.recheck_many(ids)
            else:
                for row_id in ids:
                    rechecks.recheck_many([row_id])
            cpu = time.process_time() - c0
            results[mode].append((cpu, sum(calls.values()), statements["sql"]))
    for app in apps:
        app.extensions["harness"].close()
    posted.engine.dispose()
    mturk.stop()
    n = raters
    return {
        mode: {
            "cpu_ms_per_assignment": 1000 * min(r[0] for r in runs) / n,
            "platform_calls_per_assignment": runs[-1][1] / n,
            "sql_per_assignment": runs[-1][2] / n,
        }
        for mode, runs in results.items()
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", choices=["sqlite", "postgresql"], default="sqlite")
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--raters", type=int, default=16)
    parser.add_argument("--repeats", type=int, default=2, help="fresh processes per mode")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        url = fresh_store(args.store, directory)
        try:
            report = {
                "first screening pass of a fresh process (s)": first_pass(
                    url, directory, args.repeats
                ),
                "making an MTurk client (CPU s)": clients(),
            }
        finally:
            if args.store == "postgresql":
                drop_postgres_database(url)
        (directory / "r").mkdir()
        url = fresh_store(args.store, directory / "r")
        try:
            report["settling quarantined submissions of one HIT"] = rechecks(
                url, directory, args.rounds, args.raters
            )
        finally:
            if args.store == "postgresql":
                drop_postgres_database(url)
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
