"""A message to one worker: its subject and text checked against what the platform carries,
and sent once per (worker, subject, text) however many tabs, clicks or processes ask.

Sending is not idempotent on any platform (MTurk's NotifyWorkers and Prolific's messages take
no token), so it is claimed as a block is (`harness.store.action_claims`): `begin_action`
under the study's lock, the intent recorded before the call and the result after. A second
request finds the message sent (False) or being sent (`ActionInProgress`); a call that failed
is logged as such and may be tried again. A process killed between the call and its record
leaves the intent alone: the next attempt sends it again, the one case where a worker may read
it twice (no platform can say whether a message arrived).
"""

from __future__ import annotations

from sqlmodel import Session, col, select

from harness.errors import InputError, PlatformError
from harness.platform.contract import Messages, Messaging, PlacesProvider, Provider, messaging
from harness.platform.launch_plan import action_token
from harness.platform.places import published_ref
from harness.store.action_claims import begin_action, intent
from harness.store.events import EventKind, record_event
from harness.store.models import Assignment, Hit, Worker
from harness.store.studies import LaunchedStudy


class MessageRefused(InputError):
    """A message cannot be sent as written (its subject or text says why)."""


def checked_message(found: Messaging, subject: str, text: str) -> tuple[str | None, str]:
    """The message's subject (None where the platform's messages have none) and text, with
    their outer spaces removed; `MessageRefused` naming the field that is empty or too long,
    and why the platform has no message at all."""
    if not found.can:
        raise MessageRefused(f"no message sent: {found.says}")
    text = _within("message text", text, found.text, "write what the worker should read")
    if found.subject is None:
        return None, text
    why = "the platform sends it as the title"
    return _within("message subject", subject, found.subject, why), text


def _within(field: str, value: str, most: int, needed: str) -> str:
    """``value`` without its outer spaces; `MessageRefused` naming ``field`` when it is empty
    (``needed`` says why it may not be) or longer than ``most`` characters."""
    value = value.strip()
    if not value:
        raise MessageRefused(f"{field}: empty; {needed}")
    if len(value) > most:
        raise MessageRefused(f"{field}: {len(value)} characters, over the platform's {most}")
    return value


def message_token(worker_id: str, subject: str | None, text: str) -> str:
    """The message's identity: the worker, the subject and the text."""
    return action_token("message", worker_id, subject or "", text)


def message_worker(
    session: Session,
    provider: Provider,
    study: LaunchedStudy,
    worker_id: str,
    subject: str,
    text: str,
    reason: str,
) -> bool:
    """Send a worker of the study a message, once per (worker, subject, text); False when it
    was sent already. `MessageRefused` for an empty or long text, a platform with no message or
    a worker with no work in the study; `ActionInProgress` while another request sends it."""
    subject_sent, text = checked_message(messaging(provider.platform), subject, text)
    if not isinstance(provider, Messages):
        raise PlatformError(f"{provider.platform.label}'s provider sends no message")
    if not _works_here(session, study.id, worker_id):
        raise MessageRefused(f"study {study.name!r} has no worker {worker_id!r}")
    token = message_token(worker_id, subject_sent, text)
    if not begin_action(
        session, study.id, EventKind.MESSAGE_INTENT, EventKind.MESSAGED, token, reason
    ):
        return False
    study_ref = None
    if isinstance(provider, PlacesProvider):
        study_ref = published_ref(session, study.id)
    sent = {"worker": worker_id, "title": subject_sent, "text": text, "reason": reason}
    with intent(session, study.id, EventKind.MESSAGE_INTENT, token, **sent):
        provider.message(worker_id, subject_sent, text, study_ref)
        record_event(session, EventKind.MESSAGED, study_id=study.id, subject=token, payload=sent)
        session.commit()
    return True


def _works_here(session: Session, study_id: int, worker_id: str) -> bool:
    """Whether the worker has an assignment in the study."""
    return (
        session.exec(
            select(Assignment.id)
            .join(Hit, col(Hit.id) == col(Assignment.hit_id))
            .join(Worker, col(Worker.id) == col(Assignment.worker_id))
            .where(Hit.study_id == study_id, Worker.platform_worker_id == worker_id)
            .limit(1)
        ).first()
        is not None
    )
