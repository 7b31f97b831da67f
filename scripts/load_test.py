"""Load test of the full flow (issue 20): a burst of simulated workers doing a WS353 study
through the local MTurk service and `harness serve` with live screening, then a row-by-row
check that nothing was lost or done twice.

Run from the project root (loopback only; every server is started here and stopped after):

    python scripts/load_test.py --store sqlite --workers 50
    python scripts/load_test.py --store postgresql --workers 200 --raters 16
    python scripts/load_test.py --store sqlite --workers 50 --kill-every 5   # fault run
    python scripts/load_test.py --store postgresql --workers 200 --raters 48 --rate 60  # paced
    python scripts/load_test.py --store postgresql --workers 200 --raters 16 --platform link

What runs: `harness mturk-local` (gunicorn) and `harness serve` (gunicorn, ``--server-workers``
processes x ``--threads`` threads, live screening applying decisions) as subprocesses on free
loopback ports; the WS353 reproduction spec with ``--items-per-hit`` pairs per HIT and
``--raters`` raters per pair (so 36 HITs x raters assignments), its screening policy with
calibration failures rejected, launched with `harness launch --target local`. Then ``--workers``
threads at once, each one simulated worker (80% careful, 10% spammers, 10% straight-liners;
`harness.providers.mturk.crowd.SimulatedWorkers`) taking HITs until none is left or ``--seconds``
passed: list, accept, load the page, submit the answers to the task server (retrying a
connection cut or a 5xx, as a worker reloading would), submit to MTurk. ``--kill-every N``
SIGKILLs one task-server worker process every N seconds (gunicorn starts another).

``--platform link``: the same study launched on a study link (`harness launch --target link`),
no local MTurk service: the cores hold only the task server, the simulated crowd and the
database. Each worker is a participant with their own id (`load_link`): the entry
``/p/load?participant=...`` (303 to the page of the place allocated), the page, the submission
with the page's token, the completion page, and again by the same link until the entry turns
them away (no place left for them, blocked). The checks compare the store with its own log
(`load_checks.check_link`): on a link an action is its event. ``--platform-errors`` does not
apply (there is no platform to fail) and is refused.

Without ``--rate`` the crowd is a closed loop: the most the servers can do, with latency fixed by
Little's law (workers / rate seconds per assignment). ``--rate R`` starts assignments at R per
second across the crowd, as people pausing between assignments would (`load_pace.Pacer`): the
page and submit latency at an offered rate, with starts the servers could not keep up with
reported as late.

Reported: assignments per second (stored and submitted on the platform, over the crowd's wall
time), page and submit latency p50/p99 (on a link also the entry's and the completion page's),
the task server's errors (5xx and cut connections), refusals apart, then after the screening
queue drained and one `harness sync`: every platform submission stored with all its judgments
(0 lost), no judgment, submission event, decision, decision event or platform action twice (0
duplicated), every platform action matching its event, and every stored assignment screened
(`load_checks`); the CPU milliseconds per assignment of each part. Exit status 1 when any
check fails.
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import requests
import sqlalchemy as sa
import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from load_checks import check_link, check_mturk, moment  # noqa: E402
from load_cpu import BackendCpu, check_pinnable, cpu_seconds, crowd_seconds, measure, pin  # noqa: E402
from load_link import link_participant  # noqa: E402
from load_pace import Pacer, littles_law  # noqa: E402
from load_session import KINDS, TimedSession, Timings  # noqa: E402
from load_store import POSTGRES_ADMIN, fresh_store, ws353_spec  # noqa: E402

from harness.providers.link.crowd import LinkDoor  # noqa: E402
from harness.providers.mturk.crowd import WORKER_PROFILE, SimulatedWorkers  # noqa: E402
from harness.simulate import Crowd, control_truths  # noqa: E402
from harness.simulate.answering import DriverReport  # noqa: E402
from harness.spec import load_spec  # noqa: E402

MIX = {"careful": 0.8, "spammer": 0.1, "straight_liner": 0.1}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def harness(*args: str, check: bool = True) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "harness", *args], capture_output=True, text=True, cwd=ROOT
    )
    if check and done.returncode != 0:
        raise RuntimeError(f"harness {args[0]} failed: {done.stdout}{done.stderr}")
    return done.stdout + done.stderr


@contextmanager
def server(
    args: list[str], log: Path, probe: str, cpu: int | None = None
) -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    """``harness <args> --port <free>`` in the background until it answers ``probe`` (on CPU
    ``cpu`` only, when given)."""
    port = free_port()
    with log.open("wb") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "harness", *args, "--port", str(port)],
            stdout=out,
            stderr=subprocess.STDOUT,
            cwd=ROOT,
            preexec_fn=None if cpu is None else pin(cpu),
        )
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(600):
            if process.poll() is not None:
                raise RuntimeError(f"harness {args[0]} exited: {log.read_text()}")
            try:
                if requests.get(url + probe, timeout=1).ok:
                    break
            except requests.RequestException:  # not listening yet, or slow to answer
                time.sleep(0.05)
        yield process, url
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()


def write_spec(directory: Path, items_per_hit: int, raters: int) -> Path:
    """The WS353 reproduction with smaller HITs and more raters; calibration failures rejected."""
    spec = ws353_spec("load", items_per_hit, raters)
    spec["screening"]["calibration_failure"] = {"action": "reject"}
    spec["budget"] = "100000.00"
    path = directory / "load.yaml"
    path.write_text(yaml.safe_dump(spec, sort_keys=False))
    return path


def crowd_worker(
    sim: SimulatedWorkers,
    worker: Any,
    seed: int,
    deadline: float,
    report: DriverReport,
    pacer: Pacer | None = None,
) -> None:
    """One simulated worker taking HITs until none is left for them or time is up; with a
    ``pacer``, each assignment waits for its slot (a refused accept tries again at once)."""
    rng = np.random.default_rng([seed, 4])
    refused, retrying = 0, False
    while time.perf_counter() < deadline and refused < 20:
        late = pacer.wait() if pacer is not None and not retrying else None
        hit = pick_hit(sim, worker, rng)
        if hit is None:
            return
        if late is not None:
            pacer.started(late)
        retrying = not sim.work(worker, hit, rng, report)
        if retrying:
            refused += 1  # e.g. the HIT filled between listing and accepting: list again


def terminate_connections(db: str, every: float, stop: threading.Event, cut: list[int]) -> None:
    """Every ``every`` seconds, terminate the task server's PostgreSQL connections (a database
    restart, a proxy dropping idle connections)."""
    name = sa.engine.make_url(db).database
    admin = sa.create_engine(POSTGRES_ADMIN, isolation_level="AUTOCOMMIT")
    try:
        while not stop.wait(every):
            with admin.connect() as c:
                ended = c.execute(
                    sa.text(
                        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                        "WHERE datname = :name AND pid <> pg_backend_pid()"
                    ),
                    {"name": name},
                ).all()
            cut.append(len(ended))
    finally:
        admin.dispose()


def pick_hit(sim: SimulatedWorkers, worker: Any, rng: np.random.Generator) -> str | None:
    """One of the HITs the worker may accept, at random (people do not all take the first),
    in proportion to its places left: a group with many places is the one people find and
    take from, and a HIT about to fill is seldom the one a burst of workers all pick (which
    made a third of the accepts refused and listed again)."""
    from harness.providers.mturk.crowd import mturk_worker_id

    listed = sim._get(  # noqa: SLF001 - the driver's own worker-side call
        "/worker/hits", workerId=mturk_worker_id(worker.worker_id), acceptable=1, **sim.profile
    )
    open_hits = [h for h in listed["HITs"] if h["canAccept"]]
    places = np.array([max(int(h["NumberOfAssignmentsAvailable"]), 0) for h in open_hits])
    if not open_hits or places.sum() == 0:
        return None
    return str(open_hits[int(rng.choice(len(open_hits), p=places / places.sum()))]["HITId"])


def kill_workers(
    serve: subprocess.Popen[bytes], every: float, stop: threading.Event, killed: list[int]
) -> None:
    """SIGKILL one of the task server's worker processes every ``every`` seconds."""
    while not stop.wait(every):
        try:
            children = Path(f"/proc/{serve.pid}/task/{serve.pid}/children").read_text().split()
        except OSError:  # the server has stopped
            return
        if children:
            pid = int(children[len(killed) % len(children)])
            os.kill(pid, signal.SIGKILL)
            killed.append(pid)


