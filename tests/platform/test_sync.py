"""Sync brings every submitted assignment into the store exactly once, from polling or SQS,
with and without injected throttling and ServiceUnavailable faults."""

from __future__ import annotations

import boto3
import pytest
from botocore.exceptions import ClientError
from sqlmodel import func, select

from harness.providers.mturk.crowd import SimulatedWorkers
from harness.spec import load_spec
from harness.store import make_engine, session_scope
from harness.store.models import Assignment, Event, Judgment
from tests.factories import migrated_sqlite
from tests.platform.factories import crowd_workers, harness_cli, launch_args, small_spec, truths_of

FAULTS = {"throttle_share": 0.25, "unavailable_share": 0.2, "seed": 7}


def launch_and_work(tmp_path, mturk, http, db, *extra, workers=4):
    spec = small_spec(tmp_path, items=8, per_hit=2, raters=2)
    launched = harness_cli(*launch_args(spec, mturk.url, db, *extra))
    assert launched.exit_code == 0, launched.output
    loaded = load_spec(spec)
    driver = SimulatedWorkers(
        mturk.url, crowd_workers(loaded, workers), truths_of(loaded), loaded.scale, http
    )
    report = driver.run()
    assert report.refused == []
    return loaded, report


def store_counts(db):
    engine = make_engine(db)
    try:
        with session_scope(engine) as session:
            return {
                "judgments": session.exec(select(func.count()).select_from(Judgment)).one(),
                "assignments": session.exec(select(func.count()).select_from(Assignment)).one(),
                "events": session.exec(select(func.count()).select_from(Event)).one(),
                "values": sorted(
                    (j.assignment_id, j.position, j.value) for j in session.exec(select(Judgment))
                ),
            }
    finally:
        engine.dispose()


def test_sync_reads_mturk_hosted_answers_into_judgments_once(tmp_path, mturk, http, database_url):
    loaded, report = launch_and_work(tmp_path, mturk, http, database_url)
    assert len(report.submitted) == 8
    first = harness_cli("sync", "small", "--db", database_url)
    assert "4 HITs, 8 submitted assignments; 8 stored now" in first.output
    counts = store_counts(database_url)
    assert counts["judgments"] == loaded.judgments == 16
    second = harness_cli("sync", "small", "--db", database_url)
    assert (
        "8 submitted assignments; 0 stored now (0 recovered from the platform), 0 assignment "
        "and 0 HIT status changes"
    ) in second.output
    assert store_counts(database_url) == counts


def test_faults_during_launch_and_sync_give_the_same_outcome(tmp_path, mturk, http, client):
    clean_dir, faulty_dir = tmp_path / "clean", tmp_path / "faulty"
    clean_dir.mkdir()
    faulty_dir.mkdir()
    clean_db = f"sqlite:///{clean_dir / 'h.db'}"
    faulty_db = f"sqlite:///{faulty_dir / 'h.db'}"

    launch_and_work(clean_dir, mturk, http, clean_db)
    assert harness_cli("sync", "small", "--db", clean_db).exit_code == 0
    clean = store_counts(clean_db)

    # a second study (same spec, other store) on the same service, faults switched on
    for hit in client.list_hits(MaxResults=100)["HITs"]:
        client.update_expiration_for_hit(HITId=hit["HITId"], ExpireAt=0)
    mturk.control("faults", FAULTS)
    probe = mturk.client(retries={"total_max_attempts": 1})
    failures = 0
    for _ in range(20):
        try:
            probe.get_account_balance()
        except ClientError as exc:
            assert exc.response["Error"]["Code"] in ("ThrottlingException", "ServiceUnavailable")
            failures += 1
    assert 3 <= failures <= 17  # the switches are on: about 40% of calls fail
    launch_and_work(faulty_dir, mturk, http, faulty_db)
    synced = harness_cli("sync", "small", "--db", faulty_db)
    assert synced.exit_code == 0, synced.output
    mturk.control("faults", {"throttle_share": 0, "unavailable_share": 0})
    faulty = store_counts(faulty_db)
    assert faulty["judgments"] == clean["judgments"] == 16
    assert faulty["assignments"] == clean["assignments"] == 8
    assert len(client.list_hits(MaxResults=100)["HITs"]) == 8  # 4 per study, none twice


def test_throttling_and_unavailability_during_review_approve_each_assignment_once(
    tmp_path, mturk, http, client
):
    db = migrated_sqlite(tmp_path / "h.db")
    launch_and_work(tmp_path, mturk, http, db)
    assert harness_cli("sync", "small", "--db", db).exit_code == 0
    mturk.control("faults", FAULTS)
    reviewed = harness_cli("review", "small", "--db", db)
    mturk.control("faults", {"throttle_share": 0, "unavailable_share": 0})
    assert reviewed.exit_code == 0, reviewed.output
    assert "approve 8" in reviewed.output
    statuses = [
        a["AssignmentStatus"]
        for h in client.list_hits(MaxResults=100)["HITs"]
        for a in client.list_assignments_for_hit(HITId=h["HITId"])["Assignments"]
    ]
    assert statuses == ["Approved"] * 8


@pytest.fixture
def sqs(monkeypatch):
    """moto's SQS server on loopback. The local MTurk service delivers only to a local SQS (its
    queue URLs are on loopback); `harness sync --from-queue` reaches it through
    AWS_ENDPOINT_URL_SQS, with placeholder keys."""
    from moto.server import ThreadedMotoServer

    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    endpoint = f"http://{host}:{port}"
    monkeypatch.setenv("AWS_ENDPOINT_URL_SQS", endpoint)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "local")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "local")
    yield boto3.client("sqs", region_name="us-east-1", endpoint_url=endpoint)
    server.stop()


