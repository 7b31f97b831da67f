"""`harness simulate-workers STUDY`: a simulated crowd does a study's HITs on the local service."""

from __future__ import annotations

import click

from harness.commands.options import db_option


def _mix(_ctx: click.Context, _param: click.Parameter, value: str) -> dict[str, float]:
    from harness.simulate import Archetype

    mix: dict[str, float] = {}
    for part in value.split(","):
        name, _, share = part.partition("=")
        try:
            mix[Archetype(name.strip()).value] = float(share)
        except ValueError as exc:
            known = ", ".join(a.value for a in Archetype)
            raise click.BadParameter(f"{part!r}: expected ARCHETYPE=SHARE ({known})") from exc
    return mix


@click.command("simulate-workers")
@click.argument("study")
@db_option
@click.option("--endpoint-url", help="The local service (default: the study's).")
@click.option("--size", default=20, show_default=True, type=int, help="Workers in the crowd.")
@click.option(
    "--mix",
    default="careful=0.8,sloppy=0.1,spammer=0.1",
    show_default=True,
    callback=_mix,
    help="Archetypes and their shares.",
)
@click.option("--seed", default=0, show_default=True, type=int)
@click.option("--country", default="US", show_default=True, help="What workers say they are.")
def simulate_workers(
    study: str,
    db: str | None,
    endpoint_url: str | None,
    size: int,
    mix: dict[str, float],
    seed: int,
    country: str,
) -> None:
    """Let a simulated crowd find, accept, answer and submit STUDY's HITs through the local
    MTurk service's worker side, as people would (external pages through the task server,
    which must be running). Only for studies on a local target (local, prolific-local, link:
    through the local Prolific service's participant side, or the study link). In a study
    with arms on MTurk each worker keeps to the HIT group of their first HIT, and returns a HIT
    whose page says it is of another arm."""
    from harness.commands.output import progress_bar
    from harness.simulate.crowds import simulate_study
    from harness.store.database import opened_store

    with opened_store(db) as engine:
        report = simulate_study(
            engine,
            study,
            mix,
            size=size,
            seed=seed,
            country=country,
            endpoint_url=endpoint_url,
            progress=lambda total: progress_bar(total, "assignments submitted"),
        )
    if report.returned:
        click.echo(
            f"  {len(report.returned)} HITs returned: their page said they were of "
            "another arm than the worker's",
            err=True,
        )
    for problem in report.refused[:10]:  # e.g. a worker blocked live between list and accept
        click.echo(f"  refused: {problem}", err=True)
    click.echo(report.line(study))  # last: the line a summary (the demo) shows
