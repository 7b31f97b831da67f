"""Prepared statements (run on SQLite's own connection) behave as SQLAlchemy's execute does:
the same rows with the same names and values, the models' Python-side defaults on insert,
SQLAlchemy's IntegrityError on a broken constraint, and the caller's transaction."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine, bindparam, insert, select
from sqlalchemy.exc import IntegrityError

from harness.platform.mturk_local import models
from harness.platform.mturk_local.prepared import Prepared
from harness.platform.mturk_local.state import driver_connection, open_engine

W = models.workers
BLOCKS = models.worker_blocks


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Engine]:
    engine = open_engine(tmp_path / "mturk.sqlite")
    yield engine
    engine.dispose()


def test_rows_have_sqlalchemys_names_and_values_with_booleans_as_bool(engine: Engine) -> None:
    statement = select(W, W.c.n_approved.label("approved")).where(W.c.id == bindparam("wid"))
    with engine.begin() as conn:
        conn.execute(insert(W).values(id="AONE", country="US", master=True, adult=False))
        expected = conn.execute(statement, {"wid": "AONE"}).one()
        got = Prepared(statement).first(driver_connection(conn), {"wid": "AONE"})
    assert got._asdict() == dict(expected._mapping)
    assert got.master is True and got.adult is False and got.approved == 0


def test_an_insert_gets_the_models_python_side_defaults(engine: Engine) -> None:
    add = Prepared(insert(W).values(id=bindparam("wid")))
    with engine.begin() as conn:
        assert add.run(driver_connection(conn), {"wid": "ANEW"}) == 1
        row = conn.execute(select(W.c.n_approved, W.c.n_rejected).where(W.c.id == "ANEW")).one()
    assert tuple(row) == (0, 0)


def test_constants_in_the_statement_are_bound_and_booleans_stored_as_integers(
    engine: Engine,
) -> None:
    mark = Prepared(select(W.c.id).where(W.c.master.is_(True), W.c.country == "US"))
    with engine.begin() as conn:
        conn.execute(insert(W), [{"id": "AUS", "country": "US", "master": True}])
        conn.execute(insert(W), [{"id": "AFR", "country": "FR", "master": True}])
        assert [r.id for r in mark.rows(driver_connection(conn), {})] == ["AUS"]


def test_a_broken_unique_constraint_raises_sqlalchemys_integrity_error(engine: Engine) -> None:
    block = Prepared(insert(BLOCKS).values(worker_id=bindparam("wid"), reason="spam"))
    with engine.begin() as conn:
        block.run(driver_connection(conn), {"wid": "ABAD"})
        with pytest.raises(IntegrityError, match="UNIQUE constraint failed"):
            block.run(driver_connection(conn), {"wid": "ABAD"})


def test_it_runs_in_the_callers_transaction(engine: Engine) -> None:
    add = Prepared(insert(W).values(id=bindparam("wid")))
    with engine.connect() as conn:
        with conn.begin() as tx:
            add.run(driver_connection(conn), {"wid": "AGONE"})
            tx.rollback()
        with conn.begin():
            add.run(driver_connection(conn), {"wid": "AKEPT"})
    with engine.connect() as conn:
        assert [r.id for r in conn.execute(select(W.c.id))] == ["AKEPT"]


def test_a_missing_parameter_is_refused_by_name(engine: Engine) -> None:
    find = Prepared(select(W).where(W.c.id == bindparam("wid")))
    with engine.begin() as conn, pytest.raises(KeyError, match="wid"):
        find.first(driver_connection(conn), {})


def test_bound_lists_are_refused_when_compiled(engine: Engine) -> None:
    many = Prepared(select(W).where(W.c.id.in_(bindparam("ids", expanding=True))))
    with engine.begin() as conn, pytest.raises(ValueError, match="bound lists"):
        many.rows(driver_connection(conn), {"ids": ["A1"]})
