"""Time under the local MTurk service's write lock, per request: the crowd of
scripts/bench_local_mturk_cpu.py (list, accept, externalSubmit, GetAssignment per assignment,
36 HITs of 16 assignments, 200 workers), in process, by several threads at once.

Run from the project root (``PYTHONPATH`` picks the code measured):

    python scripts/bench_local_mturk_lock.py [--threads 16]

The service's lock is wrapped in a timer that records, for each request that takes it, the CPU
time the holding thread spent while holding it (its thread time: what the lock costs the
others, whatever else runs on the machine), the wall time it was held, and the wall time spent
waiting for it. Wall times include waiting for the GIL, so they depend on the thread count and
on the machine's load; CPU under the lock does not. Printed per kind of request: how many took
the lock, CPU and wall time held (mean, p50, p90 in ms), wait (mean), and the share of the run
the lock was held.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import threading
import time
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from flask import has_request_context, request

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_local_mturk_cpu import (  # noqa: E402
    HITS,
    SLOTS,
    WORKERS,
    one_assignment,
    service_with_hits,
)


def request_kind() -> str:
    """The worker path or requester operation the current request is."""
    if not has_request_context():
        return "(outside a request)"
    if request.path == "/":
        return request.headers.get("X-Amz-Target", "").rpartition(".")[2]
    if request.path.endswith("/accept"):
        return "accept"
    return request.path


class TimedLock:
    """The service's re-entrant lock, timing each outermost hold (by request kind)."""

    def __init__(self, lock: Any) -> None:
        self.lock = lock
        self.local = threading.local()
        self.cpu: dict[str, list[float]] = defaultdict(list)
        self.wall: dict[str, list[float]] = defaultdict(list)
        self.wait: dict[str, list[float]] = defaultdict(list)

    def __enter__(self) -> TimedLock:
        asked = time.perf_counter()
        self.lock.acquire()
        depth = getattr(self.local, "depth", 0)
        self.local.depth = depth + 1
        if depth == 0:
            self.local.kind = request_kind()
            self.local.got = time.perf_counter()
            self.local.cpu = time.thread_time()
            self.wait[self.local.kind].append(self.local.got - asked)
        return self

    def __exit__(self, *exc: object) -> None:
        self.local.depth -= 1
        if self.local.depth == 0:
            kind = self.local.kind
            self.cpu[kind].append(time.thread_time() - self.local.cpu)
            self.wall[kind].append(time.perf_counter() - self.local.got)
        self.lock.release()


def run_crowd(app: Any, threads: int) -> int:
    """The workers, split among `threads` threads, each with its own client, take turns until
    none of a thread's workers finds a slot; the assignments done."""
    workers = [f"AW{i:04d}" for i in range(WORKERS)]

    def part(n: int) -> int:
        client, rng, mine, done = app.test_client(), random.Random(n), workers[n::threads], 0
        while True:
            taken = sum(one_assignment(client, worker, rng) for worker in mine)
            done += taken
            if not taken:
                return done

    with ThreadPoolExecutor(threads) as pool:
        return sum(pool.map(part, range(threads)))


def ms(values: list[float], q: float | None = None) -> str:
    if q is None:
        return f"{1000 * statistics.fmean(values):6.3f}"
    return f"{1000 * statistics.quantiles(values, n=100)[int(q) - 1]:6.3f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--threads", type=int, default=16)
    args = parser.parse_args()
    app = service_with_hits(Path(tempfile.mkdtemp(prefix="bench-mturk-lock-")))
    service = app.extensions["mturk_local"]
    timed = TimedLock(service.lock)
    service.lock = timed
    start = time.perf_counter()
    done = run_crowd(app, args.threads)
    elapsed = time.perf_counter() - start
    service.close()
    assert done == HITS * SLOTS, f"{done} assignments done, expected {HITS * SLOTS}"
    print(f"{done} assignments by {args.threads} threads in {elapsed:.1f} s")
    print(
        f"{'request':<24} {'holds':>6} {'cpu mean':>9} {'cpu p50':>8} {'cpu p90':>8} "
        f"{'wall mean':>10} {'wall p50':>9} {'wall p90':>9} {'wait mean':>10}"
    )
    for kind in sorted(timed.cpu, key=lambda k: -len(timed.cpu[k])):
        cpu, wall, wait = timed.cpu[kind], timed.wall[kind], timed.wait[kind]
        if len(cpu) < 2:
            continue
        print(
            f"{kind:<24} {len(cpu):6d} {ms(cpu):>9} {ms(cpu, 50):>8} {ms(cpu, 90):>8} "
            f"{ms(wall):>10} {ms(wall, 50):>9} {ms(wall, 90):>9} {ms(wait):>10}"
        )
    held = sum(sum(w) for w in timed.wall.values())
    cpu_held = sum(sum(c) for c in timed.cpu.values())
    print(
        f"lock held {100 * held / elapsed:.0f}% of the run; CPU under the lock "
        f"{1000 * cpu_held / done:.2f} ms per assignment"
    )


if __name__ == "__main__":
    main()
