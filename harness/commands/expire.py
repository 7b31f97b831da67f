"""`harness expire STUDY`: end a study early, keeping everything submitted."""

from __future__ import annotations

import click

from harness.commands.options import db_option


@click.command("expire")
@click.argument("study")
@db_option
def expire(study: str, db: str | None) -> None:
    """Expire every HIT of STUDY now (no new workers can start), then sync so that everything
    already submitted is in the store. Workers still working can submit until their deadline;
    run `harness sync STUDY` again later to collect those."""
    from harness.store.database import opened_store

    with opened_store(db) as engine:  # a missing store is refused before the heavy imports
        from harness.platform.expire import expire_study
        from harness.platform.local_service import require_answering
        from harness.platform.registry import provider_for
        from harness.platform.sync_run import sync_stored_study
        from harness.store.studies import read_launched

        running = read_launched(engine, study)
        require_answering(running)
        count = expire_study(engine, provider_for(running), running)
        run = sync_stored_study(engine, running)
    click.echo(f"{study}: {count} HITs expired")
    click.echo(run.report.line(study))