def percentile(values: list[float], q: float) -> float:
    return float(np.percentile(values, q)) * 1000 if values else float("nan")


def run(args: argparse.Namespace) -> int:
    with (
        tempfile.TemporaryDirectory(prefix="harness-load-") as tmp,
        fresh_store(args.store, Path(tmp), "harness_load") as db,
    ):
        directory = Path(tmp)
        harness("db", "upgrade", "--db", db)
        spec = write_spec(directory, args.items_per_hit, args.raters)
        serve_args = [
            "serve",
            "--db",
            db,
            "--workers",
            str(args.server_workers),
            "--threads",
            str(args.threads),
        ]
        if args.inline_screening:
            serve_args.append("--screen-inline")
        with ExitStack() as services:
            mturk, mturk_url = None, None
            if args.platform == "mturk":
                mturk, mturk_url = services.enter_context(
                    server(
                        # workers keep their connection while on the task server's page: longer
                        # than the default 5 s under load, and a connection closed just as it is
                        # reused is a retried error
                        [
                            "mturk-local",
                            "--db",
                            str(directory / "mturk.sqlite"),
                            "--threads",
                            str(args.platform_threads),
                            "--keepalive",
                            "60",
                        ],
                        directory / "mturk.log",
                        "/_control/clock",
                        1 if args.pin else None,
                    )
                )
            serve, serve_url = services.enter_context(
                server(serve_args, directory / "serve.log", "/health", 0 if args.pin else None)
            )
            target = ["--target", "link"]
            if mturk_url is not None:
                target = ["--target", "local", "--endpoint-url", mturk_url]
            harness("launch", str(spec), *target, "--public-url", serve_url, "--db", db)
            loaded = load_spec(spec)
            if args.platform_errors:  # from now on: throttled and 503 requester calls
                share = args.platform_errors / 2
                faults = {"throttle_share": share, "unavailable_share": share}
                requests.post(f"{mturk_url}/_control/faults", json=faults).raise_for_status()
            truths = {
                str(k): float(v)
                for k, v in zip(loaded.items["item_id"], loaded.items["mean"], strict=True)
            }
            truths.update(
                {str(k): float(v) for k, v in control_truths(loaded.items, loaded.scale).items()}
            )
            workers = Crowd(MIX, size=args.workers, seed=args.seed).workers(loaded.scale)
            timings = Timings(serve_url)
            report = DriverReport()
            stop, killed = threading.Event(), []
            killer = None
            if args.kill_every:
                killer = threading.Thread(
                    target=kill_workers, args=(serve, args.kill_every, stop, killed)
                )
                killer.start()
            cut: list[int] = []
            cutter = None
            if args.terminate_every:
                cutter = threading.Thread(
                    target=terminate_connections, args=(db, args.terminate_every, stop, cut)
                )
                cutter.start()
            parts = {"task server": lambda: cpu_seconds(serve.pid)}
            if mturk is not None:
                parts["local MTurk"] = lambda: cpu_seconds(mturk.pid)
            parts["simulated crowd"] = crowd_seconds
            since = measure(parts)
            backends = None
            if args.store == "postgresql":
                backends = BackendCpu(POSTGRES_ADMIN, sa.engine.make_url(db).database or "")
                backends.start()
            pacer = Pacer(args.rate) if args.rate else None
            start = time.perf_counter()
            deadline = start + args.seconds
            door = LinkDoor(serve_url, "load")

            def one(i: int) -> None:
                seed = args.seed + i
                with TimedSession(timings) as http:
                    if mturk_url is None:  # a study link: the task server is the whole of it
                        link_participant(
                            http,
                            workers[i],
                            door,
                            truths,
                            loaded.scale,
                            seed,
                            deadline,
                            report,
                            pacer,
                        )
                        return
                    sim = SimulatedWorkers(
                        mturk_url,
                        [workers[i]],
                        truths,
                        loaded.scale,
                        http,
                        seed=seed,
                        profile=WORKER_PROFILE,
                    )
                    crowd_worker(sim, workers[i], seed, deadline, report, pacer)

            with ThreadPoolExecutor(args.workers) as pool:
                list(pool.map(one, range(args.workers)))
            wall = time.perf_counter() - start
            # paced: not the slots taken at the end by workers with no HIT left
            if pacer is not None and timings.last_stored > start:
                wall = min(wall, timings.last_stored - start)
            during = since()
            if backends is not None:
                during["PostgreSQL backends"] = backends.seconds()
            cpu = {name: read() for name, read in parts.items() if name != "simulated crowd"}
            cpu["simulated crowd"] = time.process_time()
            stop.set()
            if killer is not None:
                killer.join()
            if cutter is not None:
                cutter.join()
                print(f"  database connections terminated: {sum(cut)} in {len(cut)} rounds")
            drained = wait_screened(db, 120)
            # the work the crowd left queued (rechecks, screening, its actions) done as well
            through = since()
            if backends is not None:
                through["PostgreSQL backends"] = backends.stop()
            decided = post_to_screened(db)
            synced = harness("sync", "load", "--db", db, check=False)
            if args.platform_errors:  # the platform recovers; the next sync finishes the rest
                requests.post(
                    f"{mturk_url}/_control/faults",
                    json={"throttle_share": 0, "unavailable_share": 0},
                ).raise_for_status()
                synced += harness("sync", "load", "--db", db, check=False)
            if mturk_url is None:
                checks = check_link(db, timings)
            else:
                checks = check_mturk(db, mturk_url, timings)
        print_report(args, wall, timings, report, killed, drained, synced, checks, pacer)
        if decided.verified:
            for what, spent in (
                ("post to screened (verified by the rechecks, then screened)", decided.total()),
                ("  post to verified", decided.verified),
                ("  verified to screened", decided.screened),
            ):
                print(
                    f"  {what}: p50 {np.percentile(spent, 50):.1f} s, p99 "
                    f"{np.percentile(spent, 99):.1f} s, max {max(spent):.1f} s ({len(spent)})"
                )
            print(f"    rechecks before verified: {dict(sorted(decided.rechecks.items()))}")
        print(
            "  CPU seconds during the crowd: " + ", ".join(f"{k} {v:.0f}" for k, v in cpu.items())
        )
        errors = [
            line
            for line in (directory / "serve.log").read_text(errors="replace").splitlines()
            if "Error" in line or "Exception" in line
        ]
        print_cpu(during, through if drained >= 0 else None, len(report.submitted), args.pin)
        if errors:  # what the task server logged (its 500s): the last line of each traceback
            print("  task-server log: " + "\n    ".join(dict.fromkeys(errors[-10:])))
    return 0 if all(ok for ok, _ in checks.values()) else 1


