"""`harness serve`: the task server for studies with ``external`` hosting, on gunicorn."""

from __future__ import annotations

import click

from harness.commands.options import (
    apply_option,
    db_option,
    graceful_timeout_option,
    timeout_option,
)


@click.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", default=5000, show_default=True, type=int, help="Port to listen on.")
@db_option
@click.option("--no-screening", is_flag=True, help="Do not screen submissions as they arrive.")
@apply_option
@click.option(
    "--workers",
    type=click.IntRange(1, 64),
    default=2,
    show_default=True,
    help="Worker processes (about one per core).",
)
@click.option(
    "--threads",
    type=click.IntRange(1, 256),
    default=8,
    show_default=True,
    help="Requests each process serves at once; each keeps as many database connections.",
)
@timeout_option(60)
@graceful_timeout_option
@click.option(
    "--screen-inline",
    is_flag=True,
    help="Screen in the request that stored the answers (default: a moment later, in a "
    "thread of the same process, so the worker is answered at once).",
)
@click.option("--access-log", is_flag=True, help="Log every request to stderr.")
@click.option(
    "--dashboard",
    "with_dashboard",
    is_flag=True,
    help="Also serve the researcher's dashboard at /dashboard/ (password: "
    "$HARNESS_DASHBOARD_PASSWORD; made and printed on 127.0.0.1 without one).",
)
def serve(
    host: str,
    port: int,
    db: str | None,
    no_screening: bool,
    apply_decisions: bool,
    workers: int,
    threads: int,
    timeout: int,
    graceful_timeout: int,
    screen_inline: bool,
    access_log: bool,
    with_dashboard: bool,
) -> None:
    """Serve the task pages of every launched study with external hosting (at
    /hit/<study>-<index>) and store what workers submit, screening each submission live and
    carrying out what screening decides. Launch with --public-url set to where this server is
    reachable (https on MTurk, see docs/deploy.md); acting on decisions needs the platform's
    credentials here. On start, and every few seconds while it runs, every stored assignment
    not screened yet is screened and every decision a stopped process left is carried out; the
    platform is asked again about quarantined submissions as they fall due, those of a stopped
    process included. Stop it with kill PID (graceful) or Ctrl-C."""
    from harness.store.database import database_url, open_store

    open_store(db).dispose()  # a missing store is refused before the heavy imports
    dashboard = None
    if with_dashboard:
        from harness.web.dashboard.access import DashboardSettings

        dashboard = DashboardSettings.from_environment(host)

    from harness.gunicorn_app import ServerOptions
    from harness.web.server import TaskServer, run_task_server

    server = TaskServer(
        database_url(db),
        screening=not no_screening,
        apply_decisions=apply_decisions,
        screen_inline=screen_inline,
        dashboard=dashboard,
    )
    options = ServerOptions(
        "harness-serve",
        host=host,
        port=port,
        workers=workers,
        threads=threads,
        timeout=timeout,
        graceful_timeout=graceful_timeout,
        access_log=access_log,
    )
    run_task_server(server, options, click.echo, lambda line: click.echo(line, err=True))
