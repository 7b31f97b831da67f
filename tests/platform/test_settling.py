"""Claims are settled together, a single one as a batch of one: one transaction, a fixed
handful of statements whatever their number, and exactly what settling them one at a time
stores; an assignment stored already, answers that differ from the platform's copy and a row
settled meanwhile are settled in the same batch, and a batch that fails settles nothing, so
the rechecks settle each claim alone."""

from __future__ import annotations

from datetime import timedelta

import pytest
import sqlalchemy as sa
from sqlmodel import select

from harness.answer import Answer
from harness.consent import consent_hash
from harness.platform.submissions.rechecks import Rechecks
from harness.platform.submissions.settling import Settled, settle
from harness.platform.verification import Verdict, Verification, Verifier
from harness.render.answers import encode_answers
from harness.spec import load_spec
from harness.store import create_study, session_scope, study_judgments
from harness.store.events import EventKind
from harness.store.hits import add_planned_hits
from harness.store.models import (
    Assignment,
    Event,
    Hit,
    QuarantinedSubmission,
    QuarantineState,
    aware,
)
from harness.store.posted import hit_facts, hit_items
from harness.store.quarantine import quarantine
from harness.store.submissions import store_submission
from tests.clock import minutes_ago
from tests.factories import MINIMAL_ITEMS, MINIMAL_RATING_SPEC, write_spec

T0 = minutes_ago()
CONFIRMS = "MTurk confirms the worker and the HIT"
WORKERS = ("W1", "W2")


def _answers(keys: list[str], offset: float) -> list[Answer]:
    return [
        Answer(
            k,
            i,
            float(i) + offset,
            shown_at=T0 + timedelta(seconds=10 * i),
            answered_at=T0 + timedelta(seconds=10 * i + 4),
        )
        for i, k in enumerate(keys)
    ]


@pytest.fixture
def claims(engine, tmp_path) -> dict[int, tuple[Verification, Hit]]:
    """Two workers' quarantined claims on each of three HITs of one study, each verified by
    the platform (with its copy of the answers): row id -> (the platform's answer, the HIT)."""
    (tmp_path / "items.csv").write_text(MINIMAL_ITEMS)
    loaded = load_spec(write_spec(tmp_path, MINIMAL_RATING_SPEC))
    keys = loaded.items["item_id"].tolist()
    out = {}
    with session_scope(engine) as session:
        study = create_study(session, loaded)
        hits = add_planned_hits(session, study, [keys[:2], keys[1:3], keys[2:]], max_assignments=2)
        for hit in hits:
            hit.platform_hit_id = f"PH{hit.index}"  # posted: what a HIT is when claims arrive
            session.add(hit)
            session.flush()
            for n, worker in enumerate(WORKERS):
                answers = _answers(hit.items, offset=n + hit.index)
                row_id, _ = quarantine(
                    session,
                    study_id=study.id,
                    hit_id=hit.id,
                    assignment_id=f"A{hit.index}{worker}",
                    worker_id=worker,
                    fields=list(encode_answers(answers).items()),
                    reason="not submitted yet",
                )
                out[row_id] = (
                    Verification(Verdict.VERIFIED, CONFIRMS, platform_answers=tuple(answers)),
                    hit,
                )
    return out


class Statements:
    def __init__(self, engine) -> None:
        self.count = 0
        sa.event.listen(engine, "before_cursor_execute", self._seen)

    def _seen(self, *_args) -> None:
        self.count += 1


def _stored(engine) -> tuple[list[tuple], list[tuple], list[tuple]]:
    """The judgments, the events and the quarantined rows as settling left them, by assignment."""
    with session_scope(engine) as session:
        study_id = session.exec(select(Hit.study_id)).first()
        table = study_judgments(session, study_id)
        judgments = sorted(
            table[
                ["assignment_id", "worker_id", "item_id", "position", "value", "role", "seconds"]
            ].itertuples(index=False, name=None)
        )
        events = sorted(
            (e.kind, e.subject, tuple(sorted(e.payload.items())))
            for e in session.exec(select(Event))
            if e.kind is not EventKind.ASSIGNMENT_QUARANTINED
        )
        rows = sorted(
            (r.platform_assignment_id, r.state, r.reason, r.recheck_at)
            for r in session.exec(select(QuarantinedSubmission))
        )
    return judgments, events, rows


