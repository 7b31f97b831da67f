"""Pause a running study (nobody new starts) and resume it, on platforms that can.

Prolific pauses its study (its ``PAUSE`` and ``START`` transitions); a study link has no
platform, so harness's entry page turns new arrivals away while the study is paused. Either
way, work under way is not touched: participants already working finish and submit. MTurk's
API has no pause: `pause_study` refuses with what MTurk can do instead (expire, for good).

The study's status in the store (``paused`` / ``running``) is the record, changed under the
study's lock and then its places lock (`harness.store.locks`, in that order), so two people
pausing at once pause it once, and an arrival (which reads the status under the places lock)
starts wholly before a pause or not at all. Each move
records its intent and the new status before the platform call and its result after, each
committed at once: a process killed in between leaves the intent with no result, and the next
pause (or resume) finishes it (the platform calls are idempotent). A platform that refuses puts
the status back and logs why (``study.pause.failed``, ``study.resume.failed``).

A platform may pause a study itself (Prolific does, on its own checks), and a person may pause
or resume it on the platform's website: `read_platform_pause` reads the platform's study
(`ReportsPause`) and records what it finds (``study.paused`` / ``study.resumed`` with
``source: platform``), so `harness status`, sync, the dashboard and `harness resume` know.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from sqlmodel import Session, col, select

from harness.errors import HarnessError, PlatformError
from harness.platform.contract import Pauses, Provider, pausing
from harness.platform.places import published_ref
from harness.store.events import record_event
from harness.store.locks import lock_places, lock_study
from harness.store.models import Event, EventKind, Study, StudyStatus
from harness.store.studies import LaunchedStudy


@dataclass(frozen=True)
class Move:
    """Pausing or resuming: from which status to which, and what the log calls each step."""

    verb: str
    source: StudyStatus
    to: StudyStatus
    intent: EventKind
    done: EventKind
    failed: EventKind


PAUSE = Move(
    "pause",
    StudyStatus.RUNNING,
    StudyStatus.PAUSED,
    EventKind.STUDY_PAUSE_INTENT,
    EventKind.STUDY_PAUSED,
    EventKind.STUDY_PAUSE_FAILED,
)
RESUME = Move(
    "resume",
    StudyStatus.PAUSED,
    StudyStatus.RUNNING,
    EventKind.STUDY_RESUME_INTENT,
    EventKind.STUDY_RESUMED,
    EventKind.STUDY_RESUME_FAILED,
)
MOVE_KINDS = (PAUSE.intent, PAUSE.done, PAUSE.failed, RESUME.intent, RESUME.done, RESUME.failed)
_INTENTS = (PAUSE.intent, RESUME.intent)


@runtime_checkable
class ReportsPause(Protocol):
    """A provider that can say whether the platform's study takes new workers now."""

    def paused_on_platform(self, study_ref: str) -> bool | None:
        """True: paused; False: taking workers; None: neither (not published, stopped for
        good, ...: nothing to record as a pause or a resume)."""
        ...


PLATFORM_PAUSED = "paused on the platform (by the platform itself or on its website)"
PLATFORM_RESUMED = "resumed on the platform (on its website)"


def read_platform_pause(session: Session, provider: Provider, study: LaunchedStudy) -> str | None:
    """Read whether the platform's study is paused and record a pause or resume made there:
    a line saying what was recorded, None when nothing changed (or the platform cannot say).

    Only a running study becomes paused and a paused one running; a move of harness's own
    whose platform call has no result yet (an intent, `_move`) is left for it to finish, and
    one made while the platform was read makes what was read stale: nothing is recorded (the
    next read sees the platform after it). Commits what it records. `HarnessError` when the
    platform cannot be read.
    """
    if not isinstance(provider, ReportsPause):
        return None
    session.commit()  # what the caller read is not this transaction's concern
    ref = published_ref(session, study.id)
    if ref is None:
        return None
    before = _last_move(session, study.id)
    paused = provider.paused_on_platform(ref)  # outside the lock: a platform call may be slow
    if paused is None:
        return None
    move = PAUSE if paused else RESUME
    _lock(session, study.id)
    row = _study(session, study.id)
    last = _last_move(session, study.id)
    moved = (last.id if last else None) != (before.id if before else None)
    if row.status is not move.source or moved or (last is not None and last.kind in _INTENTS):
        session.commit()
        return None
    reason = PLATFORM_PAUSED if paused else PLATFORM_RESUMED
    _set(session, row, study, move.to, move.done, reason=reason, platform=ref, source="platform")
    return f"{study.name}: {reason}; recorded as {move.to.value}"