def wait_screened(db: str, seconds: float) -> float:
    """Seconds until every submission the rechecks still ask about was settled and every stored
    assignment screened (the queue drained); -1 if never."""
    engine = sa.create_engine(db)
    start = time.perf_counter()
    try:
        while time.perf_counter() - start < seconds:
            with engine.connect() as c:
                left = c.execute(
                    sa.text(
                        "SELECT count(*) FROM assignment a WHERE a.screened_at IS NULL AND EXISTS "
                        "(SELECT 1 FROM judgment j WHERE j.assignment_id = a.id)"
                    )
                ).scalar_one()
                left += c.execute(
                    sa.text(
                        "SELECT count(*) FROM quarantined_submission "
                        "WHERE state = 'PENDING' AND recheck_at IS NOT NULL"
                    )
                ).scalar_one()
            if left == 0:
                return time.perf_counter() - start
            time.sleep(0.2)
        return -1.0
    finally:
        engine.dispose()


@dataclass
class Decided:
    """How soon live screening decided on each verified submission (seconds): from its post
    (its quarantine) to its verification by the rechecks, and from that to its screening."""

    verified: list[float]
    screened: list[float]
    rechecks: Counter[int]  # rechecks a submission took before it was verified -> how many

    def total(self) -> list[float]:
        return [v + s for v, s in zip(self.verified, self.screened, strict=True)]


