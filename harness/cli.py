"""The `harness` command line: one group, error handling in one place, commands registered below.

Each command lives in its own module under `harness.commands` and is a thin layer: it parses
options, calls the stage that does the work, and presents the result. Exit codes: 0 success,
1 a problem with the user's input or environment (the message says what and where), 2 bad
usage (click's own).
"""

from __future__ import annotations

import importlib
from typing import Any

import click

from harness import __version__
from harness.errors import HarnessError, ValidationError

# (command name, "module:attribute") pairs; modules are imported only when the command runs or
# help is shown, so `harness --version` stays fast and nothing heavy happens at import time.
COMMANDS: dict[str, str] = {
    "agreement": "harness.commands.agreement:agreement",
    "characterize": "harness.commands.characterize:characterize_command",
    "db": "harness.commands.db:db_group",
    "expire": "harness.commands.expire:expire",
    "import": "harness.commands.import_data:import_group",
    "launch": "harness.commands.launch:launch",
    "mturk-local": "harness.commands.mturk_local:mturk_local_command",
    "preview": "harness.commands.preview:preview",
    "review": "harness.commands.review:review",
    "screen": "harness.commands.screen:screen",
    "serve": "harness.commands.serve:serve",
    "simulate-workers": "harness.commands.simulate_workers:simulate_workers",
    "status": "harness.commands.status:status",
    "sync": "harness.commands.sync:sync",
    "validate": "harness.commands.validate:validate",
}


class HarnessGroup(click.Group):
    """A click group that loads commands lazily and turns harness errors into exit code 1."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = COMMANDS.get(cmd_name)
        if target is None:
            return None
        module_name, attribute = target.split(":")
        command = getattr(importlib.import_module(module_name), attribute)
        assert isinstance(command, click.Command), target
        return command

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except ValidationError as exc:
            for problem in exc.problems:
                click.echo(str(problem), err=True)
            count = len(exc.problems)
            click.echo(f"{count} problem{'s' if count != 1 else ''} found.", err=True)
            ctx.exit(1)
        except HarnessError as exc:
            click.echo(f"Error: {exc}", err=True)
            ctx.exit(1)
        except Exception as exc:
            missing = _missing_schema(exc)
            if missing is None:
                raise
            click.echo(
                f"Error: the store has no {missing} table: create or update its schema with "
                "`harness db upgrade` (with the same --db)",
                err=True,
            )
            ctx.exit(1)


def _missing_schema(exc: Exception) -> str | None:
    """The table a database error says is missing (a store never upgraded), else None."""
    import re

    import sqlalchemy as sa

    if not isinstance(exc, (sa.exc.OperationalError, sa.exc.ProgrammingError)):
        return None
    text = str(exc.orig)
    match = re.search(r'no such table: (\w+)|relation "(\w+)" does not exist', text)
    return None if match is None else (match[1] or match[2])


@click.group(cls=HarnessGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "-V", "--version", prog_name="harness")
def main() -> None:
    """harness: crowdsourced benchmarks as measuring instruments.

    Describe a study in a YAML task spec, launch it, collect and screen judgments, and
    characterize the result against the original instrument.
    """
