"""What commands show besides their lines, one way for every command: progress on stderr for
long steps (click's progress bar), and JSON without NaN."""

from __future__ import annotations

import math
import sys
from collections.abc import Callable

import click


def progress_bar(total: int, label: str) -> Callable[[int], None]:
    """A progress bar of ``total`` steps on stderr; the returned callback advances it by n
    steps and closes it when all are done."""
    bar = click.progressbar(length=total, label=label, file=sys.stderr)
    bar.__enter__()
    done = 0

    def advance(n: int) -> None:
        nonlocal done
        bar.update(n)
        done += n
        if done >= total:
            bar.__exit__(None, None, None)

    if total <= 0:
        bar.__exit__(None, None, None)
    return advance


def finite(value: object) -> object:
    """The same structure with every NaN or infinite number as None (JSON has neither)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [finite(v) for v in value]
    return value
