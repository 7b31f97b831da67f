"""The judgment store: instruments frozen by hash, judgments unique, events append-only."""

from __future__ import annotations

from datetime import UTC

import pytest
import sqlalchemy as sa
from sqlmodel import select

from harness.hosting import Hosting
from harness.roles import ItemRole
from harness.spec import load_spec
from harness.spec.heuristics import HeuristicKey
from harness.spec.model import Action, StudyType
from harness.store import (
    EventKind,
    create_study,
    make_engine,
    record_event,
    session_scope,
    study_judgments,
)
from harness.store.models import (
    AppendOnlyError,
    Assignment,
    Event,
    Hit,
    InstrumentVersion,
    Item,
    Judgment,
    ScreeningDecision,
    StudyPlatform,
    Worker,
)
from tests.clock import minutes_ago
from tests.factories import MINIMAL_ITEMS, MINIMAL_RATING_SPEC, write_spec


@pytest.fixture
def loaded(tmp_path):
    (tmp_path / "items.csv").write_text(MINIMAL_ITEMS)
    return load_spec(write_spec(tmp_path, MINIMAL_RATING_SPEC))


def _assignment(session, study, worker_name="W1", assignment_name="A1"):
    hit = Hit(study_id=study.id, index=0, platform_hit_id="H1", max_assignments=3, items=["a", "b"])
    worker = Worker(platform_worker_id=worker_name)
    session.add_all([hit, worker])
    session.flush()
    assignment = Assignment(
        hit_id=hit.id, worker_id=worker.id, platform_assignment_id=assignment_name
    )
    session.add(assignment)
    session.flush()
    return assignment, worker


def test_freezing_the_same_instrument_twice_keeps_one_version(database_url, loaded):
    engine = make_engine(database_url)
    with session_scope(engine) as session:
        first = create_study(session, loaded, name="one")
        second = create_study(session, loaded, name="two")
        assert first.instrument_id == second.instrument_id
        versions = session.exec(select(InstrumentVersion)).all()
        assert [v.hash for v in versions] == [loaded.instrument_hash]
        assert len(session.exec(select(Item)).all()) == 4
    engine.dispose()


def test_a_judgment_is_unique_per_assignment_item_and_position(database_url, loaded):
    engine = make_engine(database_url)
    with session_scope(engine) as session:
        study = create_study(session, loaded)
        assignment, worker = _assignment(session, study)
        item = session.exec(select(Item).where(Item.key == "a")).one()
        ids = dict(
            assignment_id=assignment.id,
            item_id=item.id,
            worker_id=worker.id,
            instrument_id=study.instrument_id,
            role="item",
        )
        session.add(Judgment(position=0, value=5.0, **ids))
        session.add(Judgment(position=7, value=6.0, **ids))  # a repeated showing is a new position
    with pytest.raises(sa.exc.IntegrityError):
        with session_scope(engine) as session:
            session.add(Judgment(position=0, value=9.0, **ids))
    with session_scope(engine) as session:
        assert [j.value for j in session.exec(select(Judgment).order_by(Judgment.position))] == [
            5.0,
            6.0,
        ]
    engine.dispose()


def test_events_are_append_only(database_url):
    engine = make_engine(database_url)
    with session_scope(engine) as session:
        record_event(session, EventKind.STUDY_CREATED, payload={"n": 1})
    with pytest.raises(AppendOnlyError):
        with session_scope(engine) as session:
            event = session.exec(select(Event)).one()
            event.kind = EventKind.STUDY_EXPIRED
    with pytest.raises(AppendOnlyError):
        with session_scope(engine) as session:
            session.delete(session.exec(select(Event)).one())
    with session_scope(engine) as session:
        assert session.exec(select(Event.kind)).all() == [EventKind.STUDY_CREATED]
    engine.dispose()


def test_an_event_kind_outside_the_enum_is_refused(database_url):
    engine = make_engine(database_url)
    with pytest.raises(sa.exc.StatementError, match="not among the defined enum values"):
        with session_scope(engine) as session:
            session.add(Event(kind="test.happened"))  # type: ignore[arg-type]
    engine.dispose()


