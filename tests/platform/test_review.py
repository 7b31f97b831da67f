"""Review actions: each done once however often asked, each logged with its reason, no
assignment rejected after the platform auto-approved it, and a participant who withdrew approved
(paid) and never penalised: screening's block, reject and return for them overruled with the
reason."""

from __future__ import annotations

from decimal import Decimal

import pytest
from sqlmodel import select

from harness.errors import PlatformError
from harness.platform import actions, bonuses, decisions, review
from harness.providers.mturk import MTurkProvider, make_client
from harness.spec.model import Action
from harness.store import make_engine, session_scope, study_judgments
from harness.store.decisions import pending_decisions
from harness.store.models import (
    Assignment,
    AssignmentStatus,
    DecisionState,
    Event,
    Hit,
    ScreeningDecision,
    Study,
    Worker,
)
from harness.store.studies import launched as launched_row
from harness.store.withdrawals import withdraw
from tests.factories import migrated_sqlite
from tests.platform.test_sync import launch_and_work

AUTO_APPROVAL = 86400  # small_spec's auto_approval_delay: 1d


@pytest.fixture
def launched(tmp_path, mturk, http):
    """A small mturk-hosted study, launched, done by 4 simulated workers, synced."""
    from tests.platform.factories import harness_cli

    db = migrated_sqlite(tmp_path / "h.db")
    launch_and_work(tmp_path, mturk, http, db)
    assert harness_cli("sync", "small", "--db", db).exit_code == 0
    engine = make_engine(db)
    yield engine, MTurkProvider(make_client("local", mturk.url), "local")
    engine.dispose()


def study_and_assignments(session):
    study = launched_row(session, session.exec(select(Study)).one())
    assignments = session.exec(select(Assignment).order_by(Assignment.id)).all()
    return study, assignments


def events(session, kind):
    return session.exec(select(Event).where(Event.kind == kind).order_by(Event.id)).all()


def test_approving_twice_approves_once_and_logs_the_reason(launched, client):
    engine, provider = launched
    with session_scope(engine) as session:
        study, assignments = study_and_assignments(session)
        first = actions.approve(session, provider, study, assignments[0], "good work")
        second = actions.approve(session, provider, study, assignments[0], "good work")
        assert (first, second) == (True, False)
        assert [e.payload["reason"] for e in events(session, "review.approved")] == ["good work"]
        assert len(events(session, "review.approve.intent")) == 1
        aid = assignments[0].platform_assignment_id
    assert client.get_assignment(AssignmentId=aid)["Assignment"]["AssignmentStatus"] == "Approved"


def test_a_rejection_carries_feedback_a_worker_can_understand(launched, client):
    engine, provider = launched
    feedback = decisions.rejection_feedback("calibration_failure")
    assert "a word paired with itself" in feedback
    assert "contact us" in feedback
    with session_scope(engine) as session:
        study, assignments = study_and_assignments(session)
        assert actions.reject(session, provider, study, assignments[0], feedback, "H10 failed")
        assert not actions.reject(session, provider, study, assignments[0], feedback, "H10 failed")
        aid = assignments[0].platform_assignment_id
        assert assignments[0].status is AssignmentStatus.REJECTED
    got = client.get_assignment(AssignmentId=aid)["Assignment"]
    assert got["AssignmentStatus"] == "Rejected"
    assert got["RequesterFeedback"] == feedback


def test_an_auto_approved_assignment_is_never_rejected(launched, mturk, client):
    engine, provider = launched
    mturk.advance(AUTO_APPROVAL + 60)
    with session_scope(engine) as session:
        study, assignments = study_and_assignments(session)
        target = assignments[0]
        assert target.status is AssignmentStatus.SUBMITTED  # the store has not seen it yet
        done = actions.reject(
            session,
            provider,
            study,
            target,
            decisions.rejection_feedback("quick", 2.0),
            "H2 failed",
        )
        assert done is False
        assert target.status is AssignmentStatus.APPROVED
        refused = events(session, "review.reject.refused")
        assert [e.subject for e in refused] == [target.platform_assignment_id]
        assert "auto-approval" in refused[0].payload["why"]
        assert events(session, "review.reject.intent") == []
        again = actions.reject(session, provider, study, target, "feedback", "H2 failed")
        assert again is False
        assert len(events(session, "review.reject.refused")) == 1
    status = client.get_assignment(AssignmentId=target.platform_assignment_id)["Assignment"]
    assert status["AssignmentStatus"] == "Approved"


