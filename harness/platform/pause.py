"""Pause a running study (nobody new starts) and resume it, on platforms that can.

Prolific pauses its study (its ``PAUSE`` and ``START`` transitions); a study link has no
platform, so harness's entry page turns new arrivals away while the study is paused. Either
way, work under way is not touched: participants already working finish and submit. MTurk's
API has no pause: `pause_study` refuses with what MTurk can do instead (expire, for good).

The study's status in the store (``paused`` / ``running``) is the record, changed under the
study's lock (`harness.store.locks`), so two people pausing at once pause it once. Each move
records its intent and the new status before the platform call and its result after, each
committed at once: a process killed in between leaves the intent with no result, and the next
pause (or resume) finishes it (the platform calls are idempotent). A platform that refuses puts
the status back and logs why (``study.pause.failed``, ``study.resume.failed``).
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlmodel import Session, col, select

from harness.errors import HarnessError, PlatformError
from harness.platform.places import published_ref
from harness.platform.provider import Pauses, Provider, pausing
from harness.store.events import record_event
from harness.store.locks import lock_study
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


PAUSE = Move("pause", StudyStatus.RUNNING, StudyStatus.PAUSED, EventKind.STUDY_PAUSE_INTENT,
             EventKind.STUDY_PAUSED, EventKind.STUDY_PAUSE_FAILED)  # fmt: skip
RESUME = Move("resume", StudyStatus.PAUSED, StudyStatus.RUNNING, EventKind.STUDY_RESUME_INTENT,
              EventKind.STUDY_RESUMED, EventKind.STUDY_RESUME_FAILED)  # fmt: skip
MOVE_KINDS = (PAUSE.intent, PAUSE.done, PAUSE.failed, RESUME.intent, RESUME.done, RESUME.failed)


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
    session.commit()  # what the caller read is not this transaction's concern
    lock_study(session, study.id)
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
        record_event(session, move.intent, study_id=study.id, subject=study.name,
                     payload={"reason": reason, "from": row.status.value})  # fmt: skip
        row.status = move.to
        session.add(row)
    session.commit()
    assert ref is not None
    try:
        (provider.pause if move is PAUSE else provider.resume)(ref)
    except HarnessError as exc:
        _undo(session, study, move, reason, exc)
        raise
    lock_study(session, study.id)
    row = _study(session, study.id)
    last = _last_move(session, study.id)
    if row.status is move.to and last is not None and last.kind is move.done:
        session.commit()
        return False  # another process finished the same move meanwhile
    row.status = move.to
    session.add(row)
    record_event(session, move.done, study_id=study.id, subject=study.name,
                 payload={"reason": reason, "platform": ref})  # fmt: skip
    session.commit()
    return True


def _undo(session: Session, study: LaunchedStudy, move: Move, reason: str, exc: Exception) -> None:
    """The platform refused (or could not be reached): the study is as it was, and the log
    says why. A call that may have gone through is harmless: the next move looks first."""
    session.rollback()
    lock_study(session, study.id)
    row = _study(session, study.id)
    last = _last_move(session, study.id)
    if row.status is move.to and last is not None and last.kind is move.intent:
        row.status = move.source
        session.add(row)
        record_event(session, move.failed, study_id=study.id, subject=study.name,
                     payload={"reason": reason, "error": str(exc)})  # fmt: skip
    session.commit()


def _study(session: Session, study_id: int) -> Study:
    row = session.exec(
        select(Study).where(Study.id == study_id).execution_options(populate_existing=True)
    ).one()
    return row


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
