"""Apply, undo and check the Alembic migrations of the store, from code and from the CLI."""

from __future__ import annotations

from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory

from alembic import command
from harness.resources import migrations_dir
from harness.store.database import make_engine


def alembic_config(url: str) -> Config:
    """An Alembic config for ``url`` using harness's own migration scripts (no alembic.ini)."""
    config = Config()
    config.set_main_option("script_location", str(migrations_dir()))
    config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return config


def upgrade(url: str, revision: str = "head") -> None:
    command.upgrade(alembic_config(url), revision)


def downgrade(url: str, revision: str) -> None:
    command.downgrade(alembic_config(url), revision)


def current_revision(url: str) -> str | None:
    engine = make_engine(url)
    try:
        with engine.connect() as connection:
            return MigrationContext.configure(connection).get_current_revision()
    finally:
        engine.dispose()


def head_revision() -> str | None:
    return ScriptDirectory.from_config(alembic_config("sqlite://")).get_current_head()


def revision(url: str, message: str) -> None:
    """Autogenerate a new migration from the difference between the models and ``url``."""
    command.revision(alembic_config(url), message=message, autogenerate=True)
