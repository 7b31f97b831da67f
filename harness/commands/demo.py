"""`harness demo [reproduction|resolution] [--platform local|prolific-local|link]`: the whole
loop on a local platform with a simulated crowd (`harness.demo`)."""

from __future__ import annotations

from pathlib import Path

import click


@click.command("demo")
@click.argument("kind", type=click.Choice(["reproduction", "resolution"]), default="reproduction")
@click.option(
    "--platform",
    type=click.Choice(["local", "prolific-local", "link"]),
    default="local",
    show_default=True,
    help="local: the local MTurk service; prolific-local: the local Prolific service; "
    "link: a study link for your own participants.",
)
@click.option(
    "--out",
    "run_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("demo-run"),
    show_default=True,
    help="The run folder (emptied first): store, service logs, report.",
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
    from harness.demo import Demo, run_demo

    result = run_demo(Demo(kind, platform, run_dir, seed), click.echo)
    click.echo(f"\nReport: {result.report_dir / 'report.html'}  ({result.seconds:.0f} s)")
