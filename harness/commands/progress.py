"""Progress on stderr for long steps: one way for every command (click's progress bar)."""

from __future__ import annotations

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
