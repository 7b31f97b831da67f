"""Launching on a platform with places (Prolific, a study link): one study, a slot per rater.

Instead of posting one unit per HIT, the launch opens one study whose places are every slot of
every HIT (HITs x raters per item) and records each HIT with a slot reference
(``<study id>#<index>``), so sync, review, status and expire find the study from any HIT. The
participant pages (`harness.web.participants`) allocate the slots. Opening the study is found
again by its label after a crash (`PlacesProvider.open_places` looks before it creates), so a
re-run opens nothing twice.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Protocol, runtime_checkable
from urllib.parse import quote

import sqlalchemy as sa
from sqlmodel import Session, col, select

from harness.errors import PlatformError
from harness.platform.contract import PlacesProvider, PlacesStudy, Prepared, WorkSettings
from harness.platform.launch_plan import label_prefix
from harness.store.allocation import ensure_slots
from harness.store.database import session_scope
from harness.store.events import EventKind, record_event
from harness.store.locks import lock_places
from harness.store.models import Event, Hit, HitStatus, StoreSecret
from harness.store.studies import LaunchedStudy

ENTRY = "/p/"
"""Where a study's entry page is on the task server: ``/p/<study name>``."""
HOOKS = "/hooks/"
"""Where a platform's hooks are received on the task server: ``/hooks/<platform name>``."""


@runtime_checkable
class HookProvider(Protocol):
    """A places provider that can post submission status changes to the task server."""

    def hook_refusal(self, target_url: str) -> str | None:
        """Why the platform cannot post to ``target_url`` (None: it can)."""
        ...

    def subscribe(self, target_url: str) -> tuple[str, str]:
        """Subscribe ``target_url`` (idempotent); the account key and the signing secret."""
        ...


def hook_secret_name(platform: str, key: str) -> str:
    """The name the store keeps a platform account's hook secret under (`StoreSecret`)."""
    return f"hook:{platform}:{key}"[:40]


def hook_url(public_url: str, platform: str) -> str:
    return f"{public_url.rstrip('/')}{HOOKS}{platform}"


def entry_url(public_url: str, study_name: str) -> str:
    """The address participants are sent to (the platform appends its own parameters)."""
    return f"{public_url.rstrip('/')}{ENTRY}{quote(study_name)}"


def completion_code(study_name: str, launch_id: str) -> str:
    """The study's completion code: the same for a study and its launch, different for every
    other, so the launch (which tells the platform) and the pages (which show it) agree
    without storing it."""
    digest = hashlib.sha256(f"complete\x1f{study_name}\x1f{launch_id}".encode()).hexdigest()
    return digest[:8].upper()


def study_label(study_name: str, launch_id: str) -> str:
    """The label the study is found again by (its internal name on the platform)."""
    return label_prefix(study_name, launch_id).removesuffix(" hit=")


def slot_ref(study_ref: str, index: int) -> str:
    """A HIT's reference on a places platform: its study and its index."""
    return f"{study_ref}#{index}"


def study_ref_of(hit_ref: str) -> str:
    """The platform's study id in a HIT's reference made by `slot_ref`."""
    return hit_ref.rsplit("#", 1)[0]


def places_of(session: Session, study_id: int) -> int:
    """Every slot the study wants now: the sum of its HITs' raters."""
    return sum(session.exec(select(Hit.max_assignments).where(Hit.study_id == study_id)).all())


def published_ref(session: Session, study_id: int) -> str | None:
    """The platform's id of the study's one published study, if it was opened."""
    ref = session.exec(
        select(Hit.platform_hit_id).where(
            Hit.study_id == study_id, col(Hit.platform_hit_id).is_not(None)
        )
    ).first()
    return None if ref is None else study_ref_of(ref)


def open_places(
    engine: sa.Engine,
    provider: PlacesProvider,
    running: LaunchedStudy,
    settings: WorkSettings,
    prepared: Prepared,
    on_posted: Callable[[int], None] | None = None,
) -> int:
    """Open the study (once) and give every HIT its slot reference; how many HITs got one."""
    study_id = running.id
    with session_scope(engine) as session:
        missing = [
            h.index
            for h in session.exec(select(Hit).where(Hit.study_id == study_id))
            if h.platform_hit_id is None
        ]
        if not missing:
            return 0
        known = published_ref(session, study_id)
        places = places_of(session, study_id)
        record_event(
            session,
            EventKind.PLACES_OPEN_INTENT,
            study_id=study_id,
            subject=running.name,
            payload={"places": places, "known": known},
        )
    public = running.platform.public_url or ""
    study = PlacesStudy(
        label=study_label(running.name, running.platform.launch_id),
        places=places,
        url=entry_url(public, running.name),
        completion_code=completion_code(running.name, running.platform.launch_id),
        settings=settings,
        exclude_ref=prepared.exclude_ref,
    )
    published = provider.open_places(prepared.work_type_id, study)
    with session_scope(engine) as session:
        lock_places(session, study_id)  # first: the slots are what arrivals take
        for hit in session.exec(select(Hit).where(Hit.study_id == study_id)):
            if hit.platform_hit_id is None:
                hit.platform_hit_id = slot_ref(published.platform_id, hit.index)
                hit.status = HitStatus(published.state.value)
                session.add(hit)
        ensure_slots(session, study_id)
        record_event(
            session,
            EventKind.PLACES_OPENED,
            study_id=study_id,
            subject=published.platform_id,
            payload={"places": published.assignments, "url": study.url, "hits": len(missing)},
        )
    if on_posted:
        on_posted(len(missing))
    return len(missing)


def subscribe_hooks(engine: sa.Engine, provider: object, running: LaunchedStudy) -> str | None:
    """Subscribe the task server to the platform's submission status changes when the platform
    can reach it (a public https URL for Prolific; loopback for the local service), keeping
    the signing secret in the store for the receiving route (`harness.providers.prolific.webhooks`).
    Logged once either way; a line for the person (None: the platform has no hooks)."""
    if not isinstance(provider, HookProvider):
        return None
    name = running.platform.provider
    public = running.platform.public_url
    url = hook_url(public, name) if public else ""
    why = "no public URL" if not public else provider.hook_refusal(url)
    if why is None:
        try:
            key, secret = provider.subscribe(url)
        except PlatformError as exc:
            why = f"subscribing failed: {exc}"
    with session_scope(engine) as session:
        if why is None:
            stored = session.get(StoreSecret, hook_secret_name(name, key))
            if stored is None:
                stored = StoreSecret(name=hook_secret_name(name, key), value=secret)
            stored.value = secret
            session.add(stored)
        subject = url or name
        kind = EventKind.NOTIFICATIONS
        last = session.exec(
            select(Event)
            .where(Event.kind == kind, Event.subject == subject, Event.study_id == running.id)
            .order_by(col(Event.id).desc())
        ).first()
        if last is None or last.payload.get("subscribed") != (why is None):
            payload: dict[str, object] = {
                "hooks": "submission.status.change",
                "subscribed": why is None,
            }
            if why is not None:
                payload["why"] = f"{why}; sync polls"
            record_event(session, kind, study_id=running.id, subject=subject, payload=payload)
    if why is None:
        return f"hooks: {url} receives submission status changes (`harness sync` polls too)"
    return f"hooks: not subscribed ({why}); `harness sync` polls for status changes"
