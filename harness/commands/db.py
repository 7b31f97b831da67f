"""`harness db upgrade|downgrade|current`: manage the judgment store's schema."""

from __future__ import annotations

from collections.abc import Callable

import click

from harness.commands.options import db_option
from harness.store import database_url, migrations
from harness.store.database import safe_url


@click.group("db")
def db_group() -> None:
    """Create and migrate the judgment store (SQLite by default, any SQLAlchemy URL)."""


@db_group.command("upgrade")
@db_option
@click.argument("revision", default="head")
def upgrade(db: str | None, revision: str) -> None:
    """Apply migrations up to REVISION (default: the newest)."""
    _migrate(migrations.upgrade, db, revision)


@db_group.command("downgrade")
@db_option
@click.argument("revision")
def downgrade(db: str | None, revision: str) -> None:
    """Undo migrations down to REVISION ('base' removes every table)."""
    _migrate(migrations.downgrade, db, revision)


def _migrate(move: Callable[[str, str], None], db: str | None, revision: str) -> None:
    """Move the store to ``revision`` and say where it is now."""
    url = database_url(db)
    move(url, revision)
    click.echo(f"{safe_url(url)}: at revision {migrations.current_revision(url) or 'base'}")


@db_group.command("current")
@db_option
def current(db: str | None) -> None:
    """Show the database's revision and the newest one harness knows."""
    from harness.store.database import store_exists

    url = database_url(db)
    newest = migrations.head_revision()
    if not store_exists(db):  # reading a revision must not create the store it reads
        click.echo(f"{safe_url(url)}: no store there (nothing created); newest is {newest}")
        return
    here = migrations.current_revision(url)
    click.echo(f"{safe_url(url)}: at {here or 'base (empty)'}; newest is {newest}")
