"""`harness --help` lists every command without importing any of them (start-up stays fast),
with each command's own first sentence."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest
from click.testing import CliRunner

from harness.cli import COMMANDS, SUMMARIES, main


def test_every_command_has_its_summary_and_it_is_the_commands_own():
    assert set(SUMMARIES) == set(COMMANDS)
    for name, target in COMMANDS.items():
        module, attribute = target.split(":")
        command = getattr(importlib.import_module(module), attribute)
        assert SUMMARIES[name] == command.get_short_help_str(limit=1000), name


def test_help_lists_the_commands_without_importing_them():
    code = (
        "import sys; from click.testing import CliRunner; from harness.cli import main;"
        "r = CliRunner().invoke(main, ['--help']); assert r.exit_code == 0, r.output;"
        "print(sorted(m for m in sys.modules if m.startswith('harness.commands.')"
        " or m in ('pandas', 'sqlalchemy', 'scipy', 'boto3')))"
    )
    imported = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert imported == "[]"
    result = CliRunner().invoke(main, ["--help"])
    assert result.exit_code == 0, result.exception
    listing = result.output
    assert [name for name in COMMANDS if name not in listing] == [], listing


def test_the_choices_spelled_out_for_a_fast_help_equal_the_stages_own():
    from harness.characterize.reproducibility import MIN_SHARED_ITEMS
    from harness.commands import options
    from harness.stats.alpha import LEVELS
    from harness.stats.bootstrap import METHODS

    assert options.LEVELS == LEVELS
    assert options.BOOTSTRAP_METHODS == METHODS
    assert options.MIN_SHARED_ITEMS == MIN_SHARED_ITEMS


@pytest.mark.parametrize("command", ["agreement", "characterize", "launch", "status", "sync"])
def test_a_commands_help_imports_no_statistics_and_no_database(command):
    code = (
        "import sys; from click.testing import CliRunner; from harness.cli import main;"
        f"r = CliRunner().invoke(main, [{command!r}, '--help']); assert r.exit_code == 0;"
        "heavy = ('pandas', 'scipy', 'matplotlib', 'sqlalchemy', 'boto3');"
        "print(sorted({m.split('.')[0] for m in sys.modules if m.split('.')[0] in heavy}))"
    )
    imported = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert imported == "[]"


def test_launch_help_names_every_platforms_targets():
    """Issue 39: it listed only MTurk's (local, sandbox, production)."""
    from harness.platform.registry import platforms

    result = CliRunner().invoke(main, ["launch", "--help"])
    assert result.exit_code == 0
    text = " ".join(result.output.split())
    for platform in platforms():
        assert f"{', '.join(platform.targets)} ({platform.label})" in text
    assert "a target with real money (production, prolific) must be given here" in text
