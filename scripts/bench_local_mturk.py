"""Benchmark of the local MTurk service (issues 19 and 20): launch rate and its growth, the
worker side's rate, and a burst of concurrent clients, each printed beside its goal.

Run from the project root:

    python scripts/bench_local_mturk.py [--sizes 250 500 1000] [--assignments 1000]
                                        [--clients 200] [--threads 32]

Everything is measured against a real `harness mturk-local` (gunicorn) on a free loopback port,
through boto3 (requester side) and HTTP (worker side), each figure on a fresh database:

1. Reference: GetAccountBalance round trips per second, the cheapest call; the per-HIT cost of
   a launch is also printed as a multiple of it, a ratio that does not depend on the machine.
2. Launch: CreateHITWithHITType of HITs of 3 assignments, as harness's provider sends them
   (ExternalQuestion, RequesterAnnotation, UniqueRequestToken), at three sizes; HITs per second
   and the growth exponent of the time over the sizes (least squares on log-log; 1.0 is
   linear). Goal: 1,000 HITs in under 20 s (173-184 s before), exponent at most 1.1.
3. Worker side: with 1,000 HITs of 3 assignments open, simulated workers do what
   harness.simulate's driver does: list HITs, accept the first they can, submit; assignments
   per second. Goal: at least 50 a second, so a crowd doing 3,000 assignments spends under a
   minute on the service, a third of the 3 minutes issue 19 gives the whole crowd plus sync.
4. Burst: 200 clients at once, each listing, accepting and submitting. Goal: 0 dropped
   connections and 0 errors (werkzeug's single-threaded server dropped 63 of 200).

The measuring functions (`running_service`, `reference_rate`, `launch_seconds`,
`growth_exponent`, `worker_rate`, `burst`) are importable, for scripts/bench_scale.py.
"""

from __future__ import annotations

import argparse
import math
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import boto3
import requests
from botocore.config import Config

QUESTION = (
    '<ExternalQuestion xmlns="http://mechanicalturk.amazonaws.com/AWSMechanicalTurkDataSchemas/'
    '2006-07-14/ExternalQuestion.xsd"><ExternalURL>https://example.org/hit/{label}</ExternalURL>'
    "<FrameHeight>0</FrameHeight></ExternalQuestion>"
)
GOAL_1000_SECONDS = 20.0
GOAL_EXPONENT = 1.1
GOAL_WORKER_RATE = 50.0


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def running_service(db: Path, threads: int = 32) -> Iterator[str]:
    """`harness mturk-local` (gunicorn) on a free loopback port; yields its URL."""
    port = _free_port()
    log = db.with_suffix(".log")
    with log.open("w") as out:
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "harness",
                "mturk-local",
                "--port",
                str(port),
                "--db",
                str(db),
                "--threads",
                str(threads),
            ],
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(400):
            if process.poll() is not None:
                raise RuntimeError(f"the service exited: {log.read_text()}")
            try:
                if requests.get(f"{url}/_control/clock", timeout=1).ok:
                    break
            except requests.ConnectionError:
                time.sleep(0.05)
        yield url
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=60)


def mturk_client(url: str) -> Any:
    return boto3.client(
        "mturk",
        endpoint_url=url,
        region_name="us-east-1",
        aws_access_key_id="local",
        aws_secret_access_key="local",
        config=Config(retries={"total_max_attempts": 1}),
    )


def reference_rate(url: str, calls: int = 300) -> float:
    """GetAccountBalance round trips per second."""
    client = mturk_client(url)
    client.get_account_balance()
    start = time.perf_counter()
    for _ in range(calls):
        client.get_account_balance()
    return calls / (time.perf_counter() - start)


def launch(url: str, hits: int, assignments: int = 3) -> list[str]:
    """Create `hits` HITs of one HIT type; return their ids."""
    client = mturk_client(url)
    type_id = client.create_hit_type(
        Title="Rate word pairs",
        Description="How similar are these two words?",
        Reward="0.50",
        AssignmentDurationInSeconds=1800,
        AutoApprovalDelayInSeconds=86400,
        Keywords="similarity, words",
    )["HITTypeId"]
    ids = []
    for i in range(hits):
        label = f"bench-{i:05d}"
        ids.append(
            client.create_hit_with_hit_type(
                HITTypeId=type_id,
                MaxAssignments=assignments,
                LifetimeInSeconds=7 * 86400,
                Question=QUESTION.format(label=label),
                RequesterAnnotation=label,
                UniqueRequestToken=f"{label}-{uuid.uuid4().hex[:12]}",
            )["HIT"]["HITId"]
        )
    return ids


def launch_seconds(url: str, hits: int, assignments: int = 3) -> float:
    start = time.perf_counter()
    launch(url, hits, assignments)
    return time.perf_counter() - start


def growth_exponent(sizes: Sequence[int], seconds: Sequence[float]) -> float:
    """Slope of log(seconds) against log(size), least squares: 1.0 is linear, 2.0 quadratic."""
    xs, ys = [math.log(s) for s in sizes], [math.log(t) for t in seconds]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sum(
        (x - mx) ** 2 for x in xs
    )


