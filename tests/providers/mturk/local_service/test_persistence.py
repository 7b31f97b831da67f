"""State lives in the service's own SQLite file and survives a restart."""

from __future__ import annotations

from decimal import Decimal

from tests.providers.mturk.local_service.factories import LocalMTurk, hit_params


def test_restart_keeps_hits_assignments_qualifications_balance_and_clock(tmp_path):
    db = tmp_path / "mturk.sqlite"
    first = LocalMTurk(db).start()
    try:
        client = first.client()
        hit_id = client.create_hit(**hit_params(UniqueRequestToken="t1"))["HIT"]["HITId"]
        assignment_id = first.work(hit_id, "AWORKER1", answer="9")
        type_id = client.create_qualification_type(
            Name="q", Description="d", QualificationTypeStatus="Active"
        )["QualificationType"]["QualificationTypeId"]
        client.associate_qualification_with_worker(QualificationTypeId=type_id, WorkerId="AW2")
        client.create_worker_block(WorkerId="ABAD", Reason="spam")
        first.advance(1000)
        now = first.now()
        money = client.get_account_balance()["AvailableBalance"]
    finally:
        first.stop()

    second = LocalMTurk(db).start()
    try:
        client = second.client()
        assert client.get_hit(HITId=hit_id)["HIT"]["NumberOfAssignmentsAvailable"] == 2
        got = client.get_assignment(AssignmentId=assignment_id)["Assignment"]
        assert got["WorkerId"] == "AWORKER1" and "<FreeText>9</FreeText>" in got["Answer"]
        quals = client.list_workers_with_qualification_type(QualificationTypeId=type_id)
        assert [q["WorkerId"] for q in quals["Qualifications"]] == ["AW2"]
        assert client.list_worker_blocks()["WorkerBlocks"][0]["WorkerId"] == "ABAD"
        assert client.get_account_balance()["AvailableBalance"] == money
        assert Decimal(money) < Decimal("10000.00")
        assert second.now() >= now
        # The idempotency token is remembered too.
        try:
            client.create_hit(**hit_params(UniqueRequestToken="t1"))
            raise AssertionError("the token was forgotten")
        except client.exceptions.RequestError as exc:
            assert hit_id in str(exc)
    finally:
        second.stop()


def test_database_uses_wal_mode(tmp_path):
    import sqlite3

    service = LocalMTurk(tmp_path / "m.sqlite").start()
    try:
        service.client().get_account_balance()
        with sqlite3.connect(tmp_path / "m.sqlite") as conn:
            assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        conn.close()
    finally:
        service.stop()


def test_a_file_from_before_the_counts_were_kept_is_upgraded_on_open(tmp_path):
    """Drop what this version added (the counts on rows, the indexes, the requests table) from
    a file with work in it, as a file written by the older version lacks them; reopened, the
    service fills the counts in from the assignments."""
    import sqlite3

    from harness.providers.mturk.local_service.schema import ADDED_COLUMNS

    db = tmp_path / "old.sqlite"
    first = LocalMTurk(db).start()
    try:
        client = first.client()
        hit_id = client.create_hit(**hit_params(MaxAssignments=3))["HIT"]["HITId"]
        done = first.work(hit_id, "AW1")
        first.accept(hit_id, "AW2")
        client.approve_assignment(AssignmentId=done)
    finally:
        first.stop()
    with sqlite3.connect(db) as conn:
        for (name,) in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL"
        ).fetchall():
            conn.execute(f"DROP INDEX {name}")
        conn.execute("DROP TABLE qualification_requests")
        for table, columns in ADDED_COLUMNS.items():
            for column in columns:
                conn.execute(f"ALTER TABLE {table} DROP COLUMN {column}")
    conn.close()

    second = LocalMTurk(db).start()
    try:
        hit = second.client().get_hit(HITId=hit_id)["HIT"]
        assert (
            hit["NumberOfAssignmentsPending"],
            hit["NumberOfAssignmentsCompleted"],
            hit["NumberOfAssignmentsAvailable"],
        ) == (1, 1, 1)
        [listed] = second.get("/worker/hits", workerId="AW3").json()["HITs"]
        assert listed["HITId"] == hit_id and listed["canAccept"] is True
        second.accept(hit_id, "AW3")
        assert second.get("/worker/hits", workerId="AW4").json()["HITs"] == []
    finally:
        second.stop()
