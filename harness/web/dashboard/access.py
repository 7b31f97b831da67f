"""Who may see the dashboard: one password set by the researcher, a signed session cookie,
a CSRF token on every state change, and a login that slows down guessing.

- The password comes from `PASSWORD_VARIABLE` (or is given to `DashboardSettings` directly).
  Without one the dashboard serves loopback only; any other address needs one of at least
  `MIN_PASSWORD` characters (`DashboardSettings.from_environment` refuses otherwise).
- The session cookie (`COOKIE_NAME`, its own name, so nothing of the worker pages is ever
  read as a dashboard login) is ``HttpOnly`` and ``SameSite=Strict``, and ``Secure`` when
  the settings say the dashboard is reached over https.
- Every POST of the dashboard carries the session's CSRF token (a form field or the
  ``X-CSRF-Token`` header); `guard` refuses one without it (403) before any view runs.
- Login: failed attempts are counted per client address in the store, shared by every
  process (`harness.store.dashboard_logins`): after a few, each one doubles the wait before
  the next (429 meanwhile). A session has an id; logging out records it as ended, so a copy
  of its cookie taken before opens nothing afterwards.

The cookie is signed with `DashboardSettings.secret`: `SECRET_VARIABLE` when set, else a key
derived from the password with PBKDF2, so that several server processes (gunicorn workers)
accept each other's sessions and a changed password ends every session.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
from dataclasses import dataclass
from typing import TYPE_CHECKING

from flask import abort, g, redirect, request, session, url_for

from harness.errors import InputError
from harness.platform.local_service import is_loopback

if TYPE_CHECKING:
    import sqlalchemy as sa

PASSWORD_VARIABLE = "HARNESS_DASHBOARD_PASSWORD"
SECRET_VARIABLE = "HARNESS_DASHBOARD_SECRET"
COOKIE_NAME = "harness_dashboard"
CSRF_FIELD = "csrf_token"
CSRF_HEADER = "X-CSRF-Token"
MIN_PASSWORD = 12
"""The shortest password the dashboard takes on an address other than loopback."""
SESSION_ID = "sid"
_KDF_SALT = b"harness-dashboard-session-v1"
_KDF_ROUNDS = 200_000


@dataclass(frozen=True)
class DashboardSettings:
    """How the dashboard is protected: the password, the cookie's signing key, and whether
    the cookie is marked ``Secure`` (https only)."""

    password: str
    secret: bytes
    secure_cookie: bool = False

    @classmethod
    def from_environment(
        cls, host: str, *, password: str | None = None, secure_cookie: bool = False
    ) -> DashboardSettings:
        """The settings for serving on ``host``: the password from `PASSWORD_VARIABLE` (or
        ``password``); on loopback without one, a random password made for this run (the
        command prints it). `InputError` on any other address without a password of at
        least `MIN_PASSWORD` characters."""
        chosen = password or os.environ.get(PASSWORD_VARIABLE, "")
        if not is_loopback(host) and len(chosen) < MIN_PASSWORD:
            given = f"the one given has {len(chosen)}" if chosen else "none is given"
            raise InputError(
                f"the dashboard on {host} needs a password of at least {MIN_PASSWORD} "
                f"characters in {PASSWORD_VARIABLE} ({given}; a long random one is best), or "
                "serve it on 127.0.0.1"
            )
        if not chosen:
            chosen = secrets.token_urlsafe(12)
        given_secret = os.environ.get(SECRET_VARIABLE, "")
        secret = given_secret.encode() if given_secret else derive_secret(chosen)
        return cls(chosen, secret, secure_cookie)


def password_notice(settings: DashboardSettings) -> str:
    """What the person starting the dashboard is told about the password: never the one they
    set themselves, the one made for this run in full."""
    if os.environ.get(PASSWORD_VARIABLE):
        return f"log in with the password in ${PASSWORD_VARIABLE}."
    return (
        f"log in with the password {settings.password} (made for this run; set "
        f"{PASSWORD_VARIABLE} to choose one)."
    )


def derive_secret(password: str) -> bytes:
    """The cookie-signing key made from the password (PBKDF2-SHA256: slow to guess from a
    cookie, the same in every process that has the password)."""
    return hashlib.pbkdf2_hmac("sha256", password.encode(), _KDF_SALT, _KDF_ROUNDS)


def check_password(settings: DashboardSettings, given: str) -> bool:
    """Whether ``given`` is the password (compared in constant time)."""
    return hmac.compare_digest(given.encode(), settings.password.encode())


def logged_in(engine: sa.Engine) -> bool:
    """Whether this request's session is logged in and not ended by a logout (asked of
    ``engine``'s store once per request)."""
    if "dashboard_logged_in" not in g:
        sid = session.get(SESSION_ID)
        g.dashboard_logged_in = (
            session.get("dashboard") is True and isinstance(sid, str) and not ended(sid, engine)
        )
    return bool(g.dashboard_logged_in)


def ended(sid: str, engine: sa.Engine) -> bool:
    """Whether the session ``sid`` was logged out (``engine``: the dashboard's store)."""
    from harness.store.dashboard_logins import session_ended  # the store stack: on first use
    from harness.store.database import session_scope

    with session_scope(engine) as db:
        return session_ended(db, sid)


def csrf_token() -> str:
    """This session's CSRF token (made on first use)."""
    token = session.get(CSRF_FIELD)
    if not isinstance(token, str):
        token = session[CSRF_FIELD] = secrets.token_urlsafe(32)
    return token


def start_session() -> None:
    """Log in: a fresh session (nothing carried over from before the login) with a new token."""
    session.clear()
    session["dashboard"] = True
    session[SESSION_ID] = secrets.token_urlsafe(24)
    csrf_token()


def guard(login_endpoint: str, engine: sa.Engine) -> None:
    """Run before every dashboard request: a POST needs the CSRF token (403 without); any
    page but the login needs a session (401 for the event stream and actions, else the
    login page)."""
    if request.method == "POST":
        given = request.form.get(CSRF_FIELD) or request.headers.get(CSRF_HEADER) or ""
        expected = session.get(CSRF_FIELD)
        if not isinstance(expected, str) or not hmac.compare_digest(given, expected):
            abort(403, "missing or wrong CSRF token: reload the page and try again")
    if request.endpoint == login_endpoint or logged_in(engine):
        return
    if request.method == "POST" or request.path.endswith("/stream"):
        abort(401, "log in to the dashboard first")
    abort(redirect(url_for(login_endpoint, next=request.full_path.rstrip("?"))))