def test_a_bonus_is_paid_once_per_assignment_amount_and_reason(launched, client):
    engine, provider = launched
    with session_scope(engine) as session:
        study, assignments = study_and_assignments(session)
        a = assignments[1]
        assert bonuses.pay_bonus(session, provider, study, a, Decimal("0.25"), "careful work")
        assert not bonuses.pay_bonus(session, provider, study, a, Decimal("0.25"), "careful work")
        assert bonuses.pay_bonus(session, provider, study, a, Decimal("0.10"), "second round")
        aid = a.platform_assignment_id
        paid = events(session, "review.bonus")
        assert [(e.payload["amount"], e.payload["cost"]) for e in paid] == [
            ("0.25", "0.30"),
            ("0.10", "0.12"),
        ]
    listed = client.list_bonus_payments(AssignmentId=aid)["BonusPayments"]
    assert sorted(b["BonusAmount"] for b in listed) == ["0.10", "0.25"]


def test_a_repeated_bonus_after_a_lost_record_is_not_paid_twice(launched, client):
    """The platform's token catches what the log missed (a crash between call and record)."""
    engine, provider = launched
    with session_scope(engine) as session:
        study, assignments = study_and_assignments(session)
        a = assignments[1]
        worker = session.get(Worker, a.worker_id)
        token = bonuses.bonus_token(a, Decimal("0.25"), "careful work")
        provider.bonus(
            worker.platform_worker_id,
            a.platform_assignment_id,
            Decimal("0.25"),
            "careful work",
            token,
        )
        assert bonuses.pay_bonus(session, provider, study, a, Decimal("0.25"), "careful work")
        aid = a.platform_assignment_id
    assert len(client.list_bonus_payments(AssignmentId=aid)["BonusPayments"]) == 1


def test_blocking_hides_the_studys_remaining_work_without_notifying(launched, mturk):
    engine, provider = launched
    with session_scope(engine) as session:
        study, _ = study_and_assignments(session)
        hit = session.exec(select(Hit).order_by(Hit.index)).first()
        actions.add_raters(session, provider, study, hit, 1, "room for one more worker")
        assert actions.block_worker(session, provider, study, "AW001", "low_variance")
        assert not actions.block_worker(session, provider, study, "AW001", "low_variance")
    visible = mturk.get("/worker/hits", workerId="AW001").json()["HITs"]
    assert visible == []
    assert mturk.get("/worker/messages", workerId="AW001").json()["Messages"] == []
    others = mturk.get("/worker/hits", workerId="AW999").json()["HITs"]
    assert [h["HITId"] for h in others] == [hit.platform_hit_id]


def test_replacing_adds_one_assignment_once_per_reason(launched, client):
    engine, provider = launched
    with session_scope(engine) as session:
        study, _ = study_and_assignments(session)
        hit = session.exec(select(Hit).order_by(Hit.index)).first()
        assert actions.add_raters(session, provider, study, hit, 1, "replaces A1")
        assert not actions.add_raters(session, provider, study, hit, 1, "replaces A1")
        assert hit.max_assignments == 3
        hit_id = hit.platform_hit_id
    assert client.get_hit(HITId=hit_id)["HIT"]["MaxAssignments"] == 3


def test_replacing_refuses_to_take_a_hit_from_9_to_10_assignments(launched, client):
    engine, provider = launched
    with session_scope(engine) as session:
        study, _ = study_and_assignments(session)
        hit = session.exec(select(Hit).order_by(Hit.index)).first()
        assert actions.add_raters(session, provider, study, hit, 7, "more raters")
        with pytest.raises(PlatformError, match="has 9 assignments; MTurk cannot raise it to 10"):
            actions.add_raters(session, provider, study, hit, 1, "one more")
        hit_id = hit.platform_hit_id
    assert client.get_hit(HITId=hit_id)["HIT"]["MaxAssignments"] == 9


def decision(session, study, assignment, action, heuristic="calibration_failure"):
    row = ScreeningDecision(
        study_id=study.id,
        worker_id=assignment.worker_id,
        assignment_id=assignment.id,
        heuristic=heuristic,
        score=1.0,
        threshold=0.0,
        flag=True,
        action=Action(action),
        state=DecisionState.PENDING,
    )
    session.add(row)
    session.flush()
    return row


def test_pending_screening_decisions_are_applied_once(launched, client, mturk):
    engine, provider = launched
    with session_scope(engine) as session:
        study, assignments = study_and_assignments(session)
        rejected, replaced, blocked = assignments[0], assignments[1], assignments[2]
        decision(session, study, rejected, "reject")
        decision(session, study, replaced, "replace", "low_correlation")
        decision(session, study, blocked, "block", "low_variance")
        session.commit()
        done = decisions.apply_pending_decisions(session, provider, study)
        assert sorted(a.kind for a in done) == ["block", "reject", "replace"]
        assert decisions.apply_pending_decisions(session, provider, study) == []
        assert {d.state for d in session.exec(select(ScreeningDecision))} == {DecisionState.APPLIED}
        assert len(events(session, "screening.applied")) == 3
        blocked_worker = session.get(Worker, blocked.worker_id).platform_worker_id
        replaced_hit = session.get(Hit, replaced.hit_id).platform_hit_id
        rejected_id = rejected.platform_assignment_id
    assert client.get_assignment(AssignmentId=rejected_id)["Assignment"]["AssignmentStatus"] == (
        "Rejected"
    )
    assert client.get_hit(HITId=replaced_hit)["HIT"]["MaxAssignments"] == 3
    assert mturk.get("/worker/hits", workerId=blocked_worker).json()["HITs"] == []


