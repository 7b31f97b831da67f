"""`harness serve` as it runs for real: a gunicorn process with two workers, on SQLite and
PostgreSQL. It screens on start what a server killed before screening left, serves pages and
submissions, and stops gracefully on SIGTERM."""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest
import requests
from sqlmodel import select

from harness.store import session_scope
from harness.store.models import Assignment
from harness.web.tokens import token_in_page
from tests.factories import checkout_env
from tests.serving import until_healthy
from tests.web.factories import plan_study, write_task_spec
from tests.web.test_task_server import fields, page_url


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_serve(db: str, log: Path, *extra: str) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    args = [sys.executable, "-m", "harness", "serve", "--db", db, "--port", str(port), *extra]
    env = checkout_env()  # this checkout's harness
    with log.open("wb") as out:
        process = subprocess.Popen(args, stdout=out, stderr=subprocess.STDOUT, env=env)
    url = f"http://127.0.0.1:{port}"
    try:
        until_healthy(process, url, log)  # polls: as fast as the server starts, up to 3 min
    except AssertionError:
        process.kill()
        process.wait(timeout=120)
        raise
    return process, url


def screened(engine) -> dict[str, bool]:
    with session_scope(engine) as session:
        return {
            a.platform_assignment_id: a.screened_at is not None
            for a in session.exec(select(Assignment))
        }


@pytest.mark.slow
def test_serve_runs_workers_screens_what_was_left_and_stops_gracefully(
    engine, database_url, tmp_path, make_app
):
    rating = plan_study(engine, write_task_spec(tmp_path, "rating"))
    # a server killed after storing and before screening: stored, never screened
    killed = make_app().test_client()
    shown = killed.get(page_url(rating, "A0", "W0"))
    assert shown.status_code == 200
    token = token_in_page(shown.get_data(as_text=True))
    stored = killed.post(
        f"/hit/{rating.key(0)}/submit", data=fields(rating, "A0", "W0", pageToken=token)
    )
    assert stored.json["ok"], stored.json
    assert screened(engine) == {"A0": False}

    log = tmp_path / "serve.log"
    process, url = start_serve(
        database_url, log, "--workers", "2", "--threads", "4", "--no-apply-decisions"
    )
    try:
        assert screened(engine) == {"A0": True}  # screened before serving
        with requests.Session() as http:
            for n in (1, 2, 3):
                page = http.get(url + page_url(rating, f"A{n}", f"W{n}"), timeout=30)
                assert page.status_code == 200 and 'data-key="' in page.text
                data = fields(rating, f"A{n}", f"W{n}", pageToken=token_in_page(page.text))
                stored = http.post(f"{url}/hit/{rating.key(0)}/submit", data=data, timeout=30)
                # a study never launched: no platform vouches, so the answers are kept apart
                # (quarantined), never counted or screened (the demo's test covers live
                # screening in a served process)
                assert stored.json() == {
                    "ok": True,
                    "created": True,
                    "verified": False,
                    "message": "Your answers are recorded.",
                }
        assert screened(engine) == {"A0": True}
    finally:
        process.send_signal(signal.SIGTERM)
        code = process.wait(timeout=120)
    output = log.read_text()
    assert code == 0, output
    assert "2 processes x 4 threads" in output
    assert (
        "screened the unscreened assignments (and carried out the decisions left) of 1 study"
    ) in output
