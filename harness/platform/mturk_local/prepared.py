"""The statements every worker request runs, compiled once and run on SQLite's own connection.

Running a prebuilt Core statement through SQLAlchemy still costs about 35 microseconds here
(cache lookup, parameter processing, result metadata, events) against 3 for SQLite itself, and
a worker's assignment (list, accept, submit, the requester's GetAssignment) runs about twenty of
them. A `Prepared` statement is written with Core against the models like every other, compiled
for SQLite on first use, and then run with the DBAPI cursor of the request's own connection, so
it is part of the request's transaction (`Ctx.db`). Rows come back as named tuples with the same
names and values SQLAlchemy's rows have (booleans as bool), and constraint violations raise
SQLAlchemy's `IntegrityError`, as `Connection.execute` does.
"""

from __future__ import annotations

import sqlite3
from collections import namedtuple
from collections.abc import Callable, Mapping
from typing import Any

from sqlalchemy.dialects import sqlite
from sqlalchemy.exc import IntegrityError
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.expression import ClauseElement
from sqlalchemy.sql.schema import ScalarElementColumnDefault

_DIALECT = sqlite.dialect()
_NO_VALUE = object()


class Prepared:
    """One statement, compiled once; `rows`, `first` and `run` execute it on `Ctx.db`."""

    def __init__(self, statement: ClauseElement) -> None:
        self.statement = statement
        self._compiled = False

    def _compile(self) -> None:
        compiled = self.statement.compile(dialect=_DIALECT)
        assert isinstance(compiled, SQLCompiler)
        names = compiled.positiontup or []
        self.sql = str(compiled)
        # Columns whose Python-side default (insert) or onupdate value SQLAlchemy would supply.
        supplied = {c.key: c.default for c in compiled.insert_prefetch} | {
            c.key: c.onupdate for c in compiled.update_prefetch
        }
        self._params: list[tuple[str, Any, Callable[[Any], Any] | None]] = []
        for name in names:
            bind = compiled.binds[name]
            if bind.expanding or bind.callable is not None:
                raise ValueError(f"{self.sql}: bound lists and callables are not supported")
            value = _NO_VALUE if bind.required else bind.value
            if name in supplied:
                default = supplied[name]
                if not isinstance(default, ScalarElementColumnDefault):
                    raise ValueError(f"{self.sql}: the default of {name} is not a constant")
                value = default.arg
            self._params.append((bind.key, value, bind.type.bind_processor(_DIALECT)))
        columns = list(getattr(self.statement, "exported_columns", ()))
        keys = [str(c.key) for c in columns]
        if len(set(keys)) != len(keys):
            raise ValueError(f"{self.sql}: result columns need distinct names, got {keys}")
        self._row: Any = namedtuple("Row", keys) if keys else None
        self._processors = [
            (i, p)
            for i, c in enumerate(columns)
            if (p := c.type.result_processor(_DIALECT, None)) is not None
        ]
        self._compiled = True

    def _execute(self, db: sqlite3.Connection, params: Mapping[str, Any]) -> sqlite3.Cursor:
        if not self._compiled:
            self._compile()
        values = []
        for key, default, process in self._params:
            value = params[key] if default is _NO_VALUE or key in params else default
            values.append(value if process is None else process(value))
        try:
            return db.execute(self.sql, values)
        except sqlite3.IntegrityError as exc:
            raise IntegrityError(self.sql, values, exc) from exc

    def _make(self, raw: tuple[Any, ...]) -> Any:
        assert self._row is not None, f"{self.sql} returns no rows"
        if self._processors:
            values = list(raw)
            for i, process in self._processors:
                values[i] = process(values[i])
            return self._row._make(values)
        return self._row._make(raw)

    def rows(self, db: sqlite3.Connection, params: Mapping[str, Any]) -> list[Any]:
        """Every row the statement returns."""
        return [self._make(raw) for raw in self._execute(db, params).fetchall()]

    def first(self, db: sqlite3.Connection, params: Mapping[str, Any]) -> Any:
        """The first row, or None."""
        raw = self._execute(db, params).fetchone()
        return None if raw is None else self._make(raw)

    def run(self, db: sqlite3.Connection, params: Mapping[str, Any]) -> int:
        """Execute a write; the number of rows it changed."""
        return self._execute(db, params).rowcount