def _work_one(
    http: requests.Session, url: str, worker: str, pick: int = 0, page: int | None = None
) -> str:
    """What harness.simulate's driver does for one HIT: list, accept one, submit (the driver
    takes the first HIT it can accept; `pick` spreads a burst of clients over the list)."""
    params: dict[str, Any] = {"workerId": worker}
    if page is not None:
        params["maxResults"] = page
    listed = http.get(f"{url}/worker/hits", params=params, timeout=60)
    if listed.status_code != 200:
        return f"list {listed.status_code}"
    acceptable = [h for h in listed.json()["HITs"] if h["canAccept"]]
    if not acceptable:
        return "none"
    hit = acceptable[pick % len(acceptable)]
    accepted = http.post(
        f"{url}/worker/hits/{hit['HITId']}/accept", data={"workerId": worker}, timeout=60
    )
    if accepted.status_code == 409:
        return "taken"
    if accepted.status_code != 200:
        return f"accept {accepted.status_code}"
    submitted = http.post(
        f"{url}/mturk/externalSubmit",
        data={"assignmentId": accepted.json()["AssignmentId"], "similarity": "7"},
        timeout=60,
    )
    return "ok" if submitted.status_code == 200 else f"submit {submitted.status_code}"


def worker_rate(url: str, assignments: int, workers: int = 60) -> tuple[float, int]:
    """Seconds for `workers` simulated workers, taking turns, to do `assignments` assignments
    (list + accept + submit each); and how many were done."""
    done = 0
    with requests.Session() as http:
        start = time.perf_counter()
        i = 0
        while done < assignments:
            outcome = _work_one(http, url, f"AWORKER{i % workers:04d}")
            if outcome == "ok":
                done += 1
            elif outcome == "none" and i > assignments * 4:
                break
            i += 1
        return time.perf_counter() - start, done


@dataclass(frozen=True)
class BurstResult:
    clients: int
    completed: int
    dropped: int  # connections refused, reset or timed out
    errors: int  # answers other than 200 (or 409 for a HIT taken meanwhile)
    p99_ms: float


def burst(url: str, clients: int = 200) -> BurstResult:
    """`clients` workers at once, each listing, accepting and submitting one HIT."""

    def one(i: int) -> tuple[str, float]:
        start = time.perf_counter()
        try:
            with requests.Session() as http:
                outcome = _work_one(http, url, f"ABURST{i:04d}", pick=i // 3, page=1000)
        except (requests.ConnectionError, requests.Timeout):
            outcome = "dropped"
        return outcome, (time.perf_counter() - start) * 1000

    with ThreadPoolExecutor(max_workers=clients) as pool:
        results = list(pool.map(one, range(clients)))
    outcomes = [o for o, _ in results]
    times = sorted(t for _, t in results)
    return BurstResult(
        clients=clients,
        completed=outcomes.count("ok"),
        dropped=outcomes.count("dropped"),
        errors=sum(o not in ("ok", "dropped", "taken") for o in outcomes),
        p99_ms=times[min(len(times) - 1, int(0.99 * len(times)))],
    )


def _verdict(ok: bool) -> str:
    return "meets the goal" if ok else "MISSES the goal"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs=3, default=[250, 500, 1000])
    parser.add_argument("--assignments", type=int, default=1000)
    parser.add_argument("--clients", type=int, default=200)
    parser.add_argument("--threads", type=int, default=32)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        print(f"local MTurk service: gunicorn, {args.threads} threads, loopback; fresh DB each")
        with running_service(folder / "reference.sqlite", args.threads) as url:
            reference = reference_rate(url)
        print(
            f"reference   GetAccountBalance: {reference:7.0f} calls/s "
            f"({1000 / reference:.2f} ms a call)"
        )

        seconds = []
        for size in args.sizes:
            with running_service(folder / f"launch-{size}.sqlite", args.threads) as url:
                seconds.append(launch_seconds(url, size))
            per_hit = seconds[-1] / size
            print(
                f"launch      {size:5d} HITs x 3: {seconds[-1]:6.2f} s, "
                f"{size / seconds[-1]:6.1f} HITs/s ({per_hit * 1000:.2f} ms a HIT = "
                f"{per_hit * reference:.2f}x a reference call)"
            )
        projected = seconds[-1] * 1000 / args.sizes[-1]
        exponent = growth_exponent(args.sizes, seconds)
        print(
            f"            1,000 HITs: {projected:.1f} s (goal < {GOAL_1000_SECONDS:.0f} s; "
            f"173-184 s before): {_verdict(projected < GOAL_1000_SECONDS)}"
            + ("" if args.sizes[-1] == 1000 else f" (scaled from {args.sizes[-1]})")
        )
        print(
            f"            growth exponent {exponent:.2f} (goal <= {GOAL_EXPONENT}): "
            f"{_verdict(exponent <= GOAL_EXPONENT)}"
        )

        with running_service(folder / "workers.sqlite", args.threads) as url:
            launch(url, 1000)
            spent, done = worker_rate(url, args.assignments)
        rate = done / spent
        print(
            f"worker side 1,000 HITs open, list + accept + submit: {done} assignments in "
            f"{spent:.1f} s = {rate:.1f}/s; 3,000 would take {3000 / rate:.0f} s "
            f"(goal >= {GOAL_WORKER_RATE:.0f}/s): {_verdict(rate >= GOAL_WORKER_RATE)}"
        )

        with running_service(folder / "burst.sqlite", args.threads) as url:
            launch(url, -(-args.clients // 3) + 10)
            result = burst(url, args.clients)
        clean = result.dropped == 0 and result.errors == 0
        print(
            f"burst       {result.clients} concurrent clients: {result.completed} completed, "
            f"{result.dropped} dropped connections, {result.errors} errors, p99 "
            f"{result.p99_ms:.0f} ms (goal 0 dropped, 0 errors): {_verdict(clean)}"
        )


if __name__ == "__main__":
    main()
