"""Find a stored study by name, with its instrument version, as plain rows for later stages."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pandas as pd
from sqlmodel import Session, select

from harness.errors import InputError
from harness.store.judgment_table import study_judgments
from harness.store.models import InstrumentVersion, Study


@dataclass(frozen=True)
class StoredStudy:
    """A study's row, its instrument version's row (both as dicts) and its judgments."""

    study: dict[str, Any]
    instrument: dict[str, Any]
    judgments: pd.DataFrame


def find_study(session: Session, name: str) -> Study | None:
    return session.exec(select(Study).where(Study.name == name)).first()


def load_study(session: Session, name: str) -> StoredStudy:
    """The study called ``name``; `InputError` naming the stored studies when there is none."""
    study = find_study(session, name)
    if study is None:
        names = sorted(session.exec(select(Study.name)).all())
        raise InputError(
            f"no stored study called {name!r} and no file of that name"
            + (f"; stored studies: {', '.join(names)}" if names else "; the store has no studies")
        )
    version = session.get(InstrumentVersion, study.instrument_id)
    assert study.id is not None and version is not None
    judgments = study_judgments(session, study.id)
    if judgments.empty:
        raise InputError(f"stored study {name!r} has no judgments yet")
    return StoredStudy(
        study=study.model_dump(mode="json"),
        instrument=version.model_dump(mode="json"),
        judgments=judgments,
    )
