"""Many workers at once: a HIT's MaxAssignments is never exceeded and a worker never holds two
live assignments of one HIT, however the accepts interleave, and this is enforced by the
database (a conditional update takes a slot, a unique index refuses a second live assignment),
not by the service's write lock: the tests hold with the lock taken away."""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
import requests
from sqlalchemy import insert
from sqlalchemy.exc import IntegrityError

from harness.providers.mturk.local_service import models
from tests.providers.mturk.local_service.factories import LocalMTurk, hit_params

PROFILE = {"country": "US"}


class NoLock:
    """Stands in for the service's write lock: lets every thread through at once."""

    def __enter__(self) -> NoLock:
        return self

    def __exit__(self, *exc: object) -> None:
        return None


@pytest.fixture(params=["with the lock", "without the lock"])
def served(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[LocalMTurk]:
    """A service answering many requests at once (one thread each)."""
    service = LocalMTurk(tmp_path / "mturk.sqlite", threaded=True).start()
    if request.param == "without the lock":
        service.app.extensions["mturk_local"].lock = NoLock()
    yield service
    service.stop()


def accept(url: str, hit_id: str, worker_id: str, barrier: threading.Barrier) -> str:
    with requests.Session() as http:
        barrier.wait(timeout=120)
        r = http.post(
            f"{url}/worker/hits/{hit_id}/accept", data={"workerId": worker_id}, timeout=60
        )
    return "ok" if r.status_code == 200 else r.json()["code"]


def accept_all(url: str, hit_id: str, worker_ids: list[str]) -> Counter[str]:
    barrier = threading.Barrier(len(worker_ids))
    with ThreadPoolExecutor(len(worker_ids)) as pool:
        outcomes = pool.map(lambda w: accept(url, hit_id, w, barrier), worker_ids)
        return Counter(outcomes)


def test_concurrent_accepts_never_exceed_max_assignments(served: LocalMTurk) -> None:
    client = served.client()
    hit_id = client.create_hit(**hit_params(MaxAssignments=3))["HIT"]["HITId"]
    outcomes = accept_all(served.url, hit_id, [f"AW{i:03d}" for i in range(24)])
    assert outcomes == Counter({"ok": 3, "NotAssignable": 21})
    hit = client.get_hit(HITId=hit_id)["HIT"]
    assert hit["NumberOfAssignmentsPending"] == 3
    assert hit["NumberOfAssignmentsAvailable"] == 0


def test_one_worker_accepting_a_hit_many_times_at_once_gets_one_assignment(
    served: LocalMTurk,
) -> None:
    client = served.client()
    hit_id = client.create_hit(**hit_params(MaxAssignments=5))["HIT"]["HITId"]
    outcomes = accept_all(served.url, hit_id, ["ASAME"] * 12)
    assert outcomes == Counter({"ok": 1, "AlreadyAccepted": 11})
    assert client.get_hit(HITId=hit_id)["HIT"]["NumberOfAssignmentsAvailable"] == 4


def test_the_database_refuses_a_second_live_assignment_of_a_worker_and_hit(
    mturk: LocalMTurk, client: Any
) -> None:
    hit_id = client.create_hit(**hit_params())["HIT"]["HITId"]
    first = mturk.accept(hit_id, "AONE")["AssignmentId"]
    engine = mturk.app.extensions["mturk_local"].engine
    row = {"hit_id": hit_id, "worker_id": "AONE", "accept_time": 0.0, "deadline": 1.0}
    with pytest.raises(IntegrityError), engine.begin() as conn:
        conn.execute(insert(models.assignments).values(id="ATWO", status="Accepted", **row))
    mturk.post(f"/worker/assignments/{first}/return", workerId="AONE")
    with engine.begin() as conn:  # a returned assignment no longer counts
        conn.execute(insert(models.assignments).values(id="ATWO", status="Accepted", **row))


def test_a_new_profile_is_recorded_when_listing(mturk: LocalMTurk, client: Any) -> None:
    client.create_hit(
        **hit_params(
            QualificationRequirements=[
                {
                    "QualificationTypeId": "00000000000000000071",
                    "Comparator": "EqualTo",
                    "LocaleValues": [{"Country": "US"}],
                }
            ]
        )
    )
    assert (
        mturk.get("/worker/hits", workerId="AMOVER", country="DE").json()["HITs"][0]["canAccept"]
        is False
    )
    assert (
        mturk.get("/worker/hits", workerId="AMOVER", country="US").json()["HITs"][0]["canAccept"]
        is True
    )
    assert mturk.get("/worker/hits", workerId="AMOVER").json()["HITs"][0]["canAccept"] is True
