"""MTurk as a harness platform: `MTURK` (what harness knows before connecting: targets, fees,
limits, documents, notifications) and `MTurkProvider` (boto3; the local service, the sandbox or
production). Names are imported on first use, so naming the platform does not import boto3."""

from __future__ import annotations

import importlib
from typing import Any

_NAMES = {
    "MTURK": "harness.providers.mturk.platform",
    "MTurkPlatform": "harness.providers.mturk.platform",
    "MTurkProvider": "harness.providers.mturk.provider",
    "endpoint_for": "harness.providers.mturk.client",
    "make_client": "harness.providers.mturk.client",
}

__all__ = sorted(_NAMES)


def __getattr__(name: str) -> Any:
    module = _NAMES.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
