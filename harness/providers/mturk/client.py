"""One boto3 MTurk client, configured by target: local, sandbox or production.

Only the endpoint and the credentials differ. The sandbox and production use the standard AWS
credential chain (environment, shared profile, instance role); harness never reads, logs or
stores a credential itself. The local service takes any credentials, so dummy ones are given.
botocore's own retries are turned off (one attempt per call): harness retries itself, and only
calls that are safe to repeat (see `retry.py`).
"""

from __future__ import annotations

import os
import threading
from datetime import UTC, datetime
from typing import Any

from harness.errors import InputError

SANDBOX_ENDPOINT = "https://mturk-requester-sandbox.us-east-1.amazonaws.com"
PRODUCTION_ENDPOINT = "https://mturk-requester.us-east-1.amazonaws.com"
LOCAL_ENDPOINT = "http://127.0.0.1:8765"
ENDPOINT_ENV = "HARNESS_MTURK_ENDPOINT"
REGION = "us-east-1"
TARGETS = ("local", "sandbox", "production")


def endpoint_for(target: str, endpoint_url: str | None = None) -> str:
    """The requester endpoint of ``target``; local: ``endpoint_url``, $HARNESS_MTURK_ENDPOINT
    or http://127.0.0.1:8765. An endpoint override is refused for sandbox and production."""
    if target == "local":
        return endpoint_url or os.environ.get(ENDPOINT_ENV) or LOCAL_ENDPOINT
    if endpoint_url:
        raise InputError(
            f"--endpoint-url is for --target local only; {target} always uses "
            f"{SANDBOX_ENDPOINT if target == 'sandbox' else PRODUCTION_ENDPOINT}"
        )
    if target == "sandbox":
        return SANDBOX_ENDPOINT
    if target == "production":
        return PRODUCTION_ENDPOINT
    raise InputError(f"unknown target {target!r}; expected one of {', '.join(TARGETS)}")


def make_client(target: str, endpoint_url: str | None = None) -> Any:
    """boto3's MTurk client for ``target`` (one attempt per call; harness retries)."""
    import boto3
    import botocore.session
    from botocore.config import Config

    config = Config(
        retries={"total_max_attempts": 1},
        connect_timeout=10,
        read_timeout=60,
        user_agent_extra="harness",
    )
    kwargs: dict[str, Any] = {
        "endpoint_url": endpoint_for(target, endpoint_url),
        "region_name": REGION,
        "config": config,
    }
    if target == "local":
        kwargs |= {"aws_access_key_id": "local", "aws_secret_access_key": "local"}
    # A session of its own: credentials are resolved now, not cached from an earlier client;
    # botocore's data (the service model, the endpoints) is read once per process.
    core = botocore.session.Session()
    core.register_component("data_loader", _data_loader())
    parsers = core.get_component("response_parser_factory")
    parsers.set_parser_defaults(timestamp_parser=utc_timestamp)
    return boto3.session.Session(botocore_session=core).client("mturk", **kwargs)


def utc_timestamp(value: Any) -> datetime:
    """A timestamp of an MTurk answer as an aware datetime in UTC.

    MTurk's JSON gives seconds since the epoch; botocore's own parser tries the local time zone
    of dateutil for each, a large part of the CPU of reading a listing (docs/deploy.md). The
    same instant either way; anything but a number goes to botocore's.
    """
    if isinstance(value, int | float) and not isinstance(value, bool):
        return datetime.fromtimestamp(value, UTC)
    from botocore.utils import parse_timestamp

    parsed: datetime = parse_timestamp(value)
    return parsed


_LOADER: Any = None
_LOADER_LOCK = threading.Lock()


def _data_loader() -> Any:
    """botocore's data loader shared by every client of the process: it keeps what it read,
    so a client after the first costs much less (no JSON read and parsed again)."""
    global _LOADER
    with _LOADER_LOCK:
        if _LOADER is None:
            from botocore.loaders import create_loader

            _LOADER = create_loader()
        return _LOADER


def preload() -> None:
    """Import boto3 and read MTurk's service model now (a server, before it forks its worker
    processes): a throwaway client for a local endpoint, which opens no connection."""
    make_client("local", "http://127.0.0.1:9")
