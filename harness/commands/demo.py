"""`harness demo [reproduction|resolution] [--platform NAME]`: the whole loop on a local
platform with a simulated crowd (`harness.demo`); the ``--platform`` choices are the platforms'
demo entries (`Capabilities.demo`, read through the registry)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from harness.platform.registry import demos

_DEMOS = demos()


@click.command("demo")
@click.argument("kind", type=click.Choice(["reproduction", "resolution"]), default="reproduction")
@click.option(
    "--platform",
    type=click.Choice([entry.name for entry in _DEMOS]),
    default=_DEMOS[0].name,
    show_default=True,
    help="; ".join(f"{entry.name}: {entry.says}" for entry in _DEMOS) + ".",
)
@click.option(
    "--out",
    "run_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("demo-run"),
    show_default=True,
    help="The run folder: store, service logs, report (a new or empty folder, or one a demo "
    "made, which is emptied first).",
)
@click.option("--seed", type=int, default=1, show_default=True, help="The crowd's seed.")
def demo(kind: str, platform: str, run_dir: Path, seed: int) -> None:
    """Run the whole loop on a local platform with a simulated crowd, then characterize.

    Starts the platform's local service and the task server on free loopback ports, launches
    the WS353 reproduction (or the resolution experiment), lets a simulated crowd (some careless
    or rating backwards) do it through the pages while screening blocks unreliable workers
    live, syncs, reviews, screens, and characterizes the result against WS353 and three
    systems' predictions. Stops everything it started, also on Ctrl-C.
    """
    from harness.commands.output import progress_bar
    from harness.demo import Demo, next_steps, run_demo

    chosen = Demo(kind, platform, run_dir, seed)
    try:
        result = run_demo(
            chosen, click.echo, lambda total: progress_bar(total, "assignments submitted")
        )
    except KeyboardInterrupt:
        click.echo(
            f"\ndemo: stopped (Ctrl-C); the services it started are stopped, and what it "
            f"stored is in {run_dir / 'harness.db'}",
            err=True,
        )
        # everything is stopped: exit now with a shell's 130 for Ctrl-C, before anything left
        # (a finalizer interrupted mid-way) can turn the exit into a death by SIGINT
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(130)
    click.echo(f"\nReport: {result.report_dir / 'report.html'}  ({result.seconds:.0f} s)")
    for line in next_steps(chosen, result):
        click.echo(line)
