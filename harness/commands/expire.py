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
    from harness.platform.expire import expire_study
    from harness.platform.registry import provider_for
    from harness.platform.sync import sync_study
    from harness.platform.sync_run import study_sync_hooks
    from harness.store import launched_study, session_scope
    from harness.store.database import open_store

    engine = open_store(db)
    try:
        with session_scope(engine) as session:
            running = launched_study(session, study)
        provider = provider_for(running)
        count = expire_study(engine, provider, running)
        report = sync_study(engine, provider, running, study_sync_hooks(engine, provider, running))
    finally:
        engine.dispose()
    click.echo(f"{study}: {count} HITs expired")
    click.echo(report.line(study))
