"""Fixtures shared by the store's tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

import pytest
from sqlalchemy.engine import Engine

from harness.spec import load_spec
from harness.store import create_study, make_engine, session_scope
from harness.store.models import Hit
from tests.factories import MINIMAL_ITEMS, MINIMAL_RATING_SPEC, write_spec


class OneHit(NamedTuple):
    """A minimal study with one HIT of three places showing its first item."""

    engine: Engine
    study_id: int
    hit_id: int
    key: str


@pytest.fixture
def one_hit(database_url: str, tmp_path: Path) -> Iterator[OneHit]:
    engine = make_engine(database_url)
    (tmp_path / "items.csv").write_text(MINIMAL_ITEMS)
    loaded = load_spec(write_spec(tmp_path, MINIMAL_RATING_SPEC))
    with session_scope(engine) as session:
        study = create_study(session, loaded)
        key = str(loaded.items["item_id"].iloc[0])
        hit = Hit(study_id=study.id, index=0, max_assignments=3, items=[key])
        session.add(hit)
        session.flush()
        made = OneHit(engine, int(study.id), int(hit.id), key)  # type: ignore[arg-type]
    yield made
    engine.dispose()