def test_review_dry_run_lists_the_actions_and_does_nothing(launched, client):
    engine, provider = launched
    with session_scope(engine) as session:
        study, assignments = study_and_assignments(session)
        decision(session, study, assignments[0], "reject")
        session.commit()
        planned = review.review_study(session, provider, study, dry_run=True)
        assert [a.kind for a in planned] == ["reject"] + ["approve"] * 7
        assert all(a.status is AssignmentStatus.SUBMITTED for a in assignments)
        assert events(session, "review.approved") == []
        done = review.review_study(session, provider, study)
        assert sorted(a.kind for a in done) == ["approve"] * 7 + ["reject"]
        assert review.review_study(session, provider, study) == []


def test_workers_of_an_excluded_study_cannot_see_the_new_one(tmp_path, mturk, http, client):
    """`qualifications.exclude_studies`: earlier workers join the new study's exclusion group."""
    from harness.spec import load_spec
    from tests.platform.factories import harness_cli, launch_args, small_spec

    db = migrated_sqlite(tmp_path / "h.db")
    first_dir, second_dir = tmp_path / "a", tmp_path / "b"
    first_dir.mkdir()
    second_dir.mkdir()
    _, report = launch_and_work(first_dir, mturk, http, db)
    earlier = set(report.by_worker)
    assert harness_cli("sync", "small", "--db", db).exit_code == 0  # the store knows them
    spec = small_spec(second_dir, name="follow-up", qualifications="{exclude_studies: [small]}")
    launched = harness_cli(*launch_args(spec, mturk.url, db))
    assert launched.exit_code == 0, launched.output
    follow_up = {
        h["HITId"]
        for h in client.list_hits(MaxResults=100)["HITs"]
        if "study=follow-up" in h["RequesterAnnotation"]
    }
    assert len(follow_up) == len(load_spec(spec).items) // 2
    for worker in earlier:
        seen = {h["HITId"] for h in mturk.get("/worker/hits", workerId=worker).json()["HITs"]}
        assert not seen & follow_up
        assert mturk.get("/worker/messages", workerId=worker).json()["Messages"] == []
    newcomer = {h["HITId"] for h in mturk.get("/worker/hits", workerId="ANEW").json()["HITs"]}
    assert newcomer == follow_up
    engine = make_engine(db)
    try:
        with session_scope(engine) as session:
            excluded = {e.subject for e in events(session, "worker.excluded")}
    finally:
        engine.dispose()
    assert excluded == earlier


def test_a_flag_raised_and_since_cleared_is_not_carried_out(launched):
    engine, provider = launched
    with session_scope(engine) as session:
        study, assignments = study_and_assignments(session)
        decision(session, study, assignments[0], "block", "low_variance")
        cleared = decision(session, study, assignments[0], "block", "low_variance")
        cleared.flag = False
        session.commit()
        assert pending_decisions(session, study.id) == []
        assert decisions.apply_pending_decisions(session, provider, study) == []


def test_replacing_never_takes_the_study_over_its_budget(launched, client):
    engine, provider = launched
    with session_scope(engine) as session:
        study, _ = study_and_assignments(session)
        hit = session.exec(select(Hit).order_by(Hit.index)).first()
        study.study.budget = Decimal("1.00")  # committed: 4 HITs x 2 x $0.12 = $0.96
        session.commit()
        assert not actions.add_raters(session, provider, study, hit, 1, "replaces A1")
        assert not actions.add_raters(session, provider, study, hit, 1, "replaces A1")
        refused = events(session, "review.replace.refused")
        assert len(refused) == 1
        assert refused[0].payload["why"] == "committed would be $1.08, over the budget $1.00"
        study.study.budget = Decimal("1.08")
        session.commit()
        assert actions.add_raters(session, provider, study, hit, 1, "replaces A1")
        hit_id = hit.platform_hit_id
    assert client.get_hit(HITId=hit_id)["HIT"]["MaxAssignments"] == 3


