"""`harness dashboard`: the researcher's dashboard on its own (`harness.web.dashboard`)."""

from __future__ import annotations

import click

from harness.commands.options import db_option


@click.command("dashboard")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", default=5050, show_default=True, type=int, help="Port to listen on.")
@db_option
@click.option(
    "--secure-cookie",
    is_flag=True,
    help="Send the login cookie over https only (behind an https proxy).",
)
def dashboard(host: str, port: int, db: str | None, secure_cookie: bool) -> None:
    """Watch every study in the store live in a browser, and act on them (block, approve,
    reject, bonus, pause, expire, overrule screening) at http://HOST:PORT/dashboard/. The
    password is $HARNESS_DASHBOARD_PASSWORD; on 127.0.0.1 without one, a password for this run
    is made and printed; any other address refuses to start without one."""
    from harness.web.dashboard.access import DashboardSettings, password_notice

    settings = DashboardSettings.from_environment(host, secure_cookie=secure_cookie)

    from harness.errors import StoreError
    from harness.store.database import missing_store_message, store_exists

    if not store_exists(db):  # a dashboard reads a store: it never creates one
        raise StoreError(missing_store_message(db))

    from werkzeug.serving import make_server

    from harness.store.database import database_url, safe_url
    from harness.web.dashboard.app import create_dashboard_app

    url = database_url(db)
    app = create_dashboard_app(url, settings)
    click.echo(
        f"Dashboard on http://{host}:{port}/dashboard/ (store {safe_url(url)}); "
        + password_notice(settings)
    )
    # werkzeug's threaded server, without run_simple's banner: its "development server"
    # warning is about serving the public, and the dashboard serves one researcher
    server = make_server(host, port, app, threaded=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
        app.extensions["harness.web.dashboard"].close()
