"""The Flask app of the local Prolific service. Nothing happens at import time.

Every answer is JSON. Errors have Prolific's shape, ``{"error": {"status", "error_code",
"title", "detail"}}``; the requester API wants ``Authorization: Token <anything>`` (401
otherwise). Fault switches (``POST /_control/faults``) apply to the requester API only: a share
of calls answered 429 with ``Retry-After``, a share answered 503, added latency.
``POST /_control/studies/<id>/pause`` pauses a study as Prolific itself does (its automatic
pause), or a person on its website: harness learns of it only by reading the study.
"""

from __future__ import annotations

import random
import threading
import time
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

from flask import Flask, Response, current_app, jsonify
from werkzeug.exceptions import HTTPException

from harness.providers.prolific.local_service.state import Store

MAX_BODY = 2 * 1024 * 1024
"""Request bodies beyond this are refused (413) before they are read."""
MAX_ADVANCE = 10 * 366 * 86400.0
"""How far the clock may be moved by one call, in seconds."""


@dataclass(frozen=True)
class Settings:
    db_path: Path
    balance: Decimal = Decimal("10000.00")
    currency: str = "USD"
    """The workspace's currency (USD or GBP), fixed when the service's file is made."""
    bonus_delay: float = 0.0
    """Seconds of the service's clock between a bonus's pay call and the payment (made by the
    first request after): Prolific pays asynchronously."""


class ApiError(Exception):
    """A refusal in Prolific's error shape."""

    def __init__(self, status: int, detail: Any, code: int = 0, title: str = "") -> None:
        super().__init__(str(detail))
        self.status, self.detail = status, detail
        self.code = code or {400: 140001, 401: 140100, 403: 140300, 404: 140400}.get(status, 0)
        self.title = title or {
            400: "Bad request",
            401: "Unauthorized",
            403: "Forbidden",
            404: "Not found",
            429: "Too many requests",
            503: "Service unavailable",
        }.get(status, "Error")

    def response(self) -> tuple[Response, int]:
        body = {
            "status": self.status,
            "error_code": self.code,
            "title": self.title,
            "detail": self.detail,
        }
        return jsonify(error=body), self.status


@dataclass
class Faults:
    rate_limit_share: float = 0.0
    retry_after: int = 1
    unavailable_share: float = 0.0
    latency_ms: float = 0.0
    seed: int = 0
    _random: random.Random = field(default_factory=random.Random, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    LIMITS = {
        "rate_limit_share": (0, 1),
        "unavailable_share": (0, 1),
        "latency_ms": (0, 60000),
        "retry_after": (0, 3600),
        "seed": (0, 2**31),
    }

    def update(self, values: dict[str, Any]) -> None:
        for name, value in values.items():
            if name not in self.LIMITS:
                raise ValueError(f"unknown fault switch {name!r}; known: {sorted(self.LIMITS)}")
            low, high = self.LIMITS[name]
            if (
                isinstance(value, bool)
                or not isinstance(value, int | float)
                or not (low <= value <= high)
            ):
                raise ValueError(f"{name} must be a number from {low} to {high}, got {value!r}")
        with self._lock:
            for name, value in values.items():
                setattr(self, name, value)
            self._random.seed(self.seed)

    def settings(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.LIMITS}

    def check(self) -> None:
        if self.latency_ms:
            time.sleep(self.latency_ms / 1000)
        with self._lock:
            if self.rate_limit_share and self._random.random() < self.rate_limit_share:
                raise ApiError(429, "Request was throttled.")
            if self.unavailable_share and self._random.random() < self.unavailable_share:
                raise ApiError(503, "The service is unavailable; try again.")


@dataclass
class Service:
    store: Store
    faults: Faults

    def close(self) -> None:
        self.store.close()


def service() -> Service:
    found = current_app.extensions["prolific_local"]
    assert isinstance(found, Service)
    return found


def create_app(settings: Settings) -> Flask:
    """The service on ``settings.db_path``; ``app.extensions["prolific_local"].close()`` when
    done."""
    from harness.providers.prolific.local_service import api, hooks, participants, research
    from harness.providers.prolific.local_service.outbox import Deliveries
    from harness.providers.prolific.pricing import cents

    app = Flask(__name__)
    app.config["MAX_CONTENT_LENGTH"] = MAX_BODY
    store = Store(settings.db_path, cents(settings.balance), settings.currency)
    store.bonus_delay = settings.bonus_delay
    store.deliveries = Deliveries(store)
    app.extensions["prolific_local"] = Service(store, Faults())
    app.register_blueprint(api.bp)
    app.register_blueprint(hooks.bp)
    app.register_blueprint(participants.bp)
    app.register_blueprint(research.bp)

    @app.errorhandler(ApiError)
    def _api_error(exc: ApiError) -> tuple[Response, int]:
        answer, status = exc.response()
        if status == 429:
            answer.headers["Retry-After"] = str(service().faults.retry_after)
        return answer, status

    @app.errorhandler(HTTPException)
    def _http(exc: HTTPException) -> tuple[Response, int]:
        return ApiError(exc.code or 500, exc.description or "error").response()

    @app.errorhandler(Exception)
    def _unexpected(exc: Exception) -> tuple[Response, int]:
        current_app.logger.exception("unexpected failure")
        return ApiError(500, "The local Prolific service failed.", 0, "Server error").response()

    @app.get("/_control/faults")
    def get_faults() -> Response:
        return jsonify(service().faults.settings())

    @app.post("/_control/faults")
    def set_faults() -> Response:
        from harness.providers.prolific.local_service.inputs import json_object

        try:
            service().faults.update(json_object())
        except ValueError as exc:
            raise ApiError(400, str(exc)) from exc
        return jsonify(service().faults.settings())

    @app.post("/_control/clock")
    def clock() -> Response:
        from harness.providers.prolific.local_service.inputs import json_object, number

        given = json_object().get("advance", 0)
        advance = number(given, -MAX_ADVANCE, MAX_ADVANCE)
        if advance is None:
            raise ApiError(
                400,
                f"advance must be a number of seconds within {MAX_ADVANCE:g} "
                f"(ten years) either way, got {given!r}",
            )
        store = service().store
        with store.tx() as db:
            offset = float(store.meta(db, "clock_offset")) + float(advance)
            store.set_meta(db, "clock_offset", str(offset))
            now = store.now(db)
        return jsonify(now=now)

    @app.post("/_control/studies/<sid>/pause")
    def pause_by_prolific(sid: str) -> Response:
        """Pause an ACTIVE study as Prolific does on its own (its automatic pause) or as a
        person does on its website: not through the requester API, so no fault applies."""
        store = service().store
        with store.tx() as db:
            study = api.study_or_404(store, db, sid)
            if study["status"] not in ("ACTIVE", "PAUSED"):
                raise ApiError(400, f"Cannot pause a study that is {study['status']}.")
            study["status"] = "PAUSED"
            store.save_study(db, study)
        return jsonify(id=sid, status="PAUSED")

    @app.get("/health")
    def health() -> Response:
        return jsonify(ok=True)

    return app
