"""CPU per assignment of the local MTurk service, in process (no HTTP, no other process): what
the load test's crowd and task server ask of it for one assignment (a worker lists the HITs they
can accept, accepts one at random, submits it with externalSubmit; the requester reads it with
GetAssignment), on a fresh database with 36 HITs of 16 assignments and 200 workers, until every
slot is taken.

Run from the project root (``PYTHONPATH`` picks the code measured):

    python scripts/bench_local_mturk_cpu.py [--profile]

Prints CPU milliseconds per assignment (process time, so other work on the machine changes it
little), and how much of it the service spent answering (the rest is the test client's, which a
real crowd spends in its own processes); ``--profile`` adds cProfile's top functions by
cumulative time.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import pstats
import random
import tempfile
import time
from decimal import Decimal
from pathlib import Path
from typing import Any

from flask import Flask

from harness.providers.mturk.local_service import Settings, create_app

QUESTION = (
    '<ExternalQuestion xmlns="http://mechanicalturk.amazonaws.com/AWSMechanicalTurkDataSchemas/'
    '2006-07-14/ExternalQuestion.xsd"><ExternalURL>http://127.0.0.1:9/task/load</ExternalURL>'
    "<FrameHeight>0</FrameHeight></ExternalQuestion>"
)
REQUIREMENTS = [  # what harness's launch asks of workers
    {
        "QualificationTypeId": "00000000000000000071",
        "Comparator": "EqualTo",
        "LocaleValues": [{"Country": "US"}],
    },
    {
        "QualificationTypeId": "000000000000000000L0",
        "Comparator": "GreaterThanOrEqualTo",
        "IntegerValues": [95],
    },
]
PROFILE = {"country": "US", "numberApproved": "5000", "percentApproved": "99"}
HITS, SLOTS, WORKERS, FIELDS = 36, 16, 200, 12


def requester(client: Any, operation: str, body: dict[str, Any]) -> dict[str, Any]:
    r = client.post(
        "/",
        data=json.dumps(body),
        headers={
            "X-Amz-Target": f"MTurkRequesterServiceV20170117.{operation}",
            "Content-Type": "application/x-amz-json-1.1",
        },
    )
    assert r.status_code == 200, r.get_data(as_text=True)
    result: dict[str, Any] = json.loads(r.get_data())
    return result


def one_assignment(client: Any, worker: str, rng: random.Random) -> bool:
    """What the crowd and the task server ask for one assignment: the worker lists the HITs
    they can accept, accepts one at random and submits it; the requester reads it. False when
    the worker found nothing to accept (or lost the slot to another)."""
    listed = client.get(
        "/worker/hits", query_string={"workerId": worker, "acceptable": "1", **PROFILE}
    ).get_json()
    hits = [h["HITId"] for h in listed["HITs"] if h["canAccept"]]
    if not hits:
        return False
    r = client.post(f"/worker/hits/{rng.choice(hits)}/accept", data={"workerId": worker, **PROFILE})
    if r.status_code != 200:
        return False
    assignment = r.get_json()["AssignmentId"]
    fields = {f"a{i}": str(i) for i in range(FIELDS)}
    r = client.post("/mturk/externalSubmit", data={"assignmentId": assignment, **fields})
    assert r.status_code == 200, r.get_data(as_text=True)
    requester(client, "GetAssignment", {"AssignmentId": assignment})
    return True


def crowd(client: Any, rng: random.Random) -> int:
    """Workers take turns until no slot is left; the assignments done."""
    done = 0
    workers = [f"AW{i:04d}" for i in range(WORKERS)]
    while done < HITS * SLOTS:
        for worker in workers:
            done += one_assignment(client, worker, rng)
    return done


def service_with_hits(directory: Path) -> Flask:
    """A fresh service holding HITS open HITs of SLOTS assignments, as harness launches them."""
    app = create_app(Settings(db_path=directory / "m.sqlite", starting_balance=Decimal(100000)))
    client = app.test_client()
    hit_type = requester(
        client,
        "CreateHITType",
        {
            "Title": "t",
            "Description": "d",
            "Reward": "0.50",
            "AssignmentDurationInSeconds": 600,
            "QualificationRequirements": REQUIREMENTS,
        },
    )["HITTypeId"]
    for _ in range(HITS):
        requester(
            client,
            "CreateHITWithHITType",
            {
                "HITTypeId": hit_type,
                "MaxAssignments": SLOTS,
                "LifetimeInSeconds": 3600,
                "Question": QUESTION,
            },
        )
    return app


def count_service_cpu(app: Flask) -> list[float]:
    """Make `app` add the CPU time it spends answering (without the test client's) to the one
    number in the returned list."""
    spent = [0.0]
    answer = app.wsgi_app

    def timed(environ: Any, start_response: Any) -> Any:
        start = time.process_time()
        try:
            return answer(environ, start_response)
        finally:
            spent[0] += time.process_time() - start

    app.wsgi_app = timed  # type: ignore[method-assign]
    return spent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    app = service_with_hits(Path(tempfile.mkdtemp(prefix="bench-mturk-cpu-")))
    client = app.test_client()
    service_cpu = count_service_cpu(app)
    profile = cProfile.Profile() if args.profile else None
    start = time.process_time()
    if profile is not None:
        profile.enable()
    done = crowd(client, random.Random(0))
    if profile is not None:
        profile.disable()
    spent = time.process_time() - start
    print(
        f"{done} assignments: {1000 * spent / done:.2f} ms of CPU per assignment "
        f"({1000 * service_cpu[0] / done:.2f} ms in the service, the rest in the test client)"
    )
    if profile is not None:
        pstats.Stats(profile).sort_stats("cumulative").print_stats(40)
    app.extensions["mturk_local"].close()


if __name__ == "__main__":
    main()
