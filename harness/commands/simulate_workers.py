"""`harness simulate-workers STUDY`: a simulated crowd does a study's HITs on the local service."""

from __future__ import annotations

from typing import Any

import click

from harness.commands._platform import db_option, open_engine
from harness.errors import InputError


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
@click.option("--endpoint-url", default=None, help="The local service (default: the study's).")
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
    which must be running). Only for studies on the local target."""
    import requests

    from harness.platform.mturk.client import endpoint_for
    from harness.platform.studies import find_study, platform_of
    from harness.simulate import Crowd
    from harness.simulate.driver import SimulatedWorkers
    from harness.store import session_scope

    engine = open_engine(db)
    try:
        with session_scope(engine) as session:
            found = find_study(session, study)
            if found.target != "local":
                raise InputError(
                    f"study {study!r} runs on {found.target}: simulated workers "
                    "only work on the local service"
                )
            endpoint = endpoint_for(
                "local", endpoint_url or platform_of(session, found).endpoint_url
            )
            instrument, truths = _instrument_and_truths(session, found.instrument_id, seed)
    finally:
        engine.dispose()
    workers = Crowd(mix, size=size, seed=seed).workers(instrument.scale)
    profile = {"country": country, "numberApproved": 5000, "percentApproved": 99}
    with requests.Session() as http:
        report = SimulatedWorkers(
            endpoint, workers, truths, instrument.scale, http, seed=seed, profile=profile
        ).run()
    click.echo(
        f"{study}: {len(report.submitted)} assignments submitted by {len(report.by_worker)} "
        f"simulated workers"
    )
    for problem in report.refused[:10]:
        click.echo(f"  refused: {problem}", err=True)


def _instrument_and_truths(session: Any, instrument_id: int, seed: int) -> tuple[Any, dict]:
    """The stored instrument, and latent truths: an item's ``mean`` column where it has one
    (WS353), else the scale's midpoint; control items from `control_truths`."""
    from harness.commands.sync import stored_instrument_of
    from harness.simulate import control_truths

    instrument = stored_instrument_of(session, instrument_id)
    items = instrument.items
    scale = instrument.scale
    means = items["mean"] if "mean" in items.columns else None
    truths = {
        str(key): float(means.iloc[i]) if means is not None else scale.midpoint
        for i, key in enumerate(items["item_id"])
    }
    truths.update({str(k): float(v) for k, v in control_truths(items, scale, seed).items()})
    return instrument, truths
