"""Options shared by several commands: the store (--db), and for alpha the level, bootstrap
resamples and seed."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

Decorator = Callable[[Callable[..., Any]], Callable[..., Any]]

LEVELS = ("nominal", "ordinal", "interval", "ratio")
"""`harness.stats.alpha.LEVELS`, spelled out so that a command's --help imports no statistics
(a test keeps the two equal)."""

BOOTSTRAP_METHODS = ("units", "kalpha")
"""`harness.stats.bootstrap.METHODS`, likewise."""

MIN_SHARED_ITEMS = 30
"""`harness.characterize.reproducibility.MIN_SHARED_ITEMS`, likewise."""


def level_option(
    help_text: str = "Level of measurement (the difference function of alpha).",
) -> Decorator:
    return click.option(
        "--level",
        type=click.Choice(LEVELS),
        default="interval",
        show_default=True,
        help=help_text,
    )


def resamples_option(
    help_text: str = "Bootstrap resamples for the interval and q (0: none).",
) -> Decorator:
    return click.option(
        "--bootstrap",
        "resamples",
        type=click.IntRange(min=0),
        default=1000,
        show_default=True,
        help=help_text,
    )


seed_option = click.option(
    "--seed", type=int, default=0, show_default=True, help="Seed of the bootstrap."
)

DB_META = "harness.db"
"""Where `db_option` leaves the --db value for the CLI's one store-error handler."""


def _remember_db(ctx: click.Context, _param: click.Parameter, value: str | None) -> str | None:
    ctx.meta[DB_META] = value
    return value


db_option = click.option(
    "--db",
    "db",
    metavar="URL|PATH",
    callback=_remember_db,
    help="Database URL or SQLite file (default: $HARNESS_DATABASE_URL, "
    "else harness.db in the working directory).",
)
"""The one --db option of every command that uses the store."""

apply_option = click.option(
    "--apply-decisions/--no-apply-decisions",
    default=True,
    show_default=True,
    help="Carry out screening's block, reject and replace decisions as submissions arrive "
    "(otherwise `harness review` does).",
)


def timeout_option(default: int) -> Decorator:
    """--timeout of a server run by gunicorn (`harness serve`, the local platform services)."""
    return click.option(
        "--timeout",
        type=click.IntRange(1, 3600),
        default=default,
        show_default=True,
        help="Seconds a silent worker process gets before it is restarted.",
    )


graceful_timeout_option = click.option(
    "--graceful-timeout",
    type=click.IntRange(1, 3600),
    default=30,
    show_default=True,
    help="Seconds requests in flight get to finish when stopped with SIGTERM.",
)
"""--graceful-timeout of a server run by gunicorn."""
