"""The judgment store: SQLModel tables, migrations, and the long table in and out.

The names below are loaded on first use, so that importing one module of the store (say
`harness.store.database`) does not import every other one and the table library with them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from harness.lazy import lazy_names

if TYPE_CHECKING:
    from harness.store.database import database_url, make_engine, session_scope
    from harness.store.events import EventKind, record_event
    from harness.store.instruments import create_study, freeze_instrument, frozen_instrument
    from harness.store.judgment_table import study_judgments
    from harness.store.studies import (
        LaunchedStudy,
        StoredStudy,
        find_study,
        launched_study,
        load_study,
    )

_HOMES = {
    "database_url": ".database",
    "make_engine": ".database",
    "session_scope": ".database",
    "EventKind": ".events",
    "record_event": ".events",
    "create_study": ".instruments",
    "freeze_instrument": ".instruments",
    "frozen_instrument": ".instruments",
    "study_judgments": ".judgment_table",
    "LaunchedStudy": ".studies",
    "StoredStudy": ".studies",
    "find_study": ".studies",
    "launched_study": ".studies",
    "load_study": ".studies",
}

__all__ = [
    "EventKind",
    "LaunchedStudy",
    "StoredStudy",
    "create_study",
    "database_url",
    "find_study",
    "freeze_instrument",
    "frozen_instrument",
    "launched_study",
    "load_study",
    "make_engine",
    "record_event",
    "session_scope",
    "study_judgments",
]


__getattr__ = lazy_names(__name__, _HOMES)