def post_to_screened(db: str) -> Decided:
    """Each verified submission's times from its post to its verification and its screening."""
    engine = sa.create_engine(db)
    try:
        with engine.connect() as c:
            rows = c.execute(
                sa.text(
                    "SELECT q.received_at, q.resolved_at, a.screened_at, q.rechecks "
                    "FROM quarantined_submission q "
                    "JOIN assignment a ON a.platform_assignment_id = q.platform_assignment_id "
                    "WHERE a.screened_at IS NOT NULL AND q.resolved_at IS NOT NULL"
                )
            ).all()
    finally:
        engine.dispose()
    verified, screened = [], []
    for received, resolved, done, _ in rows:
        verified.append(max((moment(resolved) - moment(received)).total_seconds(), 0.0))
        screened.append(max((moment(done) - moment(resolved)).total_seconds(), 0.0))
    return Decided(verified, screened, Counter(int(r[3]) for r in rows))


def print_report(
    args: argparse.Namespace,
    wall: float,
    timings: Timings,
    report: DriverReport,
    killed: list[int],
    drained: float,
    synced: str,
    checks: dict[str, tuple[bool, str]],
    pacer: Pacer | None = None,
) -> None:
    done = len(report.submitted)
    print(
        ("study link, " if args.platform == "link" else "")
        + f"store {args.store}, {args.workers} concurrent workers, task server "
        f"{args.server_workers} processes x {args.threads} threads, "
        f"screening {'inline' if args.inline_screening else 'background'}"
        + (f", {len(killed)} worker processes SIGKILLed" if args.kill_every else "")
        + (f", {args.platform_errors:.0%} platform errors" if args.platform_errors else "")
    )
    print(f"  {done} assignments in {wall:.1f} s: {done / wall:.1f} assignments/s")
    print("  " + (pacer.summary() if pacer is not None else littles_law(args.workers, done / wall)))
    for kind in KINDS:
        spent = getattr(timings, kind)
        if spent or kind in ("page", "submit"):
            print(
                f"  {kind:<6} p50 {percentile(spent, 50):.0f} ms, p99 "
                f"{percentile(spent, 99):.0f} ms ({len(spent)})"
            )
    for call, spent in sorted(timings.platform.items()):
        print(
            f"  platform {call}: p50 {percentile(spent, 50):.0f} ms, p99 "
            f"{percentile(spent, 99):.0f} ms ({len(spent)})"
        )
    mine = {e: n for e, n in timings.errors.items() if not e.startswith("platform")}
    print(f"  task-server errors: {sum(mine.values())} {mine if mine else ''}")
    platform = {e: n for e, n in timings.errors.items() if e.startswith("platform")}
    if platform:
        print(
            f"  local MTurk service connection errors (retried): {sum(platform.values())} "
            + str({e.split(": ", 1)[1]: n for e, n in platform.items()})
        )
    refusals = Counter(r.split(" ", 1)[0] for r in report.refused)
    if timings.refusals:  # a study link: participants turned away at the entry
        refusals["entry"] = sum(timings.refusals.values())
    print(f"  refused by the servers (not errors): {dict(refusals)}")
    why = Counter(r.split(": ", 1)[-1][:70] for r in report.refused) + timings.refusals
    if why:
        print("    most often: " + "; ".join(f"{n} x {text}" for text, n in why.most_common(3)))
    print(
        f"  screening queue drained {drained:.1f} s after the crowd (verified and screened)"
        if drained >= 0
        else "  screening queue NOT drained"
    )
    for line in synced.strip().splitlines():
        print(f"  sync: {line}")
    for name, (ok, found) in checks.items():
        print(f"  [{'ok' if ok else 'FAIL'}] {name}: {found}")