def test_sync_from_the_notification_queue_stores_everything_and_empties_it(
    tmp_path, sqs, mturk, http, database_url
):
    queue = sqs.create_queue(QueueName="harness-small")["QueueUrl"]
    loaded, _ = launch_and_work(tmp_path, mturk, http, database_url, "--notify-queue", queue)
    mturk.sent()
    synced = harness_cli("sync", "small", "--db", database_url, "--from-queue", queue)
    assert synced.exit_code == 0, synced.output
    assert "8 stored now" in synced.output
    assert store_counts(database_url)["judgments"] == loaded.judgments
    left = sqs.get_queue_attributes(QueueUrl=queue, AttributeNames=["ApproximateNumberOfMessages"])[
        "Attributes"
    ]["ApproximateNumberOfMessages"]
    assert left == "0"
    counts = store_counts(database_url)
    again = harness_cli("sync", "small", "--db", database_url, "--from-queue", queue)
    assert "0 stored now" in again.output
    assert store_counts(database_url) == counts
    polled = harness_cli("sync", "small", "--db", database_url)
    assert "8 submitted assignments; 0 stored now" in polled.output
    stored_queue = harness_cli("sync", "small", "--from-queue", "--db", database_url)
    assert stored_queue.exit_code == 0, stored_queue.output
    assert "0 stored now" in stored_queue.output


def test_sync_from_the_stored_queue_needs_a_study_launched_with_one(tmp_path, mturk, http, sqs):
    db = migrated_sqlite(tmp_path / "h.db")
    launch_and_work(tmp_path, mturk, http, db)
    result = harness_cli("sync", "small", "--db", db, "--from-queue")
    assert result.exit_code == 1
    assert "study 'small' was launched without --notify-queue" in result.output


def small_study(engine):
    """The launched study "small", as a command resolves it."""
    from harness.store import launched_study

    with session_scope(engine) as session:
        return launched_study(session, "small")


def test_a_failing_after_submission_hook_loses_no_judgment(tmp_path, mturk, http):
    from harness.platform.reconcile import SyncHooks
    from harness.platform.sync import sync_study
    from harness.providers.mturk import MTurkProvider, make_client
    from harness.render.answers import answers_from_xml

    db = migrated_sqlite(tmp_path / "h.db")
    launch_and_work(tmp_path, mturk, http, db)
    seen = []

    def broken(engine, study_id, assignment_id):
        seen.append(assignment_id)
        raise RuntimeError("screening is broken")

    engine = make_engine(db)
    try:
        provider = MTurkProvider(make_client("local", mturk.url), "local")
        hooks = SyncHooks(parse=answers_from_xml, after_submission=broken)
        report = sync_study(engine, provider, small_study(engine), hooks)
    finally:
        engine.dispose()
    assert report.stored == 8 and len(seen) == 1  # once per sync: it screens all that wait
    assert len(report.hook_failures) == 1
    assert "RuntimeError: screening is broken" in report.hook_failures[0]
    assert report.hook_failures[0].startswith("assignments ")  # all of them, by id
    assert store_counts(db)["judgments"] == 16


def test_a_queue_message_is_deleted_only_after_its_effect_is_stored(tmp_path, sqs, mturk, http):
    from harness.errors import PlatformError
    from harness.platform.reconcile import SyncHooks
    from harness.platform.sync import sync_from_queue
    from harness.providers.mturk import MTurkProvider, make_client
    from harness.render.answers import answers_from_xml

    queue = sqs.create_queue(QueueName="q", Attributes={"VisibilityTimeout": "0"})["QueueUrl"]
    db = migrated_sqlite(tmp_path / "h.db")
    launch_and_work(tmp_path, mturk, http, db, "--notify-queue", queue)
    mturk.sent()
    provider = MTurkProvider(make_client("local", mturk.url), "local")

    class FailsOnTheFifth:
        """The real provider, until the fifth submission read fails."""

        def __init__(self):
            self.reads = 0

        def __getattr__(self, name):
            return getattr(provider, name)

        def submission(self, assignment_id):
            self.reads += 1
            if self.reads == 5:
                raise PlatformError("MTurk is down")
            return provider.submission(assignment_id)

    hooks = SyncHooks(parse=answers_from_xml)
    engine = make_engine(db)
    try:
        with pytest.raises(PlatformError):
            sync_from_queue(engine, FailsOnTheFifth(), small_study(engine), hooks, sqs, queue)
        assert store_counts(db)["judgments"] == 4 * 2  # four assignments of two items
        report = sync_from_queue(engine, provider, small_study(engine), hooks, sqs, queue)
    finally:
        engine.dispose()
    assert report.stored == 4
    assert store_counts(db)["judgments"] == 16
    attributes = sqs.get_queue_attributes(QueueUrl=queue, AttributeNames=["All"])["Attributes"]
    assert attributes["ApproximateNumberOfMessages"] == "0"


def test_a_local_study_never_reads_notifications_from_a_real_cloud(tmp_path, mturk, http):
    db = migrated_sqlite(tmp_path / "h.db")
    launch_and_work(tmp_path, mturk, http, db)
    queue = "https://sqs.us-east-1.amazonaws.com/123456789012/harness"
    result = harness_cli("sync", "small", "--db", db, "--from-queue", queue)
    assert result.exit_code == 1
    assert "reads its notifications only from a local SQS" in result.output
    assert store_counts(db)["judgments"] == 0  # nothing happened
