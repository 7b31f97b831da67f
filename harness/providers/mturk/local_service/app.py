"""The Flask app factory of the local MTurk service. Nothing happens at import time.

Every answer is JSON, errors included: the requester API (`POST /`) answers in MTurk's error
shape, every other path with `{"error": ..., "code": ...}`; an unexpected failure is logged and
answered 500 in the same shape, never with an HTML page.
"""

from __future__ import annotations

import logging

from flask import Flask, Response, jsonify, request
from werkzeug.exceptions import HTTPException

from harness.providers.mturk.local_service import control, requester_api, worker_api, worker_quals
from harness.providers.mturk.local_service.api_errors import ServiceFault
from harness.providers.mturk.local_service.service import Service
from harness.providers.mturk.local_service.settings import Settings

log = logging.getLogger(__name__)
MAX_BODY_BYTES = 2 * 1024 * 1024  # MTurk's largest input (a 64 KiB Question) fits many times


def _error(status: int, code: str, message: str) -> Response:
    """An error in the shape the path's clients read: MTurk's on `/`, the worker side's else."""
    if request.path == "/":
        return requester_api.reply(status, {"__type": code, "Message": message})
    response = jsonify(error=message, code=code)
    response.status_code = status
    return response


def _http_error(exc: HTTPException) -> Response:
    code = (exc.name or "Error").replace(" ", "")
    return _error(exc.code or 500, code, exc.description or exc.name or "error")


def _unexpected(exc: Exception) -> Response:
    log.exception("unexpected failure answering %s %s", request.method, request.path)
    message = "The local MTurk service failed to process the request."
    if request.path == "/":
        return requester_api.refused(ServiceFault(message))
    return _error(500, "InternalError", message)


def _read_the_rest(response: Response) -> Response:
    """Read what is left of the request's body (one answered without reading it: a 404, a
    405), so that the connection can serve the client's next request as the answer says; a
    body over the limit is never read (the server closes that connection, `server.py`)."""
    length = request.content_length
    if length and length <= MAX_BODY_BYTES:
        request.get_data()
    return response


def create_app(settings: Settings) -> Flask:
    """Build the service on `settings.db_path` (the tables are created on first use).

    Call `app.extensions["mturk_local"].close()` when done, to release the database.
    """
    app = Flask(__name__)
    app.config["MAX_CONTENT_LENGTH"] = MAX_BODY_BYTES
    app.json.sort_keys = False  # type: ignore[attr-defined]  # clients read keys, not order
    app.extensions["mturk_local"] = Service(settings)
    app.register_blueprint(requester_api.bp)
    app.register_blueprint(worker_api.bp)
    app.register_blueprint(worker_quals.bp)
    app.register_blueprint(control.bp)
    app.register_error_handler(HTTPException, _http_error)
    app.register_error_handler(Exception, _unexpected)
    app.after_request(_read_the_rest)
    return app
