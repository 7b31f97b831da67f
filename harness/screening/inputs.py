"""What `harness screen` reads: the judgments and their screening context, from a stored study
(under the spec its instrument was frozen from) or from a long CSV and its spec; and the
heuristics named on the command line."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from harness.errors import InputError, JudgmentsError
from harness.judgments import read_judgments
from harness.screening.context import ScreeningContext
from harness.screening.registry import resolve
from harness.screening.stored import study_context
from harness.spec import load_spec
from harness.spec.scale import Scale

MAX_REPORTED = 5
"""Problem rows named one by one before "... and N more"."""


def stored_inputs(study: str, db: str | None) -> tuple[pd.DataFrame, ScreeningContext]:
    """A stored study's judgments and its screening context."""
    from harness.store import find_study, session_scope, study_judgments
    from harness.store.database import open_store

    engine = open_store(db)
    try:
        with session_scope(engine) as session:
            found = find_study(session, study)
            assert found.id is not None
            return study_judgments(session, found.id), study_context(session, found)
    finally:
        engine.dispose()


def file_inputs(judgments: Path, spec: Path) -> tuple[pd.DataFrame, ScreeningContext]:
    """A long judgments CSV and the screening context of its task spec; values the spec's
    scale does not allow are refused (`check_scale`)."""
    loaded = load_spec(spec)
    table = read_judgments(judgments)
    check_scale(table, loaded.scale, judgments)
    return table, ScreeningContext.from_spec(loaded)


def check_scale(judgments: pd.DataFrame, scale: Scale, path: Path) -> None:
    """Refuse values the spec's scale does not allow, naming the file, line and value.

    Each distinct value is checked once with `Scale.accepts` (the spec's own rule); lines are
    counted from the header (line 1) as `read_judgments` numbers them.
    """
    values = judgments["value"]
    rated = values.notna() & ~judgments["skipped"].astype(bool)
    outside = [v for v in pd.unique(values[rated]) if not scale.accepts(float(v))]
    if not outside:
        return
    rows = np.flatnonzero((rated & values.isin(outside)).to_numpy())
    problems = [
        f"{path}:{row + 2}: value: {values.iloc[row]:g} is not on the spec's scale "
        f"({scale.describe()})"
        for row in rows[:MAX_REPORTED]
    ]
    if len(rows) > MAX_REPORTED:
        problems.append(f"{path}: value: ... and {len(rows) - MAX_REPORTED} more rows like that")
    raise JudgmentsError("\n".join(problems))


def heuristic_names(only: str | None) -> list[str] | None:
    """The heuristics a comma-separated list names (keys or codes); None for all of the
    policy's; `InputError` naming the unknown ones."""
    if only is None:
        return None
    names = [n.strip() for n in only.split(",") if n.strip()]
    unknown = [n for n in names if not _known(n)]
    if unknown or not names:
        raise InputError(
            f"--only: unknown heuristic(s) {', '.join(unknown) or '(none given)'}; "
            "expected keys or codes H1-H13 (e.g. H3,consensus_correlation), radical, centrist"
        )
    return names


def _known(name: str) -> bool:
    try:
        resolve(name)
    except KeyError:
        return False
    return True
