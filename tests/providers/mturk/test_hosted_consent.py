"""Consent on pages MTurk hosts (HTMLQuestion): the answers come back through `harness sync`,
and the consent the page posted with them is stored with the assignment as the task server
stores it for its own pages; answers without a consent to the study's text are not stored."""

from __future__ import annotations

import hashlib
import json
import re
from datetime import UTC, timedelta

from sqlmodel import select

from harness.answer import Answer
from harness.clock import utcnow
from harness.render.answers import encode_answers, write_millis
from harness.simulate.answering import shown_keys
from harness.store import make_engine, session_scope
from harness.store.models import Assignment, Event, EventKind, Judgment
from tests.platform.factories import WORKER_PROFILE, harness_cli, launch_args, small_spec

CONSENT = "I agree to take part, and know I can **withdraw** at any time."
DIGEST = hashlib.sha256(CONSENT.encode()).hexdigest()


def _work(mturk, http, hit_id: str, worker: str, **consent: str) -> str:
    """Accept ``hit_id`` as ``worker``, answer every item and submit to MTurk with the page's
    fields and ``consent``'s; the assignment id."""
    accepted = http.post(
        f"{mturk.url}/worker/hits/{hit_id}/accept", data={"workerId": worker, **WORKER_PROFILE}
    )
    assert accepted.status_code == 200, accepted.text
    task = accepted.json()
    assert task["QuestionType"] == "HTMLQuestion"
    start = utcnow() - timedelta(seconds=60)
    answers = [
        Answer(key, p, 5.0, shown_at=start, answered_at=start + timedelta(seconds=5 * p + 3))
        for p, key in enumerate(shown_keys(task["HTMLContent"]))
    ]
    fields = {"assignmentId": task["AssignmentId"]} | encode_answers(answers) | consent
    submitted = http.post(task["SubmitURL"], data=fields)
    assert submitted.status_code == 200, submitted.text
    return str(task["AssignmentId"])


def test_sync_stores_the_consent_an_mturk_hosted_page_posted(tmp_path, mturk, http, client):
    db = f"sqlite:///{tmp_path / 'harness.db'}"
    assert harness_cli("db", "upgrade", "--db", db).exit_code == 0
    spec = small_spec(tmp_path, items=4, per_hit=2, raters=3, consent=json.dumps(CONSENT))
    launched = harness_cli(*launch_args(spec, mturk.url, db))
    assert launched.exit_code == 0, launched.output
    hit_id = client.list_hits()["HITs"][0]["HITId"]
    page = client.get_hit(HITId=hit_id)["HIT"]["Question"]
    assert re.search(rf'"consent": "{DIGEST}"', page)  # the page posts the hash it shows
    given = utcnow().replace(microsecond=0) - timedelta(seconds=90)
    agreed = _work(mturk, http, hit_id, "A1AGREES", consent=DIGEST, consentedAt=write_millis(given))
    silent = _work(mturk, http, hit_id, "A2SILENT")
    other = _work(mturk, http, hit_id, "A3OTHER", consent="0" * 64, consentedAt=write_millis(given))

    synced = harness_cli("sync", "small", "--db", db)
    assert synced.exit_code == 0, synced.output
    assert "3 submitted assignments; 1 stored now" in synced.output
    assert "2 unreadable" in synced.output
    engine = make_engine(db)
    try:
        with session_scope(engine) as session:
            rows = {
                a.platform_assignment_id: a
                for a in session.exec(select(Assignment))
                if a.platform_assignment_id in (agreed, silent, other)
            }
            assert rows[agreed].consent_hash == DIGEST
            assert rows[agreed].consented_at is not None
            assert rows[agreed].consented_at.replace(tzinfo=UTC) == given
            stored = {j.assignment_id for j in session.exec(select(Judgment)) if j.assignment_id}
            assert stored == {rows[agreed].id}  # the others' answers are not stored
            invalid = {
                e.subject: e.payload["problems"]
                for e in session.exec(
                    select(Event).where(Event.kind == EventKind.ASSIGNMENT_INVALID)
                )
            }
    finally:
        engine.dispose()
    assert invalid == {
        silent: ["no consent was given: agree to the consent text before answering"],
        other: ["the consent given is to another text than this study's: reload the page"],
    }
    again = harness_cli("sync", "small", "--db", db)  # once: nothing stored twice
    assert "0 stored now" in again.output


def test_simulated_workers_agree_to_the_consent_and_every_submission_is_stored(tmp_path, mturk):
    db = f"sqlite:///{tmp_path / 'harness.db'}"
    spec = small_spec(tmp_path, items=4, per_hit=2, raters=3, consent=json.dumps(CONSENT))
    assert harness_cli(*launch_args(spec, mturk.url, db)).exit_code == 0
    worked = harness_cli(
        "simulate-workers", "small", "--db", db, "--size", "3", "--mix", "careful=1"
    )
    assert "small: 6 assignments submitted by 3 simulated workers" in worked.output
    synced = harness_cli("sync", "small", "--db", db)
    assert "6 stored now" in synced.output, synced.output
    engine = make_engine(db)
    try:
        with session_scope(engine) as session:
            assert {a.consent_hash for a in session.exec(select(Assignment))} == {DIGEST}
    finally:
        engine.dispose()
