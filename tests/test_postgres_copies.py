"""The PostgreSQL databases the tests are handed (`tests.postgres_copies`): a copy a test
wrote to comes back to a later test emptied and renamed, the same as a fresh copy; one whose
schema a test changed is dropped, never handed out again."""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from harness.spec import load_spec
from harness.store import create_study, make_engine, session_scope
from harness.store.migrations import upgrade
from tests import postgres_copies
from tests.factories import (
    MINIMAL_ITEMS,
    MINIMAL_RATING_SPEC,
    answers,
    create_postgres_database,
    drop_postgres_database,
    write_spec,
)


def _oid(url: str) -> int:
    engine = sa.create_engine(url, poolclass=sa.pool.NullPool)
    try:
        with engine.connect() as connection:
            query = "SELECT oid FROM pg_database WHERE datname = current_database()"
            return int(connection.execute(sa.text(query)).scalar_one())
    finally:
        engine.dispose()


def _count(url: str, table: str) -> int:
    engine = sa.create_engine(url, poolclass=sa.pool.NullPool)
    try:
        with engine.connect() as connection:
            return int(connection.execute(sa.text(f"SELECT count(*) FROM {table}")).scalar_one())
    finally:
        engine.dispose()


@pytest.mark.parametrize("backend", ["postgresql"], indirect=True)
def test_a_used_copy_comes_back_empty_and_renamed_and_a_changed_one_is_dropped(backend, tmp_path):
    template = create_postgres_database()
    upgrade(template)
    handed: list[str] = []
    try:
        written = postgres_copies.fresh_copy(template)
        handed.append(written)
        (tmp_path / "items.csv").write_text(MINIMAL_ITEMS)
        engine = make_engine(written)
        with session_scope(engine) as session:
            create_study(session, load_spec(write_spec(tmp_path, MINIMAL_RATING_SPEC)))
        engine.dispose()
        assert _count(written, "study") == 1
        used = _oid(written)
        postgres_copies.drop_later(written)
        handed.remove(written)
        handed.append(postgres_copies.fresh_copy(template))  # made while `written` was in use
        again = postgres_copies.fresh_copy(template)
        handed.append(again)
        assert _oid(again) == used  # the same database, emptied
        assert not answers(written)  # under a new name: a thread left behind cannot reach it
        assert _count(again, "study") == 0 and _count(again, "alembic_version") == 1
        state = postgres_copies._state(again)
        assert state is not None and state == postgres_copies._PRISTINE[template]

        engine = sa.create_engine(again, poolclass=sa.pool.NullPool)
        with engine.begin() as connection:
            connection.execute(sa.text("CREATE INDEX by_name ON study (name)"))
        engine.dispose()
        postgres_copies.drop_later(again)
        handed.remove(again)
        postgres_copies.taken_back()
        assert not answers(again)
        assert not postgres_copies._EMPTIED.get(template)  # dropped, not kept for a test
    finally:
        for url in handed:
            postgres_copies.drop_later(url)
        postgres_copies.finish()
        drop_postgres_database(template)