def print_cpu(
    during: dict[str, float | None],
    through: dict[str, float | None] | None,
    done: int,
    pinned: bool,
) -> None:
    """CPU milliseconds per assignment of each part over the crowd's run and until the queue
    drained (``through``: None if it never did), and the task server's capacity: assignments
    per second of its own CPU."""
    for span, spent_by in (("crowd start to end", during), ("crowd start to drained", through)):
        if spent_by is None:
            continue
        per = ", ".join(
            f"{name} {'n/a' if spent is None else f'{1000 * spent / max(done, 1):.1f}'}"
            for name, spent in spent_by.items()
        )
        total = sum(v for v in spent_by.values() if v is not None)
        print(f"  CPU ms per assignment ({span}): {per}; all {1000 * total / max(done, 1):.1f}")
    serving = during["task server"] or 0.0
    capacity = done / serving if serving > 0 else float("nan")
    print(
        f"  task-server capacity: {capacity:.1f} assignments per task-server CPU-second"
        + (" (task server pinned to CPU 0, the rest to CPU 1)" if pinned else "")
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--store", choices=["sqlite", "postgresql"], default="sqlite")
    parser.add_argument(
        "--platform",
        choices=["mturk", "link"],
        default="mturk",
        help="mturk: through the local MTurk service; link: participants arrive by the study's "
        "link, harness's task server the whole of it",
    )
    parser.add_argument("--workers", type=int, default=50, help="concurrent simulated workers")
    parser.add_argument("--raters", type=int, default=8, help="raters per item")
    parser.add_argument("--items-per-hit", type=int, default=10)
    parser.add_argument("--server-workers", type=int, default=2)
    parser.add_argument(
        "--threads", type=int, default=8, help="per task-server process (harness serve's default)"
    )
    parser.add_argument(
        "--platform-threads", type=int, default=16, help="the local MTurk service's threads"
    )
    parser.add_argument("--seconds", type=float, default=90, help="stop the crowd after this")
    parser.add_argument(
        "--kill-every",
        type=float,
        default=0.0,
        help="SIGKILL a task-server worker process every N seconds",
    )
    parser.add_argument(
        "--terminate-every",
        type=float,
        default=0.0,
        help="PostgreSQL: terminate the task server's connections every N seconds",
    )
    parser.add_argument("--inline-screening", action="store_true")
    parser.add_argument(
        "--platform-errors",
        type=float,
        default=0.0,
        help="share of the platform's requester calls answered 429 or 503 during the crowd",
    )
    parser.add_argument(
        "--rate",
        type=float,
        default=0.0,
        help="start assignments at this many per second across the crowd (an open loop: "
        "latency at an offered rate); 0: each worker starts its next at once (a closed loop)",
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--pin",
        action="store_true",
        help="run the task server on CPU 0 and the local MTurk service and the crowd on CPU 1",
    )
    args = parser.parse_args()
    if not 1 <= args.workers <= 500:
        parser.error("--workers: 1 to 500 (a bounded load test)")
    if args.platform_errors and args.platform == "link":
        parser.error(
            "--platform-errors: a study link has no platform to answer 429 or 503 (harness's "
            "task server is the whole of it); use --kill-every or --terminate-every"
        )
    if args.terminate_every and args.store != "postgresql":
        parser.error("--terminate-every: PostgreSQL only")
    if args.rate < 0 or args.rate > 1000:
        parser.error("--rate: 0 (a closed loop) to 1000 assignment starts per second")
    if args.seconds > 300:
        parser.error("--seconds: at most 300")
    if args.pin:
        why = check_pinnable()
        if why is not None:
            parser.error(why)
        os.sched_setaffinity(0, {1})  # the crowd (and the harness commands it runs)
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
