"""The Flask app factory of the local MTurk service. Nothing happens at import time."""

from __future__ import annotations

from flask import Flask

from harness.platform.mturk_local.service import Service
from harness.platform.mturk_local.settings import Settings


def create_app(settings: Settings) -> Flask:
    """Build the service on `settings.db_path` (the tables are created on first use).

    Call `app.extensions["mturk_local"].close()` when done, to release the database.
    """
    from harness.platform.mturk_local import control, requester_api, worker_api

    app = Flask(__name__)
    app.extensions["mturk_local"] = Service(settings)
    app.register_blueprint(requester_api.bp)
    app.register_blueprint(worker_api.bp)
    app.register_blueprint(control.bp)
    return app
