"""The dashboard's pages: login, the studies list, a study's live page (with its event
stream) and a worker's page. Actions are in `harness.web.dashboard.actions`.

Pages are Jinja templates in ``templates/dashboard/`` (autoescaping and `StrictUndefined`
on). A study page's sections are rendered once per snapshot and shared by every open page
(`Watcher.fragments`); the only per-session value in them, the CSRF token, is put in last.
Every answer carries the dashboard's own content security policy (`POLICY`): its scripts run
by a nonce made for that answer, and no other site may frame it.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any

import sqlalchemy as sa
from flask import (
    Blueprint,
    abort,
    current_app,
    g,
    get_flashed_messages,
    redirect,
    request,
    stream_with_context,
    url_for,
)
from jinja2 import Environment, FileSystemLoader, StrictUndefined
from markupsafe import Markup
from sqlmodel import Session
from werkzeug.wrappers import Response

from harness.errors import StudyNotFound
from harness.money import money, symbol
from harness.resources import templates_dir
from harness.store.core import unknown_study_message
from harness.store.dashboard_logins import end_session, login_failed, login_succeeded, login_wait
from harness.store.database import session_scope
from harness.store.models import Study
from harness.store.studies import find_study
from harness.web.dashboard import access
from harness.web.dashboard.access import DashboardSettings
from harness.web.dashboard.figures import alpha_plot, consensus_points, scatter_plot
from harness.web.dashboard.watch import (
    EVENTS_SHOWN,
    Snapshot,
    Watcher,
    studies_overview,
)
from harness.web.security import new_nonce

bp = Blueprint("dashboard", __name__)
PREFIX = "/dashboard"

CSRF_SENTINEL = "__HARNESS_CSRF__"
SEEN_SENTINEL = "__HARNESS_SEEN__"
STREAM_SECONDS = 300.0
"""An event stream ends after this long; the browser reconnects at once (bounds a stuck one)."""
KEEP_ALIVE = 15.0
POLL = 0.1
"""Seconds between two looks, while a page is streamed, at whether its study moved."""
SESSION_CHECK = 2.0
"""Seconds between two looks, while a page is streamed, at whether its session was ended."""
POLICY = (
    "default-src 'none'; script-src {scripts}; style-src 'unsafe-inline'; img-src 'self' data:; "
    "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
)
"""The dashboard's content security policy: its own scripts (by nonce) and event stream only,
forms posted only to itself, framed by nobody (the task pages' policy lets the platform frame
them, which the dashboard must not allow)."""


@dataclass
class DashboardState:
    """What the dashboard keeps in the app: settings, the study cache and its templates."""

    engine: sa.Engine
    settings: DashboardSettings
    watcher: Watcher
    templates: Environment = field(init=False)

    def close(self) -> None:
        """Let the readings under way finish, then release the store's connections."""
        self.watcher.close()
        self.engine.dispose()

    def __post_init__(self) -> None:
        self.templates = Environment(
            loader=FileSystemLoader(str(templates_dir() / "dashboard")),
            autoescape=True,
            undefined=StrictUndefined,
        )
        self.templates.filters.update(
            money=_money, symbol=symbol, when=_when, duration=_duration, num=_num
        )
        self.templates.globals.update(url_for=url_for)


def dashboard_state() -> DashboardState:
    state = current_app.extensions["harness.web.dashboard"]
    assert isinstance(state, DashboardState)
    return state


@bp.before_app_request
def _guard() -> None:
    if request.blueprint in ("dashboard", "dashboard_actions"):
        access.guard("dashboard.login", dashboard_state().engine)


@bp.after_app_request
def _no_store(response: Response) -> Response:
    if request.blueprint in ("dashboard", "dashboard_actions"):
        nonce = g.get("dashboard_nonce")
        scripts = f"'nonce-{nonce}'" if nonce else "'none'"
        response.headers["Content-Security-Policy"] = POLICY.format(scripts=scripts)
        response.headers["X-Content-Type-Options"] = "nosniff"
        response.headers["Cache-Control"] = "no-store"
        response.headers["X-Frame-Options"] = "DENY"
        response.headers["Referrer-Policy"] = "same-origin"
    return response


