"""`harness mturk-local`: run the local MTurk-compatible service (the platform target `local`)."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Any

import click

from harness.commands.options import graceful_timeout_option, timeout_option
from harness.errors import InputError
from harness.providers.mturk.pricing import SANDBOX_BALANCE, format_amount, parse_amount


def _amount(_ctx: click.Context, _param: click.Parameter, value: str) -> Decimal:
    try:
        return parse_amount(value)
    except (ValueError, ArithmeticError) as exc:
        raise click.BadParameter(f"expected an amount such as 10000.00, got {value!r}") from exc


@click.command("mturk-local")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", default=8765, show_default=True, type=int, help="Port to listen on.")
@click.option(
    "--db",
    "db_path",
    default="mturk-local.sqlite",
    show_default=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="The service's own SQLite file; state survives a restart.",
)
@click.option(
    "--balance",
    default=format_amount(SANDBOX_BALANCE),
    show_default=True,
    callback=_amount,
    help="Starting balance of a new database (the sandbox reports 10000.00).",
)
@click.option(
    "--sqs-endpoint-url",
    default=None,
    help="A local SQS (on loopback, e.g. moto_server) to send notifications to.",
)
@click.option("--throttle-rate", type=float, default=None, help="Throttle above N requests/s.")
@click.option("--throttle-share", type=float, default=0.0, help="Throttle this share of calls.")
@click.option(
    "--unavailable-share", type=float, default=0.0, help="Answer 503 to this share of calls."
)
@click.option("--latency-ms", type=float, default=0.0, help="Delay every requester call.")
@click.option(
    "--threads",
    type=click.IntRange(1, 512),
    default=32,
    show_default=True,
    help="Requests served at once (gunicorn threads in one process).",
)
@timeout_option(120)
@graceful_timeout_option
@click.option(
    "--keepalive",
    type=click.IntRange(1, 3600),
    default=5,
    show_default=True,
    help="Seconds an idle kept-alive client connection stays open.",
)
def mturk_local_command(
    host: str,
    port: int,
    db_path: Path,
    balance: Decimal,
    sqs_endpoint_url: str | None,
    throttle_rate: float | None,
    throttle_share: float,
    unavailable_share: float,
    latency_ms: float,
    threads: int,
    timeout: int,
    graceful_timeout: int,
    keepalive: int,
) -> None:
    """Run the local MTurk service: boto3's `mturk` client with
    endpoint_url=http://HOST:PORT talks to it unchanged; workers use /worker/... (see
    docs/local-mturk.md). Stop it with kill PID (graceful) or Ctrl-C."""
    from sqlalchemy.exc import SQLAlchemyError

    from harness.gunicorn_app import ServerOptions
    from harness.providers.mturk.local_service import Settings, create_app
    from harness.providers.mturk.local_service.app import MAX_BODY_BYTES
    from harness.providers.mturk.local_service.faults import FaultSwitches
    from harness.providers.mturk.local_service.notifications import (
        NotLocalError,
        check_local_endpoint,
    )
    from harness.providers.mturk.local_service.server import serve

    switches: dict[str, Any] = {
        "throttle_rate": throttle_rate,
        "throttle_share": throttle_share,
        "unavailable_share": unavailable_share,
        "latency_ms": latency_ms,
    }
    try:
        FaultSwitches().update(switches)  # check them all before opening anything
    except ValueError as exc:
        raise InputError(f"fault switches: {exc}") from exc
    try:
        if sqs_endpoint_url is not None:
            check_local_endpoint(sqs_endpoint_url)
    except NotLocalError as exc:
        raise InputError(f"--sqs-endpoint-url: {exc}") from exc
    settings = Settings(
        db_path=db_path, starting_balance=balance, sqs_endpoint_url=sqs_endpoint_url
    )
    try:  # open (create, upgrade) the database once here, so a bad --db is a clear message
        create_app(settings).extensions["mturk_local"].close()
    except (OSError, SQLAlchemyError) as exc:
        raise InputError(f"--db {db_path}: cannot open the service's database: {exc}") from exc

    def build() -> Any:
        app = create_app(settings)
        app.extensions["mturk_local"].faults.update(switches)
        return app

    click.echo(
        f"Local MTurk service on http://{host}:{port}/ (state in {db_path}; {threads} threads)"
    )
    serve(
        build,
        ServerOptions(
            "harness-mturk-local",
            host=host,
            port=port,
            threads=threads,
            timeout=timeout,
            graceful_timeout=graceful_timeout,
            keepalive=keepalive,
        ),
        max_body=MAX_BODY_BYTES,
    )
