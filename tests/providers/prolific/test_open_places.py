"""Every open place on Prolific is usable: a place a rejection frees is work for the next
participant, and a participant harness cannot serve is told to return the study."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
import requests

from harness.providers.prolific.client import ProlificClient
from harness.providers.prolific.provider import ProlificProvider
from harness.store import launched_study, make_engine, session_scope
from harness.store.allocation import Allocation, Refusal, Refused, allocate
from tests.platform.factories import harness_cli
from tests.web.dashboard.factories import STUDY, LivePlacesStudy, events


@pytest.fixture
def full(tmp_path: Any) -> Any:
    """One HIT of two places on the local Prolific service, both submitted."""
    live = LivePlacesStudy(tmp_path, "prolific-local", items=2, per_hit=2, raters=2).start()
    live.crowd(size=2)
    yield live
    live.stop()


def _newcomer(live: LivePlacesStudy, who: str) -> Allocation | Refused:
    engine = make_engine(live.db)
    try:
        with session_scope(engine) as session:
            study = launched_study(session, STUDY)
            return allocate(session, study.id, who, f"S-{who}", hold=timedelta(minutes=5))
    finally:
        engine.dispose()


def test_a_place_a_rejection_frees_is_work_for_the_next_participant(full):
    live = full
    refused = _newcomer(live, "5fnewcomer00000000000001")
    assert isinstance(refused, Refused) and refused.reason is Refusal.FULL
    provider = ProlificProvider(ProlificClient(live.endpoint, "local"), "prolific-local")
    [study] = provider.client.pages("studies/")
    rejected = provider.study_submissions(study["id"])[0].assignment_id
    provider.reject(rejected, "The answers did not pass the study's checks.")
    synced = harness_cli("sync", STUDY, "--db", live.db)
    assert synced.exit_code == 0, synced.output
    assert [e.subject for e in events(live.db, "slot.released")] == [rejected]
    assert isinstance(_newcomer(live, "5fnewcomer00000000000002"), Allocation)
    again = harness_cli("sync", STUDY, "--db", live.db)  # reopened once
    assert again.exit_code == 0 and len(events(live.db, "slot.released")) == 1


def test_a_participant_with_no_work_is_told_to_return_the_study(full):
    live = full
    auth = {"Authorization": "Token local"}
    base = f"{live.endpoint}/api/v1"
    [study] = requests.get(f"{base}/studies/", headers=auth, timeout=10).json()["results"]
    requests.patch(  # a place added on Prolific's website: harness has no work for it
        f"{base}/studies/{study['id']}/",
        json={"total_available_places": 3},
        headers=auth,
        timeout=10,
    ).raise_for_status()
    joined = requests.post(
        f"{live.endpoint}/participant/studies/{study['id']}/join",
        data={"participant_id": "5flate"},
        timeout=10,
    )
    assert joined.status_code == 201, joined.text
    page = requests.get(joined.json()["study_url"], timeout=10)
    assert "No task for you" in page.text
    assert (
        "Please return this study on Prolific (its &#34;Return&#34; button), so that your "
        "place goes to someone else; returning is not held against you." in page.text
    )
