"""`harness serve`: the task server for studies with ``external`` hosting."""

from __future__ import annotations

import click

from harness.commands.options import apply_option, db_option


@click.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", default=5000, show_default=True, type=int, help="Port to listen on.")
@db_option
@click.option("--no-screening", is_flag=True, help="Do not screen submissions as they arrive.")
@apply_option
@click.option(
    "--dashboard", "with_dashboard", is_flag=True,
    help="Also serve the researcher's dashboard at /dashboard/ (password: "
    "$HARNESS_DASHBOARD_PASSWORD; made and printed on 127.0.0.1 without one).",
)  # fmt: skip
def serve(
    host: str, port: int, db: str | None, no_screening: bool, apply_decisions: bool,
    with_dashboard: bool,
) -> None:  # fmt: skip
    """Serve the task pages of every launched study with external hosting (at
    /hit/<study>-<index>) and store what workers submit, screening each submission live and
    carrying out what screening decides. Launch with --public-url set to where this server is
    reachable (https on MTurk); acting on decisions needs the platform's credentials here."""
    from werkzeug.serving import run_simple

    from harness.platform.after_submission import hook
    from harness.store import database_url
    from harness.store.database import safe_url
    from harness.web import create_app

    url = database_url(db)
    after = None if no_screening else hook(apply_decisions)
    dashboard = None
    if with_dashboard:
        from harness.dashboard import DashboardSettings
        from harness.dashboard.access import password_notice

        dashboard = DashboardSettings.from_environment(host)
    app = create_app(url, after_submission=after, dashboard=dashboard)
    click.echo(f"Task pages on http://{host}:{port}/hit/<study>-<index> (store {safe_url(url)})")
    if dashboard is not None:
        click.echo(f"Dashboard on http://{host}:{port}/dashboard/; {password_notice(dashboard)}")
    try:
        run_simple(host, port, app, threaded=True, use_reloader=False)
    finally:
        app.extensions["harness"].close()

