"""What happens after a submission is stored: screen it live, and carry out what screening
decided on the study's platform at once (block, reject, replace), instead of waiting for
`harness review`.

The task server and sync call `run_after_submission` with the hook the command chose (`screen`
or `screen_and_act`, see `hook`). The judgments are committed before the hook runs, so a failing
hook loses nothing: the failure is logged as an event (the dashboard shows it), the assignment
stays unscreened, and the next call (the next submission, sync, review, a task server's
start or its sweep a few seconds later, `catch_up`) screens it.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

import sqlalchemy as sa

from harness.clock import utcnow
from harness.platform.decisions import apply_pending_decisions
from harness.platform.registry import ARCHIVE_TARGET, provider_for
from harness.store.database import session_scope
from harness.store.decisions import studies_with_open_decisions
from harness.store.events import EventKind, record_event
from harness.store.models import Study
from harness.store.studies import LaunchedStudy, launched

StudyRef = LaunchedStudy | int
"""A launched study, as the caller holds it: its rows (sync, the rechecks: read once there) or
only its store id (a task page's post, a look for work left: read once, by the hook)."""
AfterSubmission = Callable[[sa.Engine, StudyRef, int | None], None]
"""Called with the engine, the study and the new assignment's store id after a submission is
committed (no assignment: whatever of the study is waiting)."""


def launched_of(engine: sa.Engine, study: StudyRef) -> LaunchedStudy:
    """``study``'s rows: as given, or read now (one transaction) from its id."""
    if isinstance(study, LaunchedStudy):
        return study
    with session_scope(engine) as session:
        found = session.get(Study, study)
        assert found is not None
        return launched(session, found)


def study_id_of(study: StudyRef) -> int:
    return study.id if isinstance(study, LaunchedStudy) else study


def screen(engine: sa.Engine, study: StudyRef, _assignment: int | None = None) -> None:
    """Screen the study's stored assignments not screened yet (the new one among them),
    storing decisions for review."""
    from harness.screening.live import screen_pending  # pandas and scipy: imported when used

    screen_pending(engine, study.study if isinstance(study, LaunchedStudy) else study)


def screen_and_act(engine: sa.Engine, study: StudyRef, _assignment: int | None = None) -> None:
    """Screen, then carry out the study's pending decisions on its platform (none for a
    study imported from a platform's files: there is no platform to act on), and close an
    adaptive study whose items are all done (`harness.platform.adaptive_finish`)."""
    from harness.platform.adaptive_finish import finish_if_done  # pandas and scipy, as above

    running = launched_of(engine, study)
    screen(engine, running)
    if running.target == ARCHIVE_TARGET:
        return
    provider = provider_for(running, shared=True)
    with session_scope(engine) as session:
        apply_pending_decisions(session, provider, running)
    finish_if_done(engine, provider, running)


def hook(apply: bool) -> AfterSubmission:
    """The after-submission hook: screen, and (``apply``) act on the decisions."""
    return screen_and_act if apply else screen


def run_after_submission(
    engine: sa.Engine, after: AfterSubmission, study: StudyRef, assignment_pk: int | None = None
) -> str | None:
    """Run ``after`` for a new assignment; on failure log it
    (``assignment.after_submission_failed``) and return what failed, for the caller to report."""
    try:
        after(engine, study, assignment_pk)
    except Exception as exc:  # noqa: BLE001 - logged as an event and returned, not swallowed
        message = f"{type(exc).__name__}: {exc}"
        with session_scope(engine) as session:
            record_event(
                session,
                EventKind.AFTER_SUBMISSION_FAILED,
                study_id=study_id_of(study),
                subject=None if assignment_pk is None else str(assignment_pk),
                payload={"error": message},
            )
        return message
    return None


RECENT = timedelta(minutes=10)
"""Pending decisions older than this are left to the next submission's screening and to sync
(`catch_up` with ``recent_only``): one pending that long waits for something, e.g. an
assignment the platform never got, and asking the platform every few seconds would not help."""


def catch_up(
    engine: sa.Engine, after: AfterSubmission, *, acting: bool, recent_only: bool = False
) -> dict[int, str | None]:
    """Run ``after`` for every study a stopped process left work in: stored assignments live
    screening has not taken into account (a server killed between storing and screening, a
    hook that failed) and, when ``after`` acts on decisions (``acting``), decisions still to
    carry out (one whose process was killed mid-action among them; ``recent_only``: pending
    ones made in the last `RECENT`). What a task server does as it starts, then every few
    seconds (`harness.platform.submissions.background.Sweep`). Returns each such study's
    failure (None: done); failures are logged as events, like any hook's."""
    from harness.store.judgment_table import studies_with_unscreened  # pandas, as above

    with session_scope(engine) as session:
        studies = set(studies_with_unscreened(session))
        if acting:
            since = utcnow() - RECENT if recent_only else None
            studies.update(studies_with_open_decisions(session, since))
    return {study: run_after_submission(engine, after, study) for study in sorted(studies)}
