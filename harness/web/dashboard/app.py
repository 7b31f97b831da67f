"""The dashboard on its own (`harness dashboard`): a Flask app with only the dashboard,
under ``/dashboard`` as in the task server, and ``/`` sending there."""

from __future__ import annotations

from flask import Flask, Response, redirect

from harness.store.database import database_url as resolve_url
from harness.store.database import make_engine
from harness.web.dashboard.access import DashboardSettings
from harness.web.dashboard.views import init_dashboard


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
