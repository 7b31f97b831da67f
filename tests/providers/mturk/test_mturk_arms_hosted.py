"""A study with arms on MTurk with MTurk hosting (issue #18, docs/arms.md "Arms on MTurk"):
harness first sees a worker in a submission, so sync gives them the arm of the HIT they took
first and tells MTurk, which from then on hides the other arms' HITs. Work a worker did in
another arm before that is paid, kept out of both arms (its answers kept in the event log) and
replaced, so every item still reaches its raters in every arm."""

from __future__ import annotations

import numpy as np
import pytest
from sqlmodel import select

from harness.providers.mturk.crowd import SimulatedWorkers, mturk_worker_id
from harness.simulate.answering import DriverReport
from harness.spec.arms import load_arms
from harness.store import make_engine, session_scope, study_judgments
from harness.store.arm_assignment import study_arms, worker_arm
from harness.store.models import Event, EventKind, Worker
from tests.platform.factories import (
    WORKER_PROFILE,
    crowd_workers,
    harness_cli,
    launch_args,
    small_spec,
    truths_of,
)
from tests.platform.test_sync import sqs  # noqa: F401  (moto's SQS server, a fixture)
from tests.providers.mturk.test_mturk_arms import _hits_by_arm

ARMS = {"arms": "\n  long: {}\n  short:\n    guidelines: {text: Similar words score high.}"}


def _events(database_url, kind):
    engine = make_engine(database_url)
    with session_scope(engine) as session:
        found = session.exec(select(Event).where(Event.kind == kind)).all()
    engine.dispose()
    return found


@pytest.mark.slow
def test_sync_gives_each_worker_the_arm_they_took_first_and_replaces_work_outside_it(
    tmp_path, mturk, client, database_url, http
):
    spec = small_spec(tmp_path, items=4, raters=2, hosting="mturk", **ARMS)
    launched = harness_cli(*launch_args(spec, mturk.url, database_url))
    assert launched.exit_code == 0, launched.output
    base = load_arms(spec).arms[0].loaded
    by_arm = _hits_by_arm(database_url)
    one, two, *rest = crowd_workers(base, size=6, seed=1)
    driver = SimulatedWorkers(
        mturk.url,
        [one, two, *rest],
        truths_of(base),
        base.scale,
        http,
        profile=WORKER_PROFILE,
        keep_group=True,
    )
    rng, report = np.random.default_rng(0), DriverReport()
    # before any sync, MTurk lets a worker take HITs of both arms: `one` takes long's first
    assert driver.work(one, by_arm["long"][0], rng, report)
    mturk.advance(1)
    assert driver.work(one, by_arm["short"][0], rng, report)
    mturk.advance(1)
    assert driver.work(two, by_arm["short"][0], rng, report)
    crossed = report.submitted[1]

    synced = harness_cli("sync", "small", "--db", database_url)
    assert synced.exit_code == 0, synced.output
    assert "3 submitted assignments; 2 stored now" in synced.output
    assert (
        "arms: 1 out-of-arm submissions (not counted), 1 assignments added for them, "
        "2 workers given their arm's qualification, 0 failures" in synced.output
    )
    engine = make_engine(database_url)
    with session_scope(engine) as session:
        arms = {}
        for worker in (one, two):
            row = session.exec(
                select(Worker).where(Worker.platform_worker_id == mturk_worker_id(worker.worker_id))
            ).one()
            arms[worker.worker_id] = worker_arm(session, 1, row.id)
        groups = {a.name: a.group_ref for a in study_arms(session, 1)}
        table = study_judgments(session, 1)
    engine.dispose()
    assert {k: a.name for k, a in arms.items()} == {one.worker_id: "long", two.worker_id: "short"}
    assert crossed not in set(table["assignment_id"])  # counted in no arm
    (event,) = _events(database_url, EventKind.ASSIGNMENT_OUT_OF_ARM)
    assert event.subject == crossed and event.payload["worker_arm"] == "long"
    assert event.payload["hit_arm"] == "short" and "<QuestionFormAnswers" in event.payload["answer"]
    assert client.get_hit(HITId=by_arm["short"][0])["HIT"]["MaxAssignments"] == 3  # replaced
    # MTurk itself keeps `one` from the arm short now, and `two` from long
    for worker, closed in ((one, "short"), (two, "long")):
        wid = mturk_worker_id(worker.worker_id)
        score = client.get_qualification_score(
            QualificationTypeId=groups[arms[worker.worker_id].name], WorkerId=wid
        )
        assert score["Qualification"]["Status"] == "Granted"
        refused = mturk.post(f"/worker/hits/{by_arm[closed][1]}/accept", workerId=wid)
        assert refused.status_code == 403 and "NotQualified" in refused.text

    again = harness_cli("sync", "small", "--db", database_url)  # nothing new, nothing twice
    assert "0 stored now" in again.output and "out-of-arm" not in again.output
    assert len(_events(database_url, EventKind.ASSIGNMENT_OUT_OF_ARM)) == 1
    status = harness_cli("status", "small", "--db", database_url)
    assert "1 out-of-arm submissions (not counted)" in status.output
    reviewed = harness_cli("review", "small", "--db", database_url)
    assert "approve 3" in reviewed.output  # the worker did the work: paid, though not counted
    assert client.get_assignment(AssignmentId=crossed)["Assignment"]["AssignmentStatus"] == (
        "Approved"
    )

    # the rest of the crowd, each keeping to the group of their first HIT, fills every arm
    rest_report = driver.run()
    assert rest_report.refused == []
    synced = harness_cli("sync", "small", "--db", database_url)
    assert synced.exit_code == 0, synced.output
    status = harness_cli("status", "small", "--db", database_url)
    assert "raters per item (target 2): min 2, median 2, max 2; 8 of 8 items at target" in (
        status.output
    )
    engine = make_engine(database_url)
    with session_scope(engine) as session:
        table = study_judgments(session, 1)
    engine.dispose()
    assert table.groupby("worker_id")["instrument_hash"].nunique().max() == 1


