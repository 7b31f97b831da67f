"""The Core tables `harness status` reads through name columns the models have, typed alike,
so that a renamed or retyped column fails here rather than in a study's status."""

from __future__ import annotations

import pytest
import sqlalchemy as sa
from sqlmodel import SQLModel

import harness.store.arm_tables  # noqa: F401  (the arms' tables, registered on SQLModel.metadata)
import harness.store.models  # noqa: F401  (the other tables, registered likewise)
from harness.store import core


def _type(column: sa.ColumnElement[object]) -> tuple[object, ...]:
    """What decides how a value is written and read back."""
    kind = column.type
    if isinstance(kind, sa.Enum):
        return (sa.Enum, kind.enum_class, tuple(kind.enums))
    if isinstance(kind, sa.Numeric):
        return (type(kind), kind.precision, kind.scale)
    if isinstance(kind, sa.DateTime):
        return (sa.DateTime, kind.timezone)
    return (kind._type_affinity,)


CORE_TABLES = [t for t in vars(core).values() if isinstance(t, sa.TableClause)]


@pytest.mark.parametrize("light", CORE_TABLES, ids=lambda table: table.name)
def test_each_core_column_is_the_models_column_with_its_type(light):
    model = SQLModel.metadata.tables[light.name]
    for column in light.columns:
        assert column.name in model.columns, f"{light.name}.{column.name} is not in the models"
        assert _type(column) == _type(model.columns[column.name]), f"{light.name}.{column.name}"


def test_a_retyped_column_is_told_apart():
    money = sa.table("study", sa.column("budget", sa.Numeric(10, 4)))
    model = SQLModel.metadata.tables["study"]
    assert _type(money.c.budget) != _type(model.c.budget)
