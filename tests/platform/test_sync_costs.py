"""What one `harness sync` costs the store: the study is read a fixed number of times whatever
the number of HITs, and live screening and the pending decisions run once per sync."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import pytest
import sqlalchemy as sa

from harness.providers.mturk.crowd import SimulatedWorkers
from harness.spec import load_spec
from tests.factories import migrated_sqlite
from tests.platform.factories import crowd_workers, harness_cli, launch_args, small_spec, truths_of

STUDY_READS = 2
"""At most this many statements of one sync read the study's row, however many HITs it has."""
_READS_STUDY = re.compile(r"^\s*SELECT\b.*\b(FROM|JOIN) study\b", re.S | re.I)
ARM_READS = 3
"""A study without arms: at most this many statements beyond one per HIT (its instrument) look
its arms up in a sync, however many assignments it has."""
_READS_ARMS = re.compile(r"^\s*SELECT\b.*\b(FROM|JOIN) study_arm\b", re.S | re.I)


@dataclass
class Costs:
    """What the store was asked while counting."""

    statements: list[str] = field(default_factory=list)
    transactions: int = 0

    @property
    def study_reads(self) -> int:
        return sum(bool(_READS_STUDY.match(s)) for s in self.statements)

    @property
    def arm_reads(self) -> int:
        return sum(bool(_READS_ARMS.match(s)) for s in self.statements)


@contextmanager
def counting() -> Iterator[Costs]:
    """Every statement and transaction of every engine (a command opens its own) meanwhile."""
    costs = Costs()

    def statement(_conn: Any, _cursor: Any, sql: str, *_args: Any) -> None:
        costs.statements.append(sql)

    def begin(_conn: Any) -> None:
        costs.transactions += 1

    sa.event.listen(sa.Engine, "before_cursor_execute", statement)
    sa.event.listen(sa.Engine, "begin", begin)
    try:
        yield costs
    finally:
        sa.event.remove(sa.Engine, "before_cursor_execute", statement)
        sa.event.remove(sa.Engine, "begin", begin)


def synced(tmp_path, mturk, http, items: int) -> Costs:
    """The costs of the first `harness sync` of a study of ``items / 2`` HITs, each done by
    two workers."""
    spec = small_spec(tmp_path, items=items, per_hit=2, raters=2)
    db = migrated_sqlite(tmp_path / "h.db")
    assert harness_cli(*launch_args(spec, mturk.url, db)).exit_code == 0
    loaded = load_spec(spec)
    workers = crowd_workers(loaded, 4)
    assert SimulatedWorkers(mturk.url, workers, truths_of(loaded), loaded.scale, http).run()
    with counting() as costs:
        result = harness_cli("sync", "small", "--db", db)
    assert result.exit_code == 0, result.output
    assert f"{items // 2} HITs, {items} submitted assignments; {items} stored now" in result.output
    return costs


@pytest.mark.parametrize("items", [4, 8])
def test_a_sync_reads_the_study_a_fixed_number_of_times(tmp_path, mturk, http, items):
    costs = synced(tmp_path, mturk, http, items)
    assert costs.study_reads <= STUDY_READS


@pytest.mark.parametrize("items", [4, 8])
def test_a_sync_of_a_study_without_arms_looks_them_up_per_hit_not_per_assignment(
    tmp_path, mturk, http, items
):
    costs = synced(tmp_path, mturk, http, items)
    assert costs.arm_reads <= items // 2 + ARM_READS


def test_a_sync_screens_and_decides_once(tmp_path, mturk, http, monkeypatch):
    import harness.platform.decisions as decisions
    import harness.screening.live as live

    calls = {"screen": 0, "decide": 0}

    def counted(name: str, function: Any) -> Any:
        def call(*args: Any, **kwargs: Any) -> Any:
            calls[name] += 1
            return function(*args, **kwargs)

        return call

    monkeypatch.setattr(live, "screen_pending", counted("screen", live.screen_pending))
    monkeypatch.setattr(
        decisions, "pending_decisions", counted("decide", decisions.pending_decisions)
    )
    costs = synced(tmp_path, mturk, http, 8)
    reads = costs.study_reads
    print(f"\n{len(costs.statements)} statements, {costs.transactions} transactions, {reads} reads")
    assert calls == {"screen": 1, "decide": 1}
