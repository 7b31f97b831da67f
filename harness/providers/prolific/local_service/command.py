"""`harness prolific-local`: run the local Prolific-compatible service (target prolific-local)."""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from pathlib import Path

import click

from harness.errors import InputError


def _amount(_ctx: click.Context, _param: click.Parameter, value: str) -> Decimal:
    try:
        amount = Decimal(value)
    except InvalidOperation as exc:
        raise click.BadParameter(f"expected an amount such as 10000.00, got {value!r}") from exc
    if not amount.is_finite() or amount < 0:
        raise click.BadParameter(f"expected an amount such as 10000.00, got {value!r}")
    return amount


@click.command("prolific-local")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", default=8766, show_default=True, type=int, help="Port to listen on.")
@click.option(
    "--db",
    "db_path",
    default="prolific-local.sqlite",
    show_default=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="The service's own SQLite file; state survives a restart.",
)
@click.option(
    "--balance",
    default="10000.00",
    show_default=True,
    callback=_amount,
    help="Starting balance of a new database (in its currency).",
)
@click.option(
    "--currency",
    type=click.Choice(["USD", "GBP"]),
    default="USD",
    show_default=True,
    help="The workspace's currency (of a new database).",
)
@click.option("--rate-limit-share", type=float, default=0.0, help="Answer 429 to this share.")
@click.option("--retry-after", type=int, default=1, help="Seconds a 429 asks to wait.")
@click.option("--unavailable-share", type=float, default=0.0, help="Answer 503 to this share.")
@click.option("--latency-ms", type=float, default=0.0, help="Delay every requester call.")
def prolific_local_command(
    host: str,
    port: int,
    db_path: Path,
    balance: Decimal,
    currency: str,
    rate_limit_share: float,
    retry_after: int,
    unavailable_share: float,
    latency_ms: float,
) -> None:
    """Run the local Prolific service: Prolific's API v1 (what harness uses) at
    http://HOST:PORT/api/v1/, participants at /participant/... (see docs/platforms.md). It runs
    on gunicorn (one process, 32 threads); stop it with kill PID (graceful) or Ctrl-C."""
    from typing import Any

    from harness.gunicorn_app import ServerOptions
    from harness.providers.mturk.local_service.server import serve
    from harness.providers.prolific.local_service import Settings, create_app

    faults = {
        "rate_limit_share": rate_limit_share,
        "retry_after": retry_after,
        "unavailable_share": unavailable_share,
        "latency_ms": latency_ms,
    }
    settings = Settings(db_path=db_path, balance=balance, currency=currency)
    service = create_app(settings).extensions["prolific_local"]  # checked once, here
    try:
        service.faults.update(faults)
    except ValueError as exc:
        raise InputError(f"fault switches: {exc}") from exc
    finally:
        service.close()

    def build() -> Any:
        app = create_app(settings)
        app.extensions["prolific_local"].faults.update(faults)
        return app

    click.echo(f"Local Prolific service on http://{host}:{port}/api/v1/ (state in {db_path})")
    serve(
        build,
        ServerOptions("harness-prolific-local", host=host, port=port),
        "prolific_local",
    )
