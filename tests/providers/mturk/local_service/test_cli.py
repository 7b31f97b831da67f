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


def test_serving_options_are_listed():
    result = CliRunner().invoke(main, ["mturk-local", "--help"])
    for option in (
        "--threads",
        "--timeout",
        "--graceful-timeout",
        "--keepalive",
        "--sqs-endpoint-url",
    ):
        assert option in result.output


def test_an_sqs_endpoint_off_this_machine_is_refused_before_starting(tmp_path):
    result = CliRunner().invoke(
        main,
        [
            "mturk-local",
            "--db",
            str(tmp_path / "m.sqlite"),
            "--sqs-endpoint-url",
            "https://sqs.us-east-1.amazonaws.com",
        ],
    )
    assert result.exit_code == 1
    assert (
        "--sqs-endpoint-url: the SQS endpoint 'https://sqs.us-east-1.amazonaws.com' is not on "
        "this machine"
    ) in result.output
    assert not (tmp_path / "m.sqlite").exists()


def test_a_database_that_cannot_be_opened_is_a_clear_message(tmp_path):
    not_a_database = tmp_path / "m.sqlite"
    not_a_database.write_bytes(b"this is not SQLite" * 100)
    result = CliRunner().invoke(main, ["mturk-local", "--db", str(not_a_database)])
    assert result.exit_code == 1
    assert f"--db {not_a_database}: cannot open the service's database:" in result.output
    assert "Traceback" not in result.output


def test_threads_must_be_positive():
    result = CliRunner().invoke(main, ["mturk-local", "--threads", "0"])
    assert result.exit_code == 2
    assert "Invalid value for '--threads'" in result.output
