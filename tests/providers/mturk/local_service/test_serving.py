"""`harness mturk-local` under gunicorn: a burst of 200 concurrent clients is answered with no
dropped connection and no error, and SIGTERM lets a request in flight finish (issue 20)."""

from __future__ import annotations

import http.client
import json
import os
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import boto3
import pytest
import requests
from botocore.config import Config

from tests.providers.mturk.local_service.factories import hit_params
from tests.serving import until_healthy


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[str, subprocess.Popen]]:
    port = free_port()
    log = tmp_path / "mturk-local.log"
    with log.open("w") as out:
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "harness",
                "mturk-local",
                "--port",
                str(port),
                "--db",
                str(tmp_path / "m.sqlite"),
                "--graceful-timeout",
                "60",
            ],
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    url = f"http://127.0.0.1:{port}"
    try:
        until_healthy(process, url, log, probe="/_control/clock")  # up to 3 min under load
        yield url, process
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            process.wait(timeout=120)


def mturk_client(url: str):
    return boto3.client(
        "mturk",
        endpoint_url=url,
        region_name="us-east-1",
        aws_access_key_id="x",
        aws_secret_access_key="x",
        config=Config(retries={"total_max_attempts": 1}, max_pool_connections=1),
    )


@pytest.mark.slow
def test_200_concurrent_workers_are_all_answered(served):
    url, _ = served
    client = mturk_client(url)
    hit_ids = [client.create_hit(**hit_params(MaxAssignments=3))["HIT"]["HITId"] for _ in range(70)]

    def one_worker(i: int) -> str:
        with requests.Session() as http:
            worker = f"AW{i:04d}"
            listed = http.get(f"{url}/worker/hits", params={"workerId": worker}, timeout=120)
            if listed.status_code != 200:
                return f"list {listed.status_code}"
            r = http.post(
                f"{url}/worker/hits/{hit_ids[i % 70]}/accept",
                data={"workerId": worker},
                timeout=120,
            )
            if r.status_code == 409:
                return "full"
            if r.status_code != 200:
                return f"accept {r.status_code}"
            done = http.post(
                f"{url}/mturk/externalSubmit",
                data={"assignmentId": r.json()["AssignmentId"], "a": "1"},
                timeout=120,
            )
            return "ok" if done.status_code == 200 else f"submit {done.status_code}"

    with ThreadPoolExecutor(max_workers=200) as pool:
        outcomes = list(pool.map(one_worker, range(200)))
    assert outcomes.count("ok") == 200, sorted(set(outcomes))
    submitted = sum(client.get_hit(HITId=h)["HIT"]["NumberOfAssignmentsAvailable"] for h in hit_ids)
    assert submitted == 70 * 3 - 200


@pytest.mark.slow
def test_sigterm_lets_a_request_in_flight_finish(served):
    url, process = served
    requests.post(f"{url}/_control/faults", json={"latency_ms": 1500}, timeout=60)
    port = int(url.rsplit(":", 1)[1])
    slow = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    slow.request(
        "POST",
        "/",
        body="{}",
        headers={
            "X-Amz-Target": "MTurkRequesterServiceV20170117.GetAccountBalance",
            "Content-Type": "application/x-amz-json-1.1",
        },
    )
    # The service takes connections in the order they came (one process): a later one answered
    # means the slow one was taken too, and is in flight however slow the machine
    assert requests.get(f"{url}/_control/clock", timeout=60).ok
    os.kill(process.pid, signal.SIGTERM)
    answer = slow.getresponse()
    assert answer.status == 200
    assert json.loads(answer.read())["AvailableBalance"] == "10000.00"
    slow.close()
    assert process.wait(timeout=120) == 0
    with pytest.raises(requests.ConnectionError):
        requests.get(f"{url}/_control/clock", timeout=60)


BALANCE = {
    "X-Amz-Target": "MTurkRequesterServiceV20170117.GetAccountBalance",
    "Content-Type": "application/x-amz-json-1.1",
}


@pytest.mark.slow
@pytest.mark.parametrize(
    ("method", "path", "size", "status", "connection"),
    [
        ("POST", "/no-such-path", 200_000, 404, "keep-alive"),
        ("PUT", "/worker/hits", 200_000, 405, "keep-alive"),
        ("GET", "/", 200_000, 405, "keep-alive"),
        ("POST", "/", 3_000_000, 413, "close"),
    ],
)
def test_an_answer_to_an_unread_body_keeps_the_connection_as_it_says(
    served, method, path, size, status, connection
):
    """A kept-alive connection serves the next request; one the answer closes is closed."""
    url, _ = served
    conn = http.client.HTTPConnection("127.0.0.1", int(url.rsplit(":", 1)[1]), timeout=120)
    conn.connect()
    conn.auto_open = 0  # never reconnect behind the test's back
    try:
        conn.request(method, path, body=b"x" * size, headers=BALANCE)
        answer = conn.getresponse()
        answer.read()
        assert (answer.status, answer.getheader("Connection")) == (status, connection)
        if connection == "keep-alive":
            conn.request("POST", "/", body=b"{}", headers=BALANCE)
            again = conn.getresponse()
            assert json.loads(again.read())["AvailableBalance"] == "10000.00"
        else:
            with pytest.raises(http.client.NotConnected):
                conn.request("POST", "/", body=b"{}", headers=BALANCE)
    finally:
        conn.close()
