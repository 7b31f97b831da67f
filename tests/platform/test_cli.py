"""`harness mturk-local` is registered and documents its options."""

from __future__ import annotations

from click.testing import CliRunner

from harness.cli import main


def test_mturk_local_command_is_listed_with_its_options():
    result = CliRunner().invoke(main, ["mturk-local", "--help"])
    assert result.exit_code == 0, result.output
    for option in ("--host", "--port", "--db", "--balance", "--throttle-share", "--latency-ms"):
        assert option in result.output


def test_bad_balance_is_a_usage_error():
    result = CliRunner().invoke(main, ["mturk-local", "--balance", "lots"])
    assert result.exit_code == 2
    assert "expected an amount such as 10000.00, got 'lots'" in result.output


def test_bad_fault_share_is_reported(tmp_path):
    result = CliRunner().invoke(
        main, ["mturk-local", "--db", str(tmp_path / "m.sqlite"), "--throttle-share", "2"]
    )
    assert result.exit_code == 1
    assert "throttle_share must be between 0 and 1, got 2.0" in result.output
