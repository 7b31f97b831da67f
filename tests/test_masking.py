"""Secrets are masked wherever harness prints or logs them (issue 21, hole 4)."""

from __future__ import annotations

import logging

import pytest
from click.testing import CliRunner

from harness.cli import main
from harness.masking import MaskSecrets, mask_secrets

PASSWORD = "S3cretPW"
PG = f"postgresql://postgres:{PASSWORD}@127.0.0.1:9/x"


@pytest.mark.parametrize(
    ("text", "masked"),
    [
        (PG, "postgresql://postgres:***@127.0.0.1:9/x"),
        ("postgresql+psycopg://u:p%40ss@db/x", "postgresql+psycopg://u:***@db/x"),
        ("see http://user:pw@host:80/path", "see http://user:***@host:80/path"),
        ("key AKIAIOSFODNN7EXAMPLE in use", "key AKIAIOSF*** in use"),
        ("aws_secret_access_key=wJalrXUtnFEMI/K7MDENG", "aws_secret_access_key=***"),
        ('"SecretAccessKey": "wJalrXUtnFEMI"', '"SecretAccessKey": "***"'),
        ("Authorization: Token abcdefghijklmnop", "Authorization: Token ***"),
        ("PROLIFIC token=abc123def", "PROLIFIC token=***"),
        ("password: hunter2", "password: ***"),
    ],
)
def test_secrets_are_masked_in_text(text, masked):
    assert mask_secrets(text) == masked


def test_text_without_secrets_is_unchanged():
    text = "study words on local: 3 HITs at http://127.0.0.1:5000/hit/words-000 (key w1)"
    assert mask_secrets(text) == text


def test_a_logged_secret_is_masked(caplog):
    logger = logging.getLogger("harness.test-masking")
    logger.addFilter(MaskSecrets())
    with caplog.at_level(logging.INFO, logger="harness.test-masking"):
        logger.info("store %s unreachable", PG)
    assert PASSWORD not in caplog.text and "postgres:***@" in caplog.text


@pytest.mark.parametrize(
    "args",
    [
        ["status", "S", "--db", PG],
        ["sync", "S", "--db", PG],
        ["db", "upgrade", "--db", PG],
        ["db", "current", "--db", PG],
    ],
)
def test_commands_never_print_the_stores_password(args):
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 1
    assert PASSWORD not in result.output
    assert "Error:" in result.output


def test_serve_prints_the_store_without_its_password(monkeypatch):
    import harness.web.server

    monkeypatch.setattr(harness.web.server, "run_gunicorn", lambda *a, **k: None)  # serve nothing
    # serve reads the store before serving: the unreachable one is named, masked
    result = CliRunner().invoke(main, ["serve", "--db", PG, "--no-screening"])
    assert result.exit_code == 1, result.output
    assert PASSWORD not in result.output
    assert "postgresql+psycopg://postgres:***@127.0.0.1:9/x: cannot connect" in result.output


def test_serve_prints_a_reachable_store_without_its_password(monkeypatch, database_url):
    import harness.web.server

    if not database_url.startswith("postgresql"):
        pytest.skip("a password is a server store's")
    monkeypatch.setattr(harness.web.server, "run_gunicorn", lambda *a, **k: None)  # serve nothing
    with_password = database_url.replace("postgres@", f"postgres:{PASSWORD}@", 1)
    assert PASSWORD in with_password  # the local server trusts loopback: any password does
    result = CliRunner().invoke(main, ["serve", "--db", with_password, "--no-screening"])
    assert result.exit_code == 0, result.output
    assert PASSWORD not in result.output
    assert "(store postgresql+psycopg://postgres:***@127.0.0.1" in result.output