def test_hosting_and_heuristic_stored_as_plain_strings_read_back_as_enums(database_url, loaded):
    """Rows written before these columns were enums hold their values ("external", "quick"):
    they read back as the enums' members, and new rows are stored the same way."""
    engine = make_engine(database_url)
    with session_scope(engine) as session:
        study = create_study(session, loaded)
        assignment, worker = _assignment(session, study)
        old_platform = {
            "study_id": study.id,
            "provider": "mturk",
            "launch_id": "L",
            "hosting": "external",
            "spec_path": "-",
            "reward": 1,
            "assignments_per_hit": 3,
            "created_at": minutes_ago(1),
        }
        old_decision = {
            "study_id": study.id,
            "worker_id": worker.id,
            "heuristic": "quick",
            "evidence": 1,
            "flag": False,
            "action": "REPORT",
            "state": "RECORDED",
            "details": {},
            "created_at": minutes_ago(1),
        }
        session.execute(sa.insert(StudyPlatform).values(**old_platform))
        session.execute(sa.insert(ScreeningDecision).values(**old_decision))
        new = ScreeningDecision(
            study_id=study.id,
            worker_id=worker.id,
            heuristic=HeuristicKey.LOW_CORRELATION,
            action=Action.BLOCK,
        )
        session.add(new)
    with session_scope(engine) as session:
        assert session.exec(select(StudyPlatform.hosting)).one() is Hosting.EXTERNAL
        read = session.exec(select(ScreeningDecision.heuristic).order_by(ScreeningDecision.id))
        assert read.all() == [HeuristicKey.QUICK, HeuristicKey.LOW_CORRELATION]
        raw = session.execute(sa.text("SELECT heuristic FROM screening_decision ORDER BY id"))
        assert [r[0] for r in raw] == ["quick", "low_correlation"]
    with pytest.raises(sa.exc.StatementError, match="not among the defined enum values"):
        with session_scope(engine) as session:
            bad = {"study_id": study.id, "worker_id": worker.id, "heuristic": "H2"}
            session.add(ScreeningDecision(**bad, action=Action.REPORT))
    engine.dispose()


def test_study_type_and_roles_stored_as_plain_strings_read_back_as_enums(database_url, loaded):
    """Rows written before these columns were enums hold their values ("pair_comparison",
    "gold", "repeat"): they read back as the enums' members, and new rows are stored the same
    way; a value outside the enum (or a member's name) is refused."""
    engine = make_engine(database_url)
    with session_scope(engine) as session:
        study = create_study(session, loaded)  # rating, its items all "item"
        assignment, worker = _assignment(session, study)
        old_version = {
            "hash": "0" * 64,
            "name": "old",
            "study_type": "pair_comparison",
            "spec": {},
            "guidelines": "",
            "created_at": minutes_ago(1),
        }
        old_id = session.execute(
            sa.insert(InstrumentVersion).values(**old_version)
        ).inserted_primary_key[0]
        old_item = {"instrument_id": old_id, "key": "g", "role": "gold", "display": {}}
        item_id = session.execute(sa.insert(Item).values(**old_item)).inserted_primary_key[0]
        old_judgment = {
            "assignment_id": assignment.id,
            "item_id": item_id,
            "worker_id": worker.id,
            "instrument_id": old_id,
            "position": 0,
            "skipped": False,
            "role": "repeat",
        }
        session.execute(sa.insert(Judgment).values(**old_judgment))
        new = {**old_judgment, "position": 1, "role": ItemRole.IDENTICAL}
        session.add(Judgment(**new))
    with session_scope(engine) as session:
        types = session.exec(select(InstrumentVersion.study_type).order_by(InstrumentVersion.id))
        assert types.all() == [StudyType.RATING, StudyType.PAIR_COMPARISON]
        assert all(type(t) is StudyType for t in session.exec(select(InstrumentVersion.study_type)))
        roles = session.exec(select(Item.role).order_by(Item.id)).all()
        assert roles == [ItemRole.ITEM] * 4 + [ItemRole.GOLD]
        assert all(type(r) is ItemRole for r in roles)
        judged = session.exec(select(Judgment.role).order_by(Judgment.position)).all()
        assert judged == [ItemRole.REPEAT, ItemRole.IDENTICAL]
        assert all(type(r) is ItemRole for r in judged)
        raw = session.execute(sa.text("SELECT study_type FROM instrument_version ORDER BY id"))
        assert [r[0] for r in raw] == ["rating", "pair_comparison"]
        raw = session.execute(sa.text("SELECT role FROM judgment ORDER BY position"))
        assert [r[0] for r in raw] == ["repeat", "identical"]
    refused = [
        Item(instrument_id=study.instrument_id, key="x", role="rater", display={}),  # type: ignore[arg-type]
        Item(instrument_id=study.instrument_id, key="y", role="GOLD", display={}),  # type: ignore[arg-type]
        InstrumentVersion(hash="1" * 64, name="n", study_type="ranking", spec={}, guidelines=""),  # type: ignore[arg-type]
    ]
    for row in refused:
        with pytest.raises(sa.exc.StatementError, match="not among the defined enum values"):
            with session_scope(engine) as session:
                session.add(row)
    engine.dispose()