def page(template: str, **values: Any) -> str:
    """A whole dashboard page (with this session's CSRF token, flashed messages, and the nonce
    its scripts run by)."""
    if "dashboard_nonce" not in g:
        g.dashboard_nonce = new_nonce()
    values.setdefault("nonce", g.dashboard_nonce)
    values.setdefault("messages", get_flashed_messages(with_categories=True))
    values.setdefault("csrf", access.csrf_token())
    state = dashboard_state()
    values.setdefault("logged_in", access.logged_in(state.engine))
    return state.templates.get_template(template).render(**values)


@bp.route("/login", methods=["GET", "POST"])
def login() -> Any:
    state = dashboard_state()
    target = _safe_next(request.values.get("next", ""))
    error = ""
    status = 200
    if request.method == "POST":
        client = request.remote_addr or "unknown"
        with session_scope(state.engine) as db:
            wait = login_wait(db, client)
            if wait > 0:
                error = f"Too many failed attempts: wait {math.ceil(wait)} s before trying again."
                status = 429
            elif access.check_password(state.settings, request.form.get("password", "")):
                login_succeeded(db, client)
                access.start_session()
                return redirect(target or url_for("dashboard.studies"), 303)
            else:
                login_failed(db, client)
                error = "Wrong password."
                status = 401
    return page("login.html", error=error, next=target), status


@bp.post("/logout")
def logout() -> Response:
    from flask import session

    sid = session.get(access.SESSION_ID)
    if isinstance(sid, str):
        with session_scope(dashboard_state().engine) as db:
            end_session(db, sid)
    session.clear()
    return redirect(url_for("dashboard.login"), 303)


@bp.get("/")
def studies() -> str:
    with session_scope(dashboard_state().engine) as session:
        rows = studies_overview(session)
    return page("studies.html", studies=rows)


@bp.get("/study/<name>")
def study(name: str) -> str:
    state = dashboard_state()
    snapshot = state.watcher.snapshot(study_id_of(name))
    sections = _sections(state, snapshot)
    return page(
        "study.html",
        s=snapshot,
        sections=sections,
        version=snapshot.version,
        events_shown=EVENTS_SHOWN,
    )


@bp.get("/study/<name>/stream")
def stream(name: str) -> Response:
    """Server-sent events: an ``update`` whenever the study's snapshot moves past the version
    the page has (``since``), with what changed since the last one sent: the sections that
    changed (all of them the first time), the events' rows the page lacks (``events``, newest
    first, rather than the whole feed again) and the newest event (``seen``), which the
    page's forms post back."""
    state = dashboard_state()
    study_id = study_id_of(name)
    token = access.csrf_token()
    since = request.args.get("since", type=int)
    from flask import session

    sid = str(session.get(access.SESSION_ID, ""))

    def events() -> Iterator[str]:
        last, quiet, start = since, time.monotonic(), time.monotonic()
        checked = start
        sent: dict[str, str] = {}  # what this page shows: only changed sections are sent
        shown: set[int] = set()  # the events whose rows it has
        yield "retry: 1000\n\n"
        while time.monotonic() - start < STREAM_SECONDS:
            if time.monotonic() - checked > SESSION_CHECK:
                checked = time.monotonic()
                if access.ended(sid, state.engine):  # logged out elsewhere: the page asks to log in
                    yield "event: ended\ndata: {}\n\n"
                    return
            snapshot = state.watcher.snapshot(study_id)
            if snapshot.version != last:
                fresh = _fragments(state, snapshot)
                changed = {k: v for k, v in fresh.items() if sent.get(k) != v}
                rows = [e for e in snapshot.events if e["id"] not in shown]
                if "events" in sent and rows:  # the page has the feed: only its new rows
                    changed.pop("events", None)
                sent.update(fresh)
                shown |= {e["id"] for e in snapshot.events}
                last = snapshot.version
                payload: dict[str, Any] = {"version": snapshot.version, "seen": snapshot.seen}
                payload["sections"] = {k: _filled(v, token, snapshot) for k, v in changed.items()}
                if rows and "events" not in changed:
                    payload["events"] = _event_rows(state, rows)
                if changed or rows:
                    yield f"event: update\ndata: {json.dumps(payload)}\n\n"
                    quiet = time.monotonic()
            elif time.monotonic() - quiet > KEEP_ALIVE:
                yield ": still here\n\n"
                quiet = time.monotonic()
            time.sleep(POLL)

    headers = {"Cache-Control": "no-store", "X-Accel-Buffering": "no"}
    return Response(stream_with_context(events()), mimetype="text/event-stream", headers=headers)