def pause_study(session: Session, provider: Provider, study: LaunchedStudy, reason: str) -> bool:
    """Stop the study taking new workers until it is resumed; False when it was paused already.
    `PlatformError` when the platform has no pause (saying what it can do instead), or the
    study is not running."""
    return _move(session, provider, study, PAUSE, reason)


def resume_study(session: Session, provider: Provider, study: LaunchedStudy, reason: str) -> bool:
    """Let new workers start a paused study again; False when it was running already."""
    return _move(session, provider, study, RESUME, reason)


def _move(
    session: Session, provider: Provider, study: LaunchedStudy, move: Move, reason: str
) -> bool:
    support = pausing(provider.platform)
    if not support.can or not isinstance(provider, Pauses):
        raise PlatformError(support.says)
    try:
        read_platform_pause(session, provider, study)  # paused or resumed there: known first
    except HarnessError:
        session.rollback()  # unreadable now: the move's own call says what is wrong
    session.commit()  # what the caller read is not this transaction's concern
    _lock(session, study.id)
    row = _study(session, study.id)
    ref = published_ref(session, study.id)
    if row.status is move.to:
        last = _last_move(session, study.id)
        if last is None or last.kind is not move.intent:
            session.commit()
            return False  # done already
        # an intent with no result: its process died (or is calling now); finish it
    elif row.status is not move.source or ref is None:
        session.commit()
        raise PlatformError(_refusal(study.name, row.status, move))
    else:
        _set(session, row, study, move.to, move.intent, reason=reason, **{"from": row.status.value})
    assert ref is not None
    try:
        (provider.pause if move is PAUSE else provider.resume)(ref)
    except HarnessError as exc:
        _undo(session, study, move, reason, exc)
        raise
    _lock(session, study.id)
    row = _study(session, study.id)
    last = _last_move(session, study.id)
    if row.status is move.to and last is not None and last.kind is move.done:
        session.commit()
        return False  # another process finished the same move meanwhile
    _set(session, row, study, move.to, move.done, reason=reason, platform=ref)
    return True


def _undo(session: Session, study: LaunchedStudy, move: Move, reason: str, exc: Exception) -> None:
    """The platform refused (or could not be reached): the study is as it was, and the log
    says why. A call that may have gone through is harmless: the next move looks first."""
    session.rollback()
    _lock(session, study.id)
    row = _study(session, study.id)
    last = _last_move(session, study.id)
    if row.status is move.to and last is not None and last.kind is move.intent:
        _set(session, row, study, move.source, move.failed, reason=reason, error=str(exc))
    session.commit()


def _set(
    session: Session,
    row: Study,
    study: LaunchedStudy,
    status: StudyStatus,
    kind: EventKind,
    **payload: str,
) -> None:
    """Give the study ``status``, log ``kind`` with ``payload``, and commit both."""
    row.status = status
    session.add(row)
    record_event(session, kind, study_id=study.id, subject=study.name, payload=dict(payload))
    session.commit()


def _lock(session: Session, study_id: int) -> None:
    """The study's lock, then its places lock: the status is what arrivals read."""
    lock_study(session, study_id)
    lock_places(session, study_id)


def _study(session: Session, study_id: int) -> Study:
    query = select(Study).where(Study.id == study_id)
    return session.exec(query.execution_options(populate_existing=True)).one()


def _last_move(session: Session, study_id: int) -> Event | None:
    return session.exec(
        select(Event)
        .where(Event.study_id == study_id, col(Event.kind).in_(MOVE_KINDS))
        .order_by(col(Event.id).desc())
        .limit(1)
    ).first()


def _refusal(name: str, status: StudyStatus, move: Move) -> str:
    if status in (StudyStatus.DRAFT, StudyStatus.LAUNCHING):
        return f"study {name!r} is not launched yet ({status.value}): launch it first"
    wanted = "running" if move is PAUSE else "paused"
    return f"study {name!r} is {status.value}: only a {wanted} study can be {move.verb}d"
