"""Nothing is posted unless it is affordable and confirmed: budget, balance, production, dry run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.errors import LaunchRefused
from harness.platform.launch_plan import check_confirmation
from tests.platform.factories import harness_cli, launch_args, small_spec

# 4 HITs x 2 assignments x ($0.10 + $0.02 fee) = $0.96
COST = "0.96"


def launch(spec: Path, mturk, db: str, *extra: str, input: str | None = None):
    return harness_cli(*launch_args(spec, mturk.url, db, *extra), input=input)


def platform_hits(client) -> int:
    return len(client.list_hits(MaxResults=100)["HITs"])


def test_a_study_over_the_specs_budget_is_refused_before_anything_is_posted(
    tmp_path, mturk, client
):
    spec = small_spec(tmp_path, budget="'0.95'")
    db = tmp_path / "harness.db"
    result = launch(spec, mturk, f"sqlite:///{db}")
    assert result.exit_code == 1
    assert (
        f"Error: the study costs ${COST} (rewards and fees), more than the spec's budget $0.95; "
        "raise the budget, or plan fewer HITs or raters"
    ) in result.output
    assert platform_hits(client) == 0
    assert not db.exists()


def test_the_command_lines_budget_is_a_second_limit(tmp_path, mturk, client):
    spec = small_spec(tmp_path, budget="'5.00'")
    result = launch(spec, mturk, f"sqlite:///{tmp_path / 'h.db'}", "--budget", "0.50")
    assert result.exit_code == 1
    assert f"costs ${COST} (rewards and fees), more than --budget $0.50" in result.output
    assert platform_hits(client) == 0


def test_a_balance_too_low_for_the_remaining_hits_is_refused(tmp_path, mturk, client):
    mturk.control("balance", {"balance": "0.95"})
    result = launch(small_spec(tmp_path), mturk, f"sqlite:///{tmp_path / 'h.db'}")
    assert result.exit_code == 1
    assert (
        f"the local account's balance is $0.95; posting the remaining HITs needs ${COST}; add "
        "funds (or lower the cost) and run the same command again"
    ) in result.output
    assert platform_hits(client) == 0


def test_production_with_yes_needs_the_cost_repeated_and_sends_nothing_otherwise(tmp_path):
    spec = small_spec(tmp_path)
    db = tmp_path / "h.db"
    missing = harness_cli("launch", str(spec), "--target", "production", "--yes", "--db", str(db))
    assert missing.exit_code == 1
    assert f"--yes on production needs the cost repeated: --confirm-cost {COST}" in missing.output
    wrong = harness_cli(
        "launch",
        str(spec),
        "--target",
        "production",
        "--yes",
        "--confirm-cost",
        "0.69",
        "--db",
        str(db),
    )
    assert wrong.exit_code == 1
    assert f"not confirmed: the cost is ${COST}, and '0.69' was given; nothing was posted" in (
        wrong.output
    )
    assert not db.exists()


def test_production_asks_for_the_cost_typed_back(tmp_path):
    spec = small_spec(tmp_path)
    result = harness_cli(
        "launch",
        str(spec),
        "--target",
        "production",
        "--db",
        str(tmp_path / "h.db"),
        input="1.00\n",
    )
    assert result.exit_code == 1
    assert f"Type the cost (${COST}) to confirm" in result.output
    assert "not confirmed" in result.output


def test_production_posts_once_the_cost_is_typed_back(tmp_path, mturk, client, monkeypatch):
    """The confirmed path, with the production target's client pointed at the local service."""
    from harness.providers.mturk import MTURK, MTurkProvider, make_client

    def local_as_production(target, endpoint_url):
        assert target == "production"
        return MTurkProvider(make_client("local", mturk.url), target)

    monkeypatch.setattr(MTURK, "connect", local_as_production)
    result = harness_cli(
        "launch",
        str(small_spec(tmp_path)),
        "--target",
        "production",
        "--db",
        str(tmp_path / "h.db"),
        input=f"{COST}\n",
    )
    assert result.exit_code == 0, result.output
    assert platform_hits(client) == 4


def test_a_spec_saying_production_launches_on_the_sandbox_unless_told(tmp_path):
    spec = small_spec(tmp_path, platform="{target: production}")
    result = harness_cli("launch", str(spec), "--dry-run")
    assert result.exit_code == 0, result.output
    assert "study small on sandbox" in result.output
    assert "needs --target production; launching on the sandbox" in result.output


@pytest.mark.parametrize("typed", ["0.96", "$0.96", " 0.960 "])
def test_the_confirmation_accepts_the_cost_however_written(typed):
    from decimal import Decimal

    check_confirmation(Decimal(COST), typed)


@pytest.mark.parametrize("typed", ["£0.96", "0.96 GBP", "0.96"])
def test_a_cost_in_pounds_is_confirmed_with_or_without_its_symbol(typed):
    from decimal import Decimal

    check_confirmation(Decimal(COST), typed, "GBP")


def test_a_refused_confirmation_names_the_cost_in_the_studys_currency():
    from decimal import Decimal

    with pytest.raises(LaunchRefused, match="the cost is £0.96, and 'yes' was given"):
        check_confirmation(Decimal(COST), "yes", "GBP")


def test_the_confirmation_refuses_anything_else():
    from decimal import Decimal

    with pytest.raises(LaunchRefused):
        check_confirmation(Decimal(COST), "yes")