@bp.get("/study/<name>/worker/<worker>")
def worker(name: str, worker: str) -> str:
    state = dashboard_state()
    snapshot = state.watcher.snapshot(study_id_of(name))
    found = next((w for w in snapshot.workers if w["worker_id"] == worker), None)
    if found is None:
        abort(404, f"no worker {worker!r} has judgments in study {name!r}")
    rows = state.watcher.rows(snapshot.running.id)
    if found.get("arm") is not None and "arm" in rows.columns:  # the consensus of their arm
        rows = rows[rows["arm"] == found["arm"]]
    points = consensus_points(rows, worker)
    plot = scatter_plot(points, *snapshot.scale)
    assignments = state.watcher.worker_assignments(snapshot.running.id, worker)
    return page(
        "worker.html", s=snapshot, w=found, plot=plot, points=len(points), assignments=assignments
    )


def _sections(state: DashboardState, snapshot: Snapshot) -> dict[str, Markup]:
    """The study page's live sections for ``snapshot``, with this session's CSRF token."""
    csrf = access.csrf_token()
    return {k: Markup(_filled(v, csrf, snapshot)) for k, v in _fragments(state, snapshot).items()}


def _fragments(state: DashboardState, snapshot: Snapshot) -> dict[str, str]:
    """The live sections of ``snapshot`` as every page shares them (`Watcher.fragments`)."""
    return state.watcher.fragments(snapshot, lambda s, names: _render(state, s, names))


def _filled(html: str, csrf: str, snapshot: Snapshot) -> str:
    """A section as shared by every page, with one page's CSRF token and ``seen`` put in."""
    return html.replace(CSRF_SENTINEL, csrf).replace(SEEN_SENTINEL, str(snapshot.seen))


def _render(state: DashboardState, snapshot: Snapshot, names: list[str]) -> dict[str, str]:
    """The named sections of ``snapshot``, with placeholders for the CSRF token and ``seen``
    (each page's own, and the newest event, which moves with every event)."""
    values = {"s": snapshot, "csrf": CSRF_SENTINEL, "seen": SEEN_SENTINEL}
    if "quality" in names:
        values["plot"] = alpha_plot(snapshot.alpha, snapshot.alpha_min)
    return {name: state.templates.get_template(f"_{name}.html").render(**values) for name in names}


def _event_rows(state: DashboardState, events: list[dict[str, Any]]) -> str:
    """The events feed's rows of ``events`` (sent to a page that has the feed)."""
    return state.templates.get_template("_event_rows.html").render(events=events)


def study_or_404(session: Session, name: str) -> Study:
    """The study named ``name`` (404 with the studies there, if none)."""
    try:
        found = find_study(session, name)
    except StudyNotFound:
        abort(404, unknown_study_message(session, name))
    assert found.id is not None
    return found


def study_id_of(name: str) -> int:
    """The store id of the study named ``name`` (404 with the studies there, if none)."""
    with session_scope(dashboard_state().engine) as session:
        found = study_or_404(session, name).id
        assert found is not None
        return found


def _safe_next(target: str) -> str:
    """Where to go after logging in: only a path of this dashboard (never another site)."""
    prefix = url_for("dashboard.studies")
    if target.startswith(prefix) and not target.startswith("//") and "\\" not in target:
        return target
    return ""


def _money(value: Decimal | None, currency: str) -> str:
    """An amount in the study's currency, to the cent (the one writer, `harness.money`)."""
    return "–" if value is None else money(value, currency, 2)


def _when(value: datetime | None) -> str:
    return "–" if value is None else value.strftime("%H:%M:%S")


def _duration(value: timedelta | None) -> str:
    if value is None:
        return "–"
    seconds = int(value.total_seconds())
    hours, rest = divmod(seconds, 3600)
    minutes, seconds = divmod(rest, 60)
    if hours >= 24:
        return f"{hours // 24} d {hours % 24:02d} h"
    return f"{hours} h {minutes:02d} min" if hours else f"{minutes} min {seconds:02d} s"


def _num(value: float | None, digits: int = 1) -> str:
    return "–" if value is None else f"{value:.{digits}f}"
