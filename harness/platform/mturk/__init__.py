"""MTurk as a harness platform: `MTURK` (what harness knows before connecting: targets, fees,
limits, documents, notifications) and `MTurkProvider` (boto3; the local service, the sandbox or
production). Names are imported on first use, so naming the platform does not import boto3."""

from __future__ import annotations

import importlib
from typing import Any

_NAMES = {
    "MTURK": "harness.platform.mturk.platform",
    "MTurkPlatform": "harness.platform.mturk.platform",
    "MTurkProvider": "harness.platform.mturk.provider",
    "endpoint_for": "harness.platform.mturk.client",
    "make_client": "harness.platform.mturk.client",
}

__all__ = sorted(_NAMES)


def __getattr__(name: str) -> Any:
    module = _NAMES.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
