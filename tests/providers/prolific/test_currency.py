"""A study in pounds on a GBP workspace of the local Prolific service: every amount a person
sees (status, the dashboard, a bonus's confirmation and result) is in pounds, and a bonus is
paid in pence.

Figures: 4 places at £0.15 cost £0.84 with Prolific's fees (£0.05 a third of £0.15, £0.01 VAT
on it, per place); a £0.50 bonus costs £0.70 (£0.17 fee, £0.03 VAT), `harness.providers
.prolific.pricing`."""

from __future__ import annotations

import requests

from tests.platform.factories import harness_cli
from tests.web.dashboard.factories import (
    STUDY,
    TOTAL,
    LivePlacesStudy,
    flashed,
    logged_in,
)

AUTH = {"Authorization": "Token local"}


def test_a_study_in_pounds_shows_pounds_and_pays_its_bonus_in_pence(tmp_path):
    live = LivePlacesStudy(tmp_path, "prolific-local", items=4, currency="GBP").start()
    try:
        [aid, *_] = live.crowd(4).submitted
        status = harness_cli("status", STUDY, "--db", live.db)
        assert "  money: committed £0.84, spent £0.00 (no budget)" in status.output.splitlines()

        http, token = logged_in(live.url)
        studies = http.get(f"{live.url}/dashboard/").text
        assert '<td class="num">£0.84</td><td class="num">£0.00</td>' in studies
        page = http.get(f"{live.url}/dashboard/study/{STUDY}").text
        assert (
            '<b id="fig-committed">£0.84</b>of which the platform\'s fees £0.24; spent £0.00'
        ) in page
        assert '£<input type="text" name="amount"' in page and "$" not in page

        bonus = {"csrf_token": token, "assignment": aid, "amount": "0.50", "reason": "thanks"}
        asked = http.post(f"{live.url}/dashboard/study/{STUDY}/bonus", data=bonus).text
        assert "Pay a £0.50 bonus to" in asked and "It costs <b>£0.70</b> in all" in asked
        assert "Committed after it: £1.54 (no budget set)." in asked
        total = TOTAL.search(asked)
        assert total
        paid = http.post(
            f"{live.url}/dashboard/study/{STUDY}/bonus",
            data=bonus | {"confirm_total": total.group(1)},
        )
        assert flashed(paid.text) == (
            f"Paid £0.50 to {aid}'s worker (£0.70 with the platform's fee)."
        )
        shown = requests.get(
            f"{live.endpoint}/api/v1/submissions/{aid}/", headers=AUTH, timeout=30
        ).json()
        assert shown["bonus_payments"] == [50]  # pence of the GBP workspace
        after = harness_cli("status", STUDY, "--db", live.db)
        assert "  money: committed £1.54, spent £0.70 (no budget)" in after.output.splitlines()
    finally:
        live.stop()