def test_a_dry_run_prints_the_plan_and_every_request_and_sends_nothing(tmp_path, mturk, client):
    spec = small_spec(tmp_path, raters="9")
    db = tmp_path / "h.db"
    result = launch(spec, mturk, f"sqlite:///{db}", "--dry-run")
    assert result.exit_code == 0, result.output
    assert "HITs: 4 x 9 assignments = 36 assignments at $0.10 each" in result.output
    assert "MTurk cannot raise a HIT from fewer than 10 to 10 or more" in result.output
    requests = [json.loads(line) for line in result.output.splitlines() if line.startswith("{")]
    operations = [r["operation"] for r in requests]
    assert operations == [
        "GetAccountBalance",
        "CreateQualificationType",
        "CreateHITType",
        *["CreateHITWithHITType"] * 4,
    ]
    creates = [r["params"] for r in requests[3:]]
    assert [c["RequesterAnnotation"].split()[-1] for c in creates] == [f"hit={i}" for i in range(4)]
    assert len({c["UniqueRequestToken"] for c in creates}) == 4
    assert all(c["MaxAssignments"] == 9 and "<HTMLQuestion" in c["Question"] for c in creates)
    assert platform_hits(client) == 0
    assert not db.exists()


def test_an_approval_rate_without_enough_approved_hits_is_warned_about(tmp_path):
    spec = small_spec(tmp_path, qualifications="{min_approval_rate: 98}")
    result = harness_cli("launch", str(spec), "--target", "local", "--dry-run")
    assert "warning: min_approval_rate 98% without min_approved_hits >= 100" in result.output


def test_a_dry_run_is_the_same_requests_a_launch_sends(tmp_path, mturk, client):
    spec = small_spec(tmp_path)
    dry = launch(spec, mturk, f"sqlite:///{tmp_path / 'h.db'}", "--dry-run")
    planned = [
        json.loads(line)["params"]
        for line in dry.output.splitlines()
        if line.startswith('{"operation": "CreateHITWithHITType"')
    ]
    assert launch(spec, mturk, f"sqlite:///{tmp_path / 'h.db'}").exit_code == 0
    posted = {
        h["RequesterAnnotation"].split()[-1]: h for h in client.list_hits(MaxResults=100)["HITs"]
    }
    for params in planned:  # a new study's launch id is only known once it is created
        assert "launch=<launch id>" in params["RequesterAnnotation"]
        hit = posted[params["RequesterAnnotation"].split()[-1]]
        assert hit["Question"] == params["Question"]
        assert hit["MaxAssignments"] == params["MaxAssignments"]


def test_a_dry_run_of_a_started_launch_shows_its_real_tokens(tmp_path, mturk, client):
    spec = small_spec(tmp_path)
    db = f"sqlite:///{tmp_path / 'h.db'}"
    assert launch(spec, mturk, db).exit_code == 0
    dry = launch(spec, mturk, db, "--dry-run")
    planned = {
        json.loads(line)["params"]["UniqueRequestToken"]
        for line in dry.output.splitlines()
        if line.startswith('{"operation": "CreateHITWithHITType"')
    }
    assert len(planned) == 4 and not any("<" in token for token in planned)
    labels = {h["RequesterAnnotation"] for h in client.list_hits(MaxResults=100)["HITs"]}
    assert {
        json.loads(line)["params"]["RequesterAnnotation"]
        for line in dry.output.splitlines()
        if line.startswith('{"operation": "CreateHITWithHITType"')
    } == labels


def test_external_pages_must_be_https_off_the_local_service(tmp_path):
    spec = small_spec(tmp_path, hosting="external")
    result = harness_cli(
        "launch",
        str(spec),
        "--target",
        "sandbox",
        "--public-url",
        "http://tasks.example.org",
        "--dry-run",
    )
    assert result.exit_code == 1
    assert "MTurk shows external pages only over https" in result.output
    missing = harness_cli("launch", str(spec), "--target", "local", "--dry-run")
    assert "this spec's hosting is external: give --public-url" in missing.output


def test_a_changed_spec_does_not_resume_a_study_launched_with_other_settings(tmp_path, mturk):
    db = f"sqlite:///{tmp_path / 'h.db'}"
    assert launch(small_spec(tmp_path), mturk, db).exit_code == 0
    dearer = small_spec(tmp_path)
    dearer.write_text(dearer.read_text().replace("reward: '0.10'", "reward: '0.20'"))
    result = launch(dearer, mturk, db)
    assert result.exit_code == 1
    assert (
        "Error: study 'small' was launched with reward $0.10, 2 assignments per HIT and mturk "
        "hosting; this spec differs: give a changed study another study.name"
    ) in result.output
    resplit = small_spec(tmp_path, per_hit=4)
    result = launch(resplit, mturk, db)
    assert result.exit_code == 1
    assert "already has HIT 0 with other items: the plan changed" in result.output


@pytest.mark.parametrize(
    ("seconds", "said"),
    [(604800, "7 days"), (86400, "1 day"), (129600, "36 h"), (2700, "45 min"), (90, "90 s")],
)
def test_a_plans_durations_are_said_in_the_largest_whole_unit(seconds, said):
    from harness.platform.launch_plan import duration

    assert duration(seconds) == said
