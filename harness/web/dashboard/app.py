"""The dashboard mounted on an app (`init_dashboard`: the task server's, with `harness serve
--dashboard`), or on its own (`harness dashboard`): a Flask app with only the dashboard, under
``/dashboard`` as in the task server, and ``/`` sending there. It sits above every module of
the dashboard, so that the route modules import `views` and nothing imports back."""

from __future__ import annotations

import sqlalchemy as sa
from flask import Flask, Response, redirect

from harness.store.database import database_url as resolve_url
from harness.store.database import make_engine
from harness.web.dashboard import access, pages, precision  # noqa: F401  (routes on views.bp)
from harness.web.dashboard.access import DashboardSettings
from harness.web.dashboard.actions import bp as actions_bp
from harness.web.dashboard.views import PREFIX, DashboardState, bp
from harness.web.dashboard.watch import Watcher


def init_dashboard(app: Flask, engine: sa.Engine, settings: DashboardSettings) -> DashboardState:
    """Mount the dashboard on ``app`` under ``/dashboard``, reading ``engine``'s store."""
    app.secret_key = settings.secret
    app.config.update(
        SESSION_COOKIE_NAME=access.COOKIE_NAME,
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Strict",
        SESSION_COOKIE_SECURE=settings.secure_cookie,
        SESSION_COOKIE_PATH=PREFIX,
    )
    state = DashboardState(engine, settings, Watcher(engine))
    app.extensions["harness.web.dashboard"] = state
    app.register_blueprint(bp, url_prefix=PREFIX)
    app.register_blueprint(actions_bp, url_prefix=PREFIX)
    return state


def create_dashboard_app(database_url: str, settings: DashboardSettings) -> Flask:
    """The dashboard on the (migrated) store at ``database_url``; release it with
    ``app.extensions["harness.web.dashboard"].close()``."""
    app = Flask(__name__)
    engine = make_engine(resolve_url(database_url))
    init_dashboard(app, engine, settings)

    @app.get("/")
    def home() -> Response:
        return redirect("/dashboard/", 302)  # type: ignore[return-value]

    @app.get("/health")
    def health() -> dict[str, bool]:
        return {"ok": True}

    return app