def test_a_rejection_waits_until_the_platform_has_the_submission(launched, mturk, client):
    from harness.store.submissions import accept

    engine, provider = launched
    with session_scope(engine) as session:
        study, assignments = study_and_assignments(session)
        hit = session.exec(select(Hit).order_by(Hit.index)).first()
        actions.add_raters(session, provider, study, hit, 1, "room for one more worker")
        accepted = mturk.accept(hit.platform_hit_id, "ALATE1")["AssignmentId"]
        waiting = accept(session, hit, accepted, "ALATE1")[0]
        waiting.status = AssignmentStatus.SUBMITTED  # as the task server marks it
        decision(session, study, waiting, "reject")
        decision(session, study, assignments[0], "block", "low_variance")
        session.commit()
        done = decisions.apply_pending_decisions(session, provider, study)
        assert [a.kind for a in done] == ["block"]
        assert [d.action for d in pending_decisions(session, study.id)] == ["reject"]
        mturk.submit(accepted)
        done = decisions.apply_pending_decisions(session, provider, study)
        assert [a.kind for a in done] == ["reject"]
        assert pending_decisions(session, study.id) == []
    state = client.get_assignment(AssignmentId=accepted)["Assignment"]["AssignmentStatus"]
    assert state == "Rejected"


def test_review_prints_the_counts_and_every_action_only_when_asked(tmp_path, mturk, http):
    from tests.platform.factories import harness_cli

    db = migrated_sqlite(tmp_path / "h.db")
    launch_and_work(tmp_path, mturk, http, db)
    assert harness_cli("sync", "small", "--db", db, "--no-apply-decisions").exit_code == 0
    planned = harness_cli("review", "small", "--db", db, "--dry-run")
    assert planned.output.count("would approve ") == 8
    assert planned.output.strip().endswith("small: dry run, approve 8")
    done = harness_cli("review", "small", "--db", db)
    assert done.output.strip() == "small: approve 8"
    again = harness_cli("review", "small", "--db", db, "--verbose")
    assert again.output.strip() == "small: nothing to do"


# -- a participant who withdrew: approved (paid), never penalised ---------------------------
def _withdrawn_one(session, study, assignments):
    """The first assignment's worker withdraws; their platform id and assignments."""
    first = assignments[0]
    worker = session.get(Worker, first.worker_id).platform_worker_id
    assert withdraw(session, study.id, worker, first.platform_assignment_id)
    theirs = [a for a in assignments if a.worker_id == first.worker_id]
    return worker, theirs


def test_a_withdrawn_participants_work_is_approved_and_their_penalties_overruled(launched, client):
    engine, provider = launched
    with session_scope(engine) as session:
        study, assignments = study_and_assignments(session)
        worker, theirs = _withdrawn_one(session, study, assignments)
        decision(session, study, theirs[0], "reject")
        decision(session, study, theirs[0], "block", "low_variance")
        kept = next(a for a in assignments if a.worker_id != theirs[0].worker_id)
        decision(session, study, kept, "reject")  # someone who did not withdraw
        session.commit()

        planned = review.review_study(session, provider, study, dry_run=True)
        assert [(a.kind, a.subject) for a in planned if a.kind != "approve"] == [
            ("reject", kept.platform_assignment_id)
        ]
        approved = {a.subject for a in planned if a.kind == "approve"}
        assert {a.platform_assignment_id for a in theirs} <= approved

        done = review.review_study(session, provider, study)
        assert [a.kind for a in done if a.kind != "approve"] == ["reject"]
        assert {a.platform_assignment_id for a in theirs} <= {a.subject for a in done}
        states = {
            (d.worker_id, d.action.value): d.state for d in session.exec(select(ScreeningDecision))
        }
        assert states == {
            (theirs[0].worker_id, "reject"): DecisionState.OVERRULED,
            (theirs[0].worker_id, "block"): DecisionState.OVERRULED,
            (kept.worker_id, "reject"): DecisionState.APPLIED,
        }
        overruled = events(session, "screening.overruled")
        assert [e.subject for e in overruled] == [worker, worker]
        assert {e.payload["reason"] for e in overruled} == {decisions.WITHDREW}
        assert events(session, "worker.blocked") == []
        assert worker not in set(study_judgments(session, study.id)["worker_id"])
    for assignment in theirs:
        status = client.get_assignment(AssignmentId=assignment.platform_assignment_id)
        assert status["Assignment"]["AssignmentStatus"] == "Approved"
    assert client.list_worker_blocks()["WorkerBlocks"] == []


def test_a_withdrawn_participants_submission_is_never_rejected_by_hand(launched, client):
    engine, provider = launched
    with session_scope(engine) as session:
        study, assignments = study_and_assignments(session)
        _, theirs = _withdrawn_one(session, study, assignments)
        aid = theirs[0].platform_assignment_id
        assert not actions.reject(session, provider, study, theirs[0], "bad", "by hand")
        assert theirs[0].status is AssignmentStatus.SUBMITTED
        (refused,) = events(session, "review.reject.refused")
        assert (refused.subject, refused.payload["why"]) == (aid, actions.WITHDREW)
    assert client.get_assignment(AssignmentId=aid)["Assignment"]["AssignmentStatus"] == "Submitted"
