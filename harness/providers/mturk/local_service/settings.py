"""Settings of the local MTurk service; nothing is read from the environment on import."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

from harness.providers.mturk.pricing import SANDBOX_BALANCE


@dataclass(frozen=True)
class Settings:
    """How to run the service.

    db_path: the service's own SQLite file (created if missing; state survives a restart).
    starting_balance: the balance a new database starts with (the sandbox reports $10,000).
    sqs_endpoint_url: where notification messages go; None means the endpoint boto3 derives from
        the queue URL's region (real AWS, or moto's in-process mock in tests).
    fault_seed: seed of the random draws behind the fault switches, so a test run repeats.
    """

    db_path: Path
    starting_balance: Decimal = SANDBOX_BALANCE
    sqs_endpoint_url: str | None = None
    fault_seed: int = 0