def _all(claims):
    return [(i, checked, hit) for i, (checked, hit) in sorted(claims.items())]


def test_verified_claims_are_settled_together_in_a_bounded_number_of_statements(engine, claims):
    with session_scope(engine) as session:  # what every request reads once per process
        for _, hit in claims.values():
            hit_items(session, hit, hit_facts(session, hit).instrument_id, hit.items)
    counter = Statements(engine)
    with session_scope(engine) as session:
        settled = settle(session, _all(claims))
    assert set(settled) == set(claims)
    assert {s.state for s in settled.values()} == {QuarantineState.VERIFIED}
    assert len({s.assignment_pk for s in settled.values()}) == len(claims)
    # rows, stored assignments, resolve, its events, workers (read, insert, read again),
    # assignments, judgments, their events (10): the same for 6 claims as for 60, so fewer
    # than a statement per claim would add
    assert counter.count <= 14
    judgments, events, rows = _stored(engine)
    assert len(judgments) == 2 * len(claims)
    assert [kind for kind, *_ in events].count("assignment.submitted") == len(claims)
    assert {(state, reason) for _, state, reason, _ in rows} == {
        (QuarantineState.VERIFIED, CONFIRMS)
    }


def test_settling_together_stores_what_settling_one_by_one_stores(engine, claims):
    with session_scope(engine) as session:
        for claim in _all(claims):
            settle(session, [claim])  # a batch of one
    one_by_one = _stored(engine)
    with session_scope(engine) as session:  # back as they were quarantined
        for kind in (EventKind.ASSIGNMENT_SUBMITTED, EventKind.QUARANTINE_RESOLVED):
            session.execute(sa.delete(Event.__table__).where(Event.__table__.c.kind == kind))
        session.execute(sa.text("DELETE FROM judgment"))
        session.execute(sa.text("DELETE FROM assignment"))
        session.execute(
            sa.update(QuarantinedSubmission.__table__).values(
                state=QuarantineState.PENDING.name, reason="not submitted yet", resolved_at=None
            )
        )
    with session_scope(engine) as session:
        settle(session, _all(claims))
    assert _stored(engine) == one_by_one


def test_a_stored_assignment_a_different_copy_and_a_settled_row_are_settled_as_one(engine, claims):
    ids = sorted(claims)
    stored, differs, gone = ids[0], ids[1], ids[2]
    with session_scope(engine) as session:
        row = session.get(QuarantinedSubmission, stored)
        checked, hit = claims[stored]
        store_submission(
            session,
            hit,
            row.platform_assignment_id,
            row.platform_worker_id,
            list(checked.platform_answers),
        )  # a sync stored it
        table = QuarantinedSubmission.__table__  # settled meanwhile:
        session.execute(sa.update(table).where(table.c.id == gone).values(state="REFUSED"))
    checked, hit = claims[differs]
    other = tuple(Answer(a.item_key, a.position, 9.0) for a in checked.platform_answers)
    claims[differs] = (Verification(Verdict.VERIFIED, CONFIRMS, platform_answers=other), hit)
    with session_scope(engine) as session:
        settled = settle(session, _all(claims))
    assert settled[stored] == Settled(QuarantineState.VERIFIED)  # from the platform's record
    assert settled[differs] == Settled(QuarantineState.REFUSED)
    assert settled[gone] is None
    assert {settled[i].state for i in ids[3:]} == {QuarantineState.VERIFIED}


class Confirms(Verifier):
    """A platform that verifies every claim, with ``copies`` as its copies of the answers."""

    def __init__(self, copies) -> None:
        super().__init__()
        self.copies = copies

    def asking_many(self, session, study, hit, claims):
        answers = [self.copies[a] for a, _ in claims]
        return lambda: answers


