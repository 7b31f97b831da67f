"""A participant's session belongs to the browser that started it (Prolific, a study link).

The task page's address (``/p/<study>/s/<session>``) and its page token are not secrets: they
show in a browser's history, on a shared screen, in a proxy's log, in a link pasted in a forum.
So when an arrival is given a new place, the answer sets a cookie that only that browser holds:
an HMAC of (study, session, participant) under the store's key (`harness.web.tokens`), HttpOnly
(no page script reads it), SameSite=Lax (sent on the top-level navigation from the platform,
never with another site's posts), Secure over https, and sent only under ``/p/``. The task
page, its submission and a second arrival for a place already held all want it: without it,
a page says the task was started in another browser, nothing is stored, and the attempt is
an event (``slot.other_browser``) the researcher sees.
"""

from __future__ import annotations

import hashlib
import hmac
from datetime import timedelta

from flask import Request, Response
from sqlmodel import Session
from werkzeug.wrappers import Response as BaseResponse

from harness.i18n import N_, _
from harness.store.events import EventKind, log_event
from harness.web.messages import message_page
from harness.web.trust import trust

SCOPE = "browser"
"""The cookie's scope among the store's signed values (`harness.web.tokens.PageKeys.sign`)."""
KEPT = timedelta(days=30)
"""How long a browser keeps a session's cookie: past any reservation, which an arrival from
the same browser may take up again."""
TITLE = N_("Started in another browser")
PAGE = N_(
    "This task was started in another browser or on another device, and only that browser can "
    "continue it: please go back to it. If you cannot, contact the researcher. Nothing was "
    "stored from here."
)
REFUSED = N_(
    "This task was started in another browser or on another device; answers are taken only "
    "from there. Nothing was stored."
)


def cookie_name(study: str, ref: str) -> str:
    """The cookie of one session (a name of its own: a browser may hold several sessions)."""
    return "hs-" + hashlib.sha256(f"{study}\x1f{ref}".encode()).hexdigest()[:24]


def _value(study: str, ref: str, participant: str) -> str:
    return trust().keys.sign(SCOPE, unit=study, assignment_id=ref, worker_id=participant)


def bind(response: BaseResponse, request: Request, study: str, ref: str, participant: str) -> None:
    """Give the browser that ``request`` came from the session ``ref`` (its new place)."""
    forwarded = request.headers.get("X-Forwarded-Proto", "").split(",")[0].strip().lower()
    response.set_cookie(
        cookie_name(study, ref),
        _value(study, ref, participant),
        max_age=int(KEPT.total_seconds()),
        path="/p/",
        secure=request.is_secure or forwarded == "https",
        httponly=True,
        samesite="Lax",
    )


def forget(response: BaseResponse, study: str, ref: str) -> None:
    """Drop the session's cookie (its answers are stored): a browser keeps only live ones."""
    response.delete_cookie(cookie_name(study, ref), path="/p/", httponly=True, samesite="Lax")


def holds(request: Request, study: str, ref: str, participant: str) -> bool:
    """Whether ``request`` comes from the browser that started the session."""
    held = request.cookies.get(cookie_name(study, ref), "")
    return hmac.compare_digest(held.encode(), _value(study, ref, participant).encode())


def other_browser(
    session: Session, study_id: int, ref: str, participant: str, request: Request, at: str
) -> None:
    """Record an attempt on session ``ref`` from a browser that did not start it (``at``: the
    arrival, the page or the submission), with what the request says of where it came from."""
    log_event(
        session,
        EventKind.SLOT_OTHER_BROWSER,
        study_id=study_id,
        subject=ref,
        payload={
            "participant": participant,
            "at": at,
            "user_agent": request.headers.get("User-Agent", "")[:200],
        },
    )


def other_browser_page() -> Response:
    """What a browser that did not start the session sees instead of the task."""
    page = message_page(_(TITLE), _(PAGE), 403)
    page.headers["Cache-Control"] = "no-store"
    return page
