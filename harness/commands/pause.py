"""`harness pause STUDY` and `harness resume STUDY`: stop new workers starting, and let them
start again, where the platform can (Prolific, a study link; MTurk has no pause)."""

from __future__ import annotations

import click

from harness.commands.options import db_option

REASON_HELP = "Why, for the event log (default: paused/resumed from the command line)."


@click.command("pause")
@click.argument("study")
@db_option
@click.option("--reason", default="paused from the command line", help=REASON_HELP)
def pause(study: str, db: str | None, reason: str) -> None:
    """Pause STUDY: nobody new can start it until `harness resume STUDY`; work under way is
    finished and submitted as usual."""
    _move(study, db, reason, resume=False)


@click.command("resume")
@click.argument("study")
@db_option
@click.option("--reason", default="resumed from the command line", help=REASON_HELP)
def resume(study: str, db: str | None, reason: str) -> None:
    """Resume a paused STUDY: new workers can start it again."""
    _move(study, db, reason, resume=True)


def _move(study: str, db: str | None, reason: str, *, resume: bool) -> None:
    from harness.store.database import opened_store

    with opened_store(db) as engine:  # a missing store is refused before the heavy imports
        from harness.platform.contract import pausing
        from harness.platform.local_service import require_answering
        from harness.platform.pause import pause_study, resume_study
        from harness.platform.registry import provider_for
        from harness.store import launched_study, session_scope

        with session_scope(engine) as session:
            running = launched_study(session, study)
            require_answering(running)
            provider = provider_for(running)
            if resume:
                done = resume_study(session, provider, running, reason)
            else:
                done = pause_study(session, provider, running, reason)
    if resume:
        click.echo(
            f"{study}: resumed; new workers can start"
            if done
            else f"{study}: running already; nothing changed"
        )
    elif done:
        click.echo(
            f"{study}: paused. On {provider.platform.label}, {pausing(provider.platform).says}"
        )
    else:
        click.echo(f"{study}: paused already; nothing changed")
