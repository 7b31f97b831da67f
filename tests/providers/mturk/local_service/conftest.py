"""Fixtures of the local MTurk service's tests: a local SQS (moto's server, on loopback) and a
service that delivers notifications to it."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
import pytest

from tests.providers.mturk.local_service.factories import LocalMTurk

_queues = itertools.count()


@pytest.fixture(scope="session")
def sqs_endpoint() -> Iterator[str]:
    """moto's SQS as a real HTTP server on 127.0.0.1 (one for the session)."""
    from moto.server import ThreadedMotoServer

    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    yield f"http://{host}:{port}"
    server.stop()


@pytest.fixture
def sqs(sqs_endpoint: str) -> Any:
    """An SQS client on the local moto server."""
    return boto3.client(
        "sqs",
        endpoint_url=sqs_endpoint,
        region_name="us-east-1",
        aws_access_key_id="local",
        aws_secret_access_key="local",
    )


@pytest.fixture
def queue(sqs: Any) -> str:
    """A fresh queue's URL (each test has its own)."""
    return str(sqs.create_queue(QueueName=f"mturk-events-{next(_queues)}")["QueueUrl"])


@pytest.fixture
def mturk_sqs(tmp_path: Path, sqs_endpoint: str) -> Iterator[LocalMTurk]:
    """A running local MTurk service that delivers notifications to the local SQS."""
    service = LocalMTurk(tmp_path / "mturk.sqlite", {"sqs_endpoint_url": sqs_endpoint}).start()
    yield service
    service.stop()
