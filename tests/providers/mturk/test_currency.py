"""MTurk pays and charges in US dollars only: a spec in another currency is refused before
any money is spent, naming the field."""

from __future__ import annotations

from tests.platform.factories import harness_cli, small_spec


def test_a_spec_in_pounds_is_refused_for_mturk_at_validate(tmp_path):
    spec = small_spec(tmp_path, platform="{name: mturk, currency: GBP}")
    checked = harness_cli("validate", str(spec))
    assert checked.exit_code != 0
    assert f"{spec}:" in checked.output
    assert "platform.currency: MTurk pays in USD only, not GBP" in checked.output
