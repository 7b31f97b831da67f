"""Benchmark of a study with arms on MTurk (issue #18): a simulated crowd does the shipped
statements_variants study (4 arms) on the local MTurk service with external hosting, through
the real task server; printed: what the crowd did, how many first HITs the task server asked
to be returned, the balance of workers between arms, the raters per item and arm, and how long
a task page takes to open on a worker's first arrival (the arm given, MTurk told) and later
(timed first, by workers who return every HIT: the status line's workers include them).

Run from the project root:

    PYTHONPATH=. .venv/bin/python scripts/bench_mturk_arms.py [--workers 40] [--seed 0]
                                                              [--arrivals 50]

Everything runs in this process on free loopback ports (the local MTurk service and the task
server each on a threaded werkzeug server) with a SQLite store in a temporary folder. With k
arms a worker's first HIT is of their own arm with probability about 1/k, so about (k - 1)/k
of the workers are asked to return it; the figure is printed beside that expectation.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import requests
from click.testing import CliRunner
from werkzeug.serving import WSGIRequestHandler, make_server

from harness.cli import main
from harness.providers.mturk.crowd import WORKER_PROFILE, SimulatedWorkers
from harness.resources import project_task_specs
from harness.simulate import Crowd
from harness.simulate.truths import latent_truths
from harness.spec.arms import load_arms

STUDY = "statements-variants"


class _Quiet(WSGIRequestHandler):
    def log_request(self, code: int | str = "-", size: int | str = "-") -> None:
        pass


@contextmanager
def served(app: Any) -> Iterator[str]:
    """``app`` on a free loopback port in a thread; its URL."""
    server = make_server("127.0.0.1", 0, app, threaded=True, request_handler=_Quiet)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02})
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        thread.join()
        server.server_close()


def cli(*args: str) -> str:
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    if result.exit_code != 0:
        raise SystemExit(f"harness {' '.join(args)} failed:\n{result.output}")
    return result.output


def page_seconds(http: requests.Session, mturk: str, arrivals: int) -> tuple[list[float], ...]:
    """Seconds to open an accepted HIT's page: new workers' first arrivals, and the same page
    opened again (the arm read, nothing written)."""
    first, again = [], []
    listed = http.get(f"{mturk}/worker/hits", params={"workerId": "AQ0", **WORKER_PROFILE})
    hit = listed.json()["HITs"][0]["HITId"]
    for i in range(arrivals):
        worker = f"AQ{i + 1}"
        task = http.post(
            f"{mturk}/worker/hits/{hit}/accept", data={"workerId": worker, **WORKER_PROFILE}
        )
        if task.status_code != 200:
            break  # the HIT is full
        url = task.json()["ExternalURL"]
        start = time.perf_counter()
        http.get(url)
        first.append(time.perf_counter() - start)
        start = time.perf_counter()
        http.get(url)
        again.append(time.perf_counter() - start)
        http.post(
            f"{mturk}/worker/assignments/{task.json()['AssignmentId']}/return",
            data={"workerId": worker},
        )
    return first, again


def main_(workers: int, seed: int, arrivals: int) -> None:
    from harness.providers.mturk.local_service import Settings
    from harness.providers.mturk.local_service import create_app as mturk_app
    from harness.web import create_app

    spec = project_task_specs() / "statements_variants.yaml"
    armed = load_arms(spec)
    k = len(armed.arms)
    with tempfile.TemporaryDirectory() as tmp:
        db = f"sqlite:///{Path(tmp) / 'h.db'}"
        service = mturk_app(Settings(db_path=Path(tmp) / "mturk.sqlite"))
        cli("db", "upgrade", "--db", db)
        app = create_app(db)
        with served(service) as mturk, served(app) as pages, requests.Session() as http:
            start = time.perf_counter()
            cli(
                "launch",
                str(spec),
                "--target",
                "local",
                "--endpoint-url",
                mturk,
                "--public-url",
                pages,
                "--db",
                db,
            )
            launched = time.perf_counter() - start
            # page timings first, by workers who return every HIT (a whole number of blocks,
            # so the crowd's arrivals start a block of their own)
            first, again = page_seconds(http, mturk, arrivals - arrivals % k)
            base = armed.arms[0].loaded
            truths = latent_truths(base.items, base.scale, seed)
            crowd = Crowd({"careful": 0.8, "sloppy": 0.2}, size=workers, seed=seed)
            start = time.perf_counter()
            report = SimulatedWorkers(
                mturk,
                crowd.workers(base.scale),
                truths,
                base.scale,
                http,
                seed=seed,
                profile=WORKER_PROFILE,
                keep_group=True,
            ).run()
            crowd_seconds = time.perf_counter() - start
            until = time.monotonic() + 90
            while not app.extensions["harness.trust"].rechecks.idle():
                if time.monotonic() > until:
                    break
                time.sleep(0.1)
            synced = cli("sync", STUDY, "--db", db)
            status = cli("status", STUDY, "--db", db)
            arms_of = crowd_arms(db, set(report.by_worker))
        app.extensions["harness"].close()
        service.extensions["mturk_local"].close()
    people = len(report.by_worker)
    print(f"statements-variants: {k} arms, {workers} simulated workers, seed {seed}")
    print(f"  launch: {launched:.1f} s")
    print(
        f"  crowd: {len(report.submitted)} assignments by {people} workers in "
        f"{crowd_seconds:.1f} s; refused {len(report.refused)}"
    )
    returned_share = len(report.returned) / max(1, people)
    print(
        f"  HITs returned as their page asked: {len(report.returned)} "
        f"({returned_share:.2f} per worker who did any; expected about (k - 1)/k = "
        f"{(k - 1) / k:.2f} on the first HIT, none after)"
    )
    for line in status.splitlines():
        if "raters per item" in line or line.strip().startswith("arms:"):
            print(f"  {line.strip()}")
    print(f"  sync: {synced.strip()}")
    if first:
        print(
            f"  task page, first arrival (arm given, MTurk told): median "
            f"{statistics.median(first) * 1000:.1f} ms over {len(first)}"
        )
        print(
            f"  task page, opened again (arm read): median {statistics.median(again) * 1000:.1f} ms"
        )
    print(f"  crowd workers per arm: {dict(sorted(Counter(arms_of.values()).items()))}")
    counts = Counter(report.by_worker.values())
    print(f"  HITs per worker: {dict(sorted(counts.items()))}")


def crowd_arms(db: str, workers: set[str]) -> dict[str, str]:
    """The arm of each of the crowd's workers who submitted anything."""
    from sqlmodel import select

    from harness.store import make_engine, session_scope
    from harness.store.arm_tables import StudyArm, WorkerArm
    from harness.store.models import Worker

    engine = make_engine(db)
    with session_scope(engine) as session:
        rows = session.exec(
            select(Worker.platform_worker_id, StudyArm.name)
            .join(WorkerArm, WorkerArm.worker_id == Worker.id)  # type: ignore[arg-type]
            .join(StudyArm, StudyArm.id == WorkerArm.arm_id)  # type: ignore[arg-type]
        ).all()
    engine.dispose()
    return {w: a for w, a in rows if w in workers}


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", type=int, default=40)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--arrivals", type=int, default=50)
    args = parser.parse_args()
    main_(args.workers, args.seed, args.arrivals)
