"""The Flask app factory: nothing happens at import time; the database engine is opened in
`create_app` and released by ``app.extensions["harness"].close()``."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from flask import Flask, Response, jsonify, request
from werkzeug.exceptions import RequestEntityTooLarge

from harness.i18n import _, format_number
from harness.masking import MaskSecrets
from harness.platform.registry import blueprints
from harness.platform.submissions.after_submission import AfterSubmission
from harness.platform.submissions.rechecks import Rechecks
from harness.platform.verification import Verifier
from harness.store.database import database_url as resolve_url
from harness.store.database import make_engine
from harness.web.language import speak_browsers_language
from harness.web.participants import bp as participants_bp
from harness.web.retry import RetryOnDisconnect
from harness.web.security import secure_headers
from harness.web.state import WebState
from harness.web.tasks import bp as tasks_bp
from harness.web.tokens import PageKeys
from harness.web.trust import Trust
from harness.web.withdrawals import bp as withdrawals_bp

if TYPE_CHECKING:
    from harness.web.dashboard import DashboardSettings

MAX_SUBMISSION_BYTES = 256 * 1024
"""A HIT of a few hundred items posts a few tens of kilobytes; anything larger is refused."""


def create_app(
    database_url: str,
    *,
    after_submission: AfterSubmission | None = None,
    template_dirs: list[Path] | None = None,
    max_submission_bytes: int = MAX_SUBMISSION_BYTES,
    verifier: Verifier | None = None,
    pool_size: int | None = None,
    dashboard: DashboardSettings | None = None,
) -> Flask:
    """The task server on the (migrated) store at ``database_url``.

    ``template_dirs``: where page templates are looked up (a custom template's folder first;
    default: the built-in templates). ``after_submission`` runs after a new submission is
    committed, in a session of its own (the CLI wires live screening to it); if it fails, the
    worker's answers stay stored and the failure is logged as an event. ``verifier`` asks the
    platform whose an assignment is before a submission counts (default: the platform each
    study was launched on; `harness.platform.verification`). ``pool_size``: the database
    connections to keep, as many as requests served at once (`make_engine`).
    ``dashboard``: mount the researcher's dashboard under ``/dashboard`` with these access
    settings.
    """
    app = Flask(__name__)
    app.config["MAX_CONTENT_LENGTH"] = max_submission_bytes
    app.config["MAX_FORM_MEMORY_SIZE"] = max_submission_bytes
    state = WebState(
        engine=make_engine(resolve_url(database_url), pool_size=pool_size),
        after_submission=after_submission,
        template_dirs=list(template_dirs) if template_dirs else None,
    )
    app.extensions["harness"] = state
    verifier = verifier or Verifier()
    trust = Trust(
        PageKeys(state.engine), verifier, Rechecks(state.engine, verifier, after_submission)
    )
    app.extensions["harness.trust"] = trust
    state.closers.append(trust.close)
    app.logger.addFilter(MaskSecrets())
    app.before_request(speak_browsers_language)
    app.register_blueprint(tasks_bp)
    app.register_blueprint(participants_bp)
    app.register_blueprint(withdrawals_bp)
    for blueprint in blueprints():  # what platforms add, e.g. Prolific's hooks
        app.register_blueprint(blueprint)
    if dashboard is not None:
        from harness.web.dashboard import init_dashboard

        watched = init_dashboard(app, state.engine, dashboard)
        state.closers.append(watched.watcher.close)
    app.wsgi_app = RetryOnDisconnect(app)  # type: ignore[method-assign]

    @app.errorhandler(RequestEntityTooLarge)
    def too_large(_exc: RequestEntityTooLarge) -> tuple[Response, int]:
        message = _(
            "Your submission is larger than this task accepts ({size} KB). Reload the HIT page "
            "and submit again; if this keeps happening, contact the requester."
        ).format(size=format_number(max_submission_bytes // 1024))
        if request.path.endswith("/submit"):
            return jsonify(ok=False, errors=[message]), 413
        return Response(message, 413, mimetype="text/plain"), 413

    @app.after_request
    def headers(response: Response) -> Response:
        if "Content-Security-Policy" not in response.headers:
            secure_headers(response)  # pages set their own (scripts, the platform's frame)
        return response

    @app.get("/health")
    def health() -> Response:
        return jsonify(ok=True)

    return app
