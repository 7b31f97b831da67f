"""`harness db upgrade|downgrade|current`: manage the judgment store's schema."""

from __future__ import annotations

import click
import sqlalchemy as sa

from harness.errors import StoreError
from harness.store import database_url, migrations

db_option = click.option(
    "--db",
    "db",
    metavar="URL|PATH",
    default=None,
    help="Database URL or SQLite file (default: $HARNESS_DATABASE_URL, "
    "else harness.db in the working directory).",
)


@click.group("db")
def db_group() -> None:
    """Create and migrate the judgment store (SQLite by default, any SQLAlchemy URL)."""


@db_group.command("upgrade")
@db_option
@click.argument("revision", default="head")
def upgrade(db: str | None, revision: str) -> None:
    """Apply migrations up to REVISION (default: the newest)."""
    url = database_url(db)
    _run(migrations.upgrade, url, revision)
    click.echo(f"{_safe(url)}: at revision {migrations.current_revision(url)}")


@db_group.command("downgrade")
@db_option
@click.argument("revision")
def downgrade(db: str | None, revision: str) -> None:
    """Undo migrations down to REVISION ('base' removes every table)."""
    url = database_url(db)
    _run(migrations.downgrade, url, revision)
    click.echo(f"{_safe(url)}: at revision {migrations.current_revision(url) or 'base'}")


@db_group.command("current")
@db_option
def current(db: str | None) -> None:
    """Show the database's revision and the newest one harness knows."""
    url = database_url(db)
    try:
        here = migrations.current_revision(url)
    except sa.exc.OperationalError as exc:
        raise StoreError(f"{_safe(url)}: cannot connect ({exc.orig})") from None
    click.echo(f"{_safe(url)}: at {here or 'base (empty)'}; newest is {migrations.head_revision()}")


def _run(action, url: str, revision: str) -> None:  # type: ignore[no-untyped-def]
    try:
        action(url, revision)
    except sa.exc.OperationalError as exc:
        raise StoreError(f"{_safe(url)}: cannot connect ({exc.orig})") from None


def _safe(url: str) -> str:
    """The URL without its password, for messages."""
    return sa.engine.make_url(url).render_as_string(hide_password=True)