def test_a_failed_batch_is_rolled_back_and_every_claim_settled_one_by_one(engine, claims):
    with session_scope(engine) as session:
        rows = {r.platform_assignment_id: r for r in session.exec(select(QuarantinedSubmission))}
        bad = rows["A0W1"]  # its answers name an item its instrument lacks: the batch fails
        bad.fields = [[k, "zz" if k.startswith("item-") else v] for k, v in bad.fields]
        session.add(bad)
    by_id = {r.id: a for a, r in rows.items()}
    copies = {by_id[i]: Verification(Verdict.VERIFIED, CONFIRMS) for i in claims}
    rechecks = Rechecks(engine, Confirms(copies), after_submission=None)
    try:
        settled = rechecks.recheck_many(sorted(claims))
    finally:
        rechecks.close()
    assert bad.id not in settled  # its batch of one failed, logged; its next is due
    assert {s.state for s in settled.values()} == {QuarantineState.VERIFIED}
    assert len(settled) == len(claims) - 1
    judgments, _, _ = _stored(engine)
    assert len(judgments) == 2 * (len(claims) - 1)


def test_a_settled_assignment_keeps_the_platforms_acceptance_before_its_submission(engine, claims):
    """Issue 39: the acceptance is the platform's time (it was the moment harness stored the
    answers, after their submission); one the platform does not give is the submission's."""
    accepted = minutes_ago(30)
    ids = sorted(claims)
    for row_id in ids[:-1]:
        checked, hit = claims[row_id]
        claims[row_id] = (
            Verification(
                Verdict.VERIFIED,
                CONFIRMS,
                platform_answers=checked.platform_answers,
                accepted_at=accepted,
            ),
            hit,
        )
    with session_scope(engine) as session:
        settle(session, _all(claims))
    with session_scope(engine) as session:
        received = {
            r.platform_assignment_id: aware(r.received_at)
            for r in session.exec(select(QuarantinedSubmission))
        }
        times = {
            a.platform_assignment_id: (aware(a.accepted_at), aware(a.submitted_at))
            for a in session.exec(select(Assignment))
        }
        last = session.get(QuarantinedSubmission, ids[-1]).platform_assignment_id
    assert {a: s for a, (_, s) in times.items()} == received  # when harness received them
    assert {a: t for a, (t, _) in times.items() if a != last} == dict.fromkeys(
        set(times) - {last}, accepted
    )
    assert times[last][0] == times[last][1]  # no acceptance time given: the submission's


def test_a_consent_quarantined_with_the_answers_is_stored_with_the_assignment(engine, tmp_path):
    """A study asking consent, on a platform that vouches later (MTurk): the consent posted
    with the answers waits with them in quarantine and reaches the assignment once settled."""
    (tmp_path / "items.csv").write_text(MINIMAL_ITEMS)
    loaded = load_spec(write_spec(tmp_path, MINIMAL_RATING_SPEC + "consent: I agree.\n"))
    keys = loaded.items["item_id"].tolist()
    given = T0 + timedelta(seconds=3)
    digest = consent_hash("I agree.")
    with session_scope(engine) as session:
        study = create_study(session, loaded)
        (hit,) = add_planned_hits(session, study, [keys[:2]], max_assignments=1)
        hit.platform_hit_id = "PH0"
        session.add(hit)
        session.flush()
        answers = _answers(hit.items, offset=0)
        consent = {"consent": digest, "consentedAt": str(round(given.timestamp() * 1000))}
        row_id, _ = quarantine(
            session,
            study_id=study.id,
            hit_id=hit.id,
            assignment_id="AC",
            worker_id="W1",
            fields=list((encode_answers(answers) | consent).items()),
            reason="not submitted yet",
        )
        checked = Verification(Verdict.VERIFIED, CONFIRMS, platform_answers=tuple(answers))
    with session_scope(engine) as session:
        settle(session, [(row_id, checked, session.get(Hit, hit.id))])
    with session_scope(engine) as session:
        stored = session.exec(select(Assignment).where(Assignment.platform_assignment_id == "AC"))
        assignment = stored.one()
        assert assignment.consent_hash == digest
        assert aware(assignment.consented_at) == given
