"""`harness expire STUDY`: end a study early, keeping everything submitted."""

from __future__ import annotations

import click

from harness.commands._platform import db_option, open_engine, study_provider


@click.command("expire")
@click.argument("study")
@db_option
def expire(study: str, db: str | None) -> None:
    """Expire every HIT of STUDY now (no new workers can start), then sync so that everything
    already submitted is in the store. Workers still working can submit until their deadline;
    run `harness sync STUDY` again later to collect those."""
    from harness.commands.sync import sync_hooks
    from harness.platform.expire import expire_study
    from harness.platform.sync import sync_study

    engine = open_engine(db)
    try:
        provider = study_provider(engine, study)
        count = expire_study(engine, provider, study)
        report = sync_study(engine, provider, study, sync_hooks(engine, study))
    finally:
        engine.dispose()
    click.echo(f"{study}: {count} HITs expired")
    click.echo(report.line(study))