@pytest.mark.parametrize("backend", ["sqlite"], indirect=True)
def test_sync_from_the_notification_queue_hears_every_arms_group_and_keeps_workers_there(
    tmp_path,
    sqs,  # noqa: F811  (the fixture imported above)
    mturk,
    client,
    database_url,
    http,
):
    queue = sqs.create_queue(QueueName="harness-arms")["QueueUrl"]
    spec = small_spec(tmp_path, items=4, raters=2, hosting="mturk", **ARMS)
    launched = harness_cli(*launch_args(spec, mturk.url, database_url, "--notify-queue", queue))
    assert launched.exit_code == 0, launched.output
    base = load_arms(spec).arms[0].loaded
    by_arm = _hits_by_arm(database_url)
    (one,) = crowd_workers(base, size=1, seed=2)
    driver = SimulatedWorkers(
        mturk.url, [one], truths_of(base), base.scale, http, profile=WORKER_PROFILE
    )
    rng, report = np.random.default_rng(0), DriverReport()
    assert driver.work(one, by_arm["short"][1], rng, report)  # the arm short first
    mturk.advance(1)
    assert driver.work(one, by_arm["long"][0], rng, report)
    mturk.sent()
    synced = harness_cli("sync", "small", "--db", database_url, "--from-queue", queue)
    assert synced.exit_code == 0, synced.output
    assert "1 stored now" in synced.output  # both arms' HIT types send their events
    assert (
        "arms: 1 out-of-arm submissions (not counted), 1 assignments added for them, "
        "1 workers given their arm's qualification" in synced.output
    )
    wid = mturk_worker_id(one.worker_id)
    engine = make_engine(database_url)
    with session_scope(engine) as session:
        row = session.exec(select(Worker).where(Worker.platform_worker_id == wid)).one()
        arm = worker_arm(session, 1, row.id).name  # the arm of the event read first
    engine.dispose()
    other = {"long": by_arm["short"][0], "short": by_arm["long"][1]}[arm]
    refused = mturk.post(f"/worker/hits/{other}/accept", workerId=wid, **WORKER_PROFILE)
    assert refused.status_code == 403 and "NotQualified" in refused.text


def test_the_plan_warns_when_mturk_hosted_arms_differ_in_what_mturk_lists(tmp_path):
    differ = {"arms": ARMS["arms"] + "\n    hit: {reward: '0.20', title: Quick word pairs}"}
    for arms, warned in ((ARMS, False), (differ, True)):
        spec = small_spec(tmp_path, items=4, hosting="mturk", **arms)
        planned = harness_cli("launch", str(spec), "--target", "local", "--dry-run")
        assert planned.exit_code == 0, planned.output
        assert (
            "warning: hosting mturk: a worker's arm is the HIT group they take first, and "
            "the arms differ in what MTurk lists (reward, title), so workers may choose "
            "their arm by it" in planned.output
        ) is warned
