"""The `harness` command line: one group, error handling in one place, commands registered below.

Each command lives in its own module under `harness.commands` and is a thin layer: it parses
options, calls the stage that does the work, and presents the result. Exit codes: 0 success,
1 a problem with the user's input or environment (the message says what and where), 2 bad
usage (click's own).
"""

from __future__ import annotations

import importlib
import sys
from typing import Any

import click

from harness import __version__
from harness.errors import HarnessError, ValidationError
from harness.masking import mask_secrets
from harness.platform.registry import local_commands

# (command name, "module:attribute") pairs; modules are imported only when the command runs or
# help is shown, so `harness --version` stays fast and nothing heavy happens at import time.
COMMANDS: dict[str, str] = {
    "agreement": "harness.commands.agreement:agreement",
    "characterize": "harness.commands.characterize:characterize_command",
    "compare-arms": "harness.commands.compare_arms:compare_arms_command",
    "dashboard": "harness.commands.dashboard:dashboard",
    "db": "harness.commands.db:db_group",
    "demo": "harness.commands.demo:demo",
    "expire": "harness.commands.expire:expire",
    "export": "harness.commands.export:export",
    "import": "harness.commands.import_data:import_group",
    "launch": "harness.commands.launch:launch",
    "pause": "harness.commands.pause:pause",
    "plan": "harness.commands.plan:plan",
    "preview": "harness.commands.preview:preview",
    "resume": "harness.commands.pause:resume",
    "review": "harness.commands.review:review",
    "screen": "harness.commands.screen:screen",
    "serve": "harness.commands.serve:serve",
    "simulate-workers": "harness.commands.simulate_workers:simulate_workers",
    "status": "harness.commands.status:status",
    "sync": "harness.commands.sync:sync",
    "validate": "harness.commands.validate:validate",
}


SUMMARIES: dict[str, str] = {
    "agreement": "Krippendorff's alpha of a judgments CSV, with a bootstrap interval, q and a "
    "verdict.",
    "characterize": "Characterize a new instrument against the original and write the report "
    "to --out.",
    "compare-arms": "Compare STUDY's arms: alpha per arm, differences with intervals, a verdict, "
    "raters needed.",
    "dashboard": "Watch every study in the store live in a browser, and act on them (block, "
    "approve, reject, bonus, pause, expire, overrule screening) at http://HOST:PORT/dashboard/.",
    "db": "Create and migrate the judgment store (SQLite by default, any SQLAlchemy URL).",
    "demo": "Run the whole loop on a local platform with a simulated crowd, then characterize.",
    "expire": "Expire every HIT of STUDY now (no new workers can start), then sync so that "
    "everything already submitted is in the store.",
    "export": "Write STUDY's judgments to a file: the long table (item, worker, value, timings, "
    "...) or crowd-kit's task, worker, label columns, optionally with every platform id "
    "replaced by a keyed pseudonym so that a shared data set carries none.",
    "import": "Bring data from elsewhere: a published dataset, MTurk batch results, a Prolific "
    "export.",
    "launch": "Post SPEC's study: freeze the instrument, plan the HITs, show the cost, then post.",
    "pause": "Pause STUDY: nobody new can start it until `harness resume STUDY`; work under "
    "way is finished and submitted as usual.",
    "plan": "How many raters per item SPEC's study needs to reach a target precision, and "
    "what that costs, from a pilot's disagreement.",
    "preview": "Serve one HIT of SPEC locally as a worker sees it, or write its page to a file.",
    "resume": "Resume a paused STUDY: new workers can start it again.",
    "review": "Review STUDY: block, reject (with feedback) and replace as screening decided, "
    "then approve every other submitted assignment.",
    "screen": "Score every worker on the screening heuristics H1-H13 (and radical/centrist).",
    "serve": "Serve the task pages of every launched study with external hosting (at "
    "/hit/<study>-<index>) and store what workers submit, screening each submission live and "
    "carrying out what screening decides.",
    "simulate-workers": "Let a simulated crowd find, accept, answer and submit STUDY's HITs "
    "through the local MTurk service's worker side, as people would (external pages through "
    "the task server, which must be running).",
    "status": "Show STUDY's HITs and assignments by status, judgments per item against the "
    "target, and money committed, spent and left in the budget (from the store; run sync "
    "first).",
    "sync": "Pull STUDY's assignments from the platform (all pages) and store what is new.",
    "validate": "Check task specs; print items, HITs, judgments, cost and the instrument hash "
    "of each.",
}
"""Each command's first sentence, so that `harness --help` lists the commands without
importing them (a test keeps these equal to the commands' own docstrings); a command missing
here is imported to find its help."""

for _local in local_commands():  # each platform's local service, as its capabilities name it
    COMMANDS[_local.name] = _local.command
    SUMMARIES[_local.name] = _local.summary


class HarnessGroup(click.Group):
    """A click group that loads commands lazily and turns harness errors into exit code 1."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The command list of ``--help``, from `SUMMARIES` (no command module imported)."""
        limit = formatter.width - 6 - max(len(name) for name in COMMANDS)
        rows = []
        for name in self.list_commands(ctx):
            summary = SUMMARIES.get(name)
            if summary is None:
                command = self.get_command(ctx, name)
                summary = command.get_short_help_str(limit) if command else ""
            else:
                summary = click.Command(name, help=summary).get_short_help_str(limit)
            rows.append((name, summary))
        with formatter.section("Commands"):
            formatter.write_dl(rows)

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
                click.echo(mask_secrets(str(problem)), err=True)
            count = len(exc.problems)
            click.echo(f"{count} problem{'s' if count != 1 else ''} found.", err=True)
            ctx.exit(1)
        except HarnessError as exc:
            click.echo(f"Error: {mask_secrets(str(exc))}", err=True)
            ctx.exit(1)
        except Exception as exc:
            message = _store_problem(ctx, exc)
            if message is None:
                raise
            click.echo(f"Error: {mask_secrets(message)}", err=True)
            ctx.exit(1)


def _store_problem(ctx: click.Context, exc: Exception) -> str | None:
    """What a database error means for the person (the one store-error handler of the CLI):
    a store never upgraded, one that cannot be reached or opened; None for anything else."""
    if "sqlalchemy" not in sys.modules:  # no store was used (e.g. --help): nothing to explain
        return None
    import sqlalchemy as sa

    if not isinstance(exc, sa.exc.SQLAlchemyError):
        return None
    from harness.commands.options import DB_META
    from harness.store.database import database_url, describe_error

    return describe_error(exc, database_url(ctx.meta.get(DB_META)))


@click.group(cls=HarnessGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "-V", "--version", prog_name="harness")
def main() -> None:
    """harness: crowdsourced benchmarks as measuring instruments.

    Describe a study in a YAML task spec, launch it, collect and screen judgments, and
    characterize the result against the original instrument.
    """
