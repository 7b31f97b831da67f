"""A request whose database connection dropped is run once more (`harness.web.retry`), with
its body; other failures are not retried."""

from __future__ import annotations

import sqlalchemy as sa
from flask import Flask, request

from harness.web.retry import RetryOnDisconnect


def dropped() -> sa.exc.OperationalError:
    return sa.exc.OperationalError(
        "INSERT ...",
        {},
        Exception("server closed the connection unexpectedly"),
        connection_invalidated=True,
    )


def app_failing(first: BaseException) -> tuple[Flask, list[str]]:
    app = Flask(__name__)
    app.config["MAX_CONTENT_LENGTH"] = 1024
    seen: list[str] = []

    @app.post("/submit")
    def submit() -> str:
        seen.append(request.form["answer"])
        if len(seen) == 1:
            raise first
        return f"stored {request.form['answer']}"

    app.wsgi_app = RetryOnDisconnect(app)  # type: ignore[method-assign]
    return app, seen


def test_a_request_cut_by_a_dropped_connection_is_run_again_with_its_body():
    app, seen = app_failing(dropped())
    response = app.test_client().post("/submit", data={"answer": "7.5"})
    assert (response.status_code, response.get_data(as_text=True)) == (200, "stored 7.5")
    assert seen == ["7.5", "7.5"]


def test_other_failures_are_answered_once_as_they_are():
    app, seen = app_failing(sa.exc.IntegrityError("INSERT ...", {}, Exception("duplicate")))
    response = app.test_client().post("/submit", data={"answer": "7.5"})
    assert response.status_code == 500
    assert seen == ["7.5"]


def test_a_body_over_the_limit_is_refused_without_being_read_twice():
    app, seen = app_failing(dropped())
    response = app.test_client().post("/submit", data={"answer": "x" * 2000})
    assert response.status_code == 413
    assert seen == []
