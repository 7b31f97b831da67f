"""Options shared by the commands that compute alpha: level, bootstrap resamples and seed."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

from harness.stats.alpha import LEVELS

Decorator = Callable[[Callable[..., Any]], Callable[..., Any]]


def level_option(help_text: str = "Level of measurement (the difference function of alpha).")\
        -> Decorator:  # fmt: skip
    return click.option(
        "--level", type=click.Choice(LEVELS), default="interval", show_default=True,
        help=help_text,
    )  # fmt: skip


def resamples_option(help_text: str = "Bootstrap resamples for the interval and q (0: none).")\
        -> Decorator:  # fmt: skip
    return click.option(
        "--bootstrap", "resamples", type=click.IntRange(min=0), default=1000, show_default=True,
        help=help_text,
    )  # fmt: skip


seed_option = click.option(
    "--seed", type=int, default=0, show_default=True, help="Seed of the bootstrap."
)