def test_stored_judgments_come_back_as_the_long_table(database_url, loaded):
    engine = make_engine(database_url)
    shown = minutes_ago()
    with session_scope(engine) as session:
        study = create_study(session, loaded)
        assignment, worker = _assignment(session, study)
        for position, key in enumerate(["b", "a"]):
            item = session.exec(select(Item).where(Item.key == key)).one()
            session.add(
                Judgment(
                    assignment_id=assignment.id,
                    item_id=item.id,
                    worker_id=worker.id,
                    instrument_id=study.instrument_id,
                    position=position,
                    role="item",
                    value=float(position + 3),
                    shown_at=shown,
                    seconds=4.5,
                )
            )
        study_id = study.id
    with session_scope(engine) as session:
        table = study_judgments(session, study_id)
    assert list(table["item_id"]) == ["b", "a"]
    assert list(table["value"]) == [3.0, 4.0]
    assert set(table["worker_id"]) == {"W1"} and set(table["assignment_id"]) == {"A1"}
    assert list(table["left"]) == ["car", "cat"]  # display columns come along
    assert (table["instrument_hash"] == loaded.instrument_hash).all()
    assert table["shown_at"].iloc[0].replace(tzinfo=UTC) == shown
    engine.dispose()


def test_sqlite_runs_in_wal_mode_with_foreign_keys_enforced(tmp_path):
    from harness.store.migrations import upgrade

    url = f"sqlite:///{tmp_path / 'h.db'}"
    upgrade(url)
    engine = make_engine(url)
    with engine.connect() as connection:
        assert connection.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
        assert connection.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
    with pytest.raises(sa.exc.IntegrityError):
        with session_scope(engine) as session:
            session.add(Hit(study_id=999, index=0, max_assignments=1, items=[]))
    engine.dispose()


def _pool_logs_a_cursor_it_could_not_close(engine: sa.Engine, during: BaseException) -> None:
    """What SQLAlchemy does when closing a cursor fails while `during` is unwinding a query."""
    import sqlite3

    try:
        raise during
    except BaseException:
        try:
            raise sqlite3.ProgrammingError("Cannot operate on a closed database.")
        except sqlite3.ProgrammingError:
            engine.pool.logger.error("Error closing cursor", exc_info=True)


def test_a_cursor_left_open_by_ctrl_c_is_not_reported_as_a_second_error(tmp_path, caplog):
    engine = make_engine(f"sqlite:///{tmp_path / 'h.db'}")
    _pool_logs_a_cursor_it_could_not_close(engine, KeyboardInterrupt())
    assert "Error closing cursor" not in caplog.text
    _pool_logs_a_cursor_it_could_not_close(engine, RuntimeError("a real failure"))
    assert "Error closing cursor" in caplog.text  # any other cause is still reported
    engine.dispose()
