"""The judgment store: SQLModel tables, migrations, and the long table in and out."""

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
