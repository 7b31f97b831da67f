"""Pay Prolific accepts: its minimum hourly reward, in the workspace's currency, is an error at
validate and launch (naming the spec's line), the local service refuses to publish below it,
and a workspace in another currency than the spec's is refused before anything is created."""

from __future__ import annotations

import requests

from harness.platform.launch_plan import work_settings
from harness.providers.prolific.local_service import Settings, create_app
from harness.providers.prolific.platform import PROLIFIC
from harness.resources import project_task_specs
from harness.spec import load_spec
from harness.spec.arms import has_arms, load_arms
from tests.platform.factories import harness_cli, small_spec
from tests.providers.prolific.conftest import prolific_spec
from tests.providers.prolific.test_bad_input import study_body
from tests.serving import ServedApp

AUTH = {"Authorization": "Token local"}


def _line_of_reward(spec) -> int:
    lines = spec.read_text(encoding="utf-8").splitlines()
    return next(i for i, line in enumerate(lines, 1) if line.strip().startswith("reward:"))


def test_pay_below_the_hourly_minimum_is_an_error_naming_the_specs_line(tmp_path):
    # WS353 as first shipped: $0.75 for 45 minutes allowed, of which Prolific is told 15
    spec = small_spec(
        tmp_path, hosting="external", reward="0.75", duration="45m", platform="{name: prolific}"
    )
    checked = harness_cli("validate", str(spec))
    assert checked.exit_code != 0
    assert f"{spec}:{_line_of_reward(spec)}" in checked.output
    assert (
        "$0.75 for an estimated 15 min is $3.00 per hour, below Prolific's minimum of $8.00 "
        "per hour" in checked.output
    )
    launched = harness_cli(
        "launch", str(spec), "--target", "prolific-local", "--dry-run", "--public-url", "http://t"
    )
    assert launched.exit_code != 0 and "below Prolific's minimum" in launched.output


def test_the_minimum_is_the_workspace_currencys(tmp_path):
    pounds = small_spec(
        tmp_path,
        hosting="external",
        reward="1.10",
        duration="30m",
        platform="{name: prolific, currency: GBP}",
    )
    assert harness_cli("validate", str(pounds)).exit_code == 0  # £6.60 an hour: above £6.00
    dollars = small_spec(
        tmp_path, hosting="external", reward="1.10", duration="30m", platform="{name: prolific}"
    )
    checked = harness_cli("validate", str(dollars))
    assert checked.exit_code != 0 and "$6.60 per hour, below" in checked.output
    euros = small_spec(
        tmp_path, hosting="external", platform="{name: prolific, currency: EUR}", reward="5"
    )
    refused = harness_cli("validate", str(euros))
    assert refused.exit_code != 0
    assert "a Prolific workspace pays in GBP, USD, not EUR" in refused.output


def test_every_shipped_spec_pays_at_least_prolifics_minimum():
    specs = sorted(project_task_specs().glob("*.yaml"))
    assert specs
    for path in specs:
        loaded = load_arms(path).arms[0].loaded if has_arms(path) else load_spec(path)
        problems = PROLIFIC.problems(work_settings(loaded), loaded.spec.hosting)
        assert [p for p in problems if p[0] == "hit.reward"] == [], path


def test_the_local_service_refuses_to_publish_below_the_minimum(prolific):
    base = f"{prolific.url}/api/v1"
    cheap = requests.post(
        f"{base}/studies/", json=study_body(reward=50), headers=AUTH, timeout=5
    ).json()
    refused = requests.post(
        f"{base}/studies/{cheap['id']}/transition/",
        json={"action": "PUBLISH"},
        headers=AUTH,
        timeout=5,
    )
    assert refused.status_code == 400
    assert refused.json()["error"]["detail"]["reward"] == [
        "The reward of 50 (USD minor units) for 5 minutes is 6.00 USD per hour, below the "
        "minimum of 8.00 USD per hour."
    ]
    status = requests.get(f"{base}/studies/{cheap['id']}/", headers=AUTH, timeout=5).json()
    assert status["status"] == "UNPUBLISHED"


def test_a_workspace_in_another_currency_is_refused_before_anything_is_created(tmp_path):
    app = create_app(Settings(db_path=tmp_path / "gbp.sqlite", currency="GBP"))
    with ServedApp(app) as served:
        spec = prolific_spec(tmp_path)  # dollars
        db = f"sqlite:///{tmp_path / 'h.db'}"
        launched = harness_cli(
            *("launch", str(spec), "--target", "prolific-local", "--endpoint-url", served.url),
            *("--db", db, "--public-url", "http://tasks.test"),
        )
        assert launched.exit_code != 0
        assert (
            "the Prolific workspace pays in GBP, but the spec's amounts are in USD: set "
            "platform.currency: GBP in the spec" in launched.output
        )
        for listed in ("studies/", "participant-groups/"):
            found = requests.get(f"{served.url}/api/v1/{listed}", headers=AUTH, timeout=5)
            assert found.json()["meta"] == {"count": 0}
    app.extensions["prolific_local"].close()


def test_a_study_in_pounds_is_priced_and_paid_in_pounds(tmp_path):
    app = create_app(Settings(db_path=tmp_path / "gbp.sqlite", currency="GBP"))
    with ServedApp(app) as served:
        spec = prolific_spec(tmp_path, platform="{currency: GBP}")
        db = f"sqlite:///{tmp_path / 'h.db'}"
        launched = harness_cli(
            *("launch", str(spec), "--target", "prolific-local", "--endpoint-url", served.url),
            *("--db", db, "--public-url", "http://tasks.test"),
        )
        assert launched.exit_code == 0, launched.output
        assert "8 assignments at £0.15 each" in launched.output
        assert "cost: £1.68 = £1.20 rewards + £0.48 fees" in launched.output
        assert (
            "balance on prolific-local: £10,000.00 (a local service's play money); still to post: "
            "£1.68" in launched.output
        )
        assert "Prolific's own price of the 8 places: £1.68 (harness's: £1.68)" in (launched.output)
        [study] = requests.get(f"{served.url}/api/v1/studies/", headers=AUTH, timeout=5).json()[
            "results"
        ]
        assert (study["reward"], study["currency_code"]) == (15, "GBP")  # pence
    app.extensions["prolific_local"].close()
