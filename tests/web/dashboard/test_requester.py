"""What researchers missed from the platforms' requester pages: the auto-approval countdown,
the effective hourly pay, returned and timed-out counts and a budget alert, computed from
times and amounts (checked against hand computations) and shown on the study page."""

from __future__ import annotations

import dataclasses
import re
from datetime import timedelta
from decimal import Decimal

import pytest
from sqlmodel import col, select

from harness.platform.registry import platform_named
from harness.providers.link.platform import LINK
from harness.store import make_engine, session_scope
from harness.store.models import Assignment, AssignmentStatus
from harness.web.dashboard.requester import auto_approval, budget_alert, hourly_pay
from tests.clock import minutes_ago
from tests.web.dashboard.stored import (
    PER_HIT,
    SECONDS,
    dashboard_client,
    stored_study,
    study_url,
    text_of,
)

NOW = minutes_ago(0)


def test_auto_approval_counts_down_from_the_oldest_submission_awaiting_review():
    day = timedelta(days=1)
    submitted = [NOW - timedelta(hours=h) for h in (30, 20, 2)]
    due = auto_approval(submitted, day + timedelta(hours=8), NOW)
    # 32 h after each: the oldest is due in 2 h; it and the next (12 h) within a day, not 30 h
    assert due is not None
    assert (due.next_in, due.within_day) == (timedelta(hours=2), 2)
    late = auto_approval([NOW - timedelta(days=3)], day, NOW)
    assert late is not None and late.next_in == timedelta(0)  # overdue: due now, never negative
    assert auto_approval([], day, NOW) is None


def test_hourly_pay_is_the_reward_over_the_median_time_on_task():
    # median of 30, 40 and 600 s is 40 s: $0.10 per 40 s is $9.00 an hour
    assert hourly_pay([30.0, 600.0, 40.0], Decimal("0.10")) == Decimal("9.00")
    assert hourly_pay([45.0, 55.0], Decimal("0.25")) == Decimal("18.00")  # median 50 s
    assert hourly_pay([], Decimal("0.10")) is None
    assert hourly_pay([0.0], Decimal("0.10")) is None  # an untimed assignment is no time


def test_the_budget_alert_comes_at_eighty_percent_of_the_budget_committed():
    assert not budget_alert(Decimal("7.99"), Decimal("10.00"))
    assert budget_alert(Decimal("8.00"), Decimal("10.00"))
    assert budget_alert(Decimal("12.00"), Decimal("10.00"))
    assert not budget_alert(Decimal("100.00"), None)


def study_page(tmp_path, database_url, **extra: str) -> str:
    study = stored_study(tmp_path, 12, database_url, extra)
    engine = make_engine(study.db)
    try:
        with session_scope(engine) as session:
            rows = session.exec(select(Assignment).order_by(col(Assignment.id))).all()
            rows[0].status = AssignmentStatus.RETURNED
            for row in rows[1:3]:
                row.status = AssignmentStatus.ABANDONED
    finally:
        engine.dispose()
    client, _ = dashboard_client(study.db)
    try:
        return text_of(client.get(study_url()).get_data(as_text=True))
    finally:
        client.application.extensions["harness.web.dashboard"].close()


def test_the_study_page_shows_pay_per_hour_returns_time_outs_and_no_countdown_on_a_link(
    tmp_path, database_url
):
    page = study_page(tmp_path, database_url)
    on_task = PER_HIT * SECONDS  # the factory's time from accepting to submitting
    per_hour = Decimal("0.10") * 3600 / Decimal(str(on_task))
    assert f"effective pay ${per_hour:.2f} per hour the reward $0.10" in page
    assert f"at the median time on task, 0 min {on_task:02.0f} s" in page
    assert "returned 1 , timed out 2" in page
    assert "auto-approval" not in page  # a study link never approves by itself
    assert "of the budget" not in page  # no budget, no alert


def test_where_the_platform_auto_approves_the_page_counts_down(tmp_path, database_url, monkeypatch):
    auto = dataclasses.replace(LINK.capabilities, auto_approves=True)
    monkeypatch.setattr(LINK, "capabilities", auto)
    page = study_page(tmp_path, database_url)
    # the spec's auto_approval_delay is 1 day; the oldest of the 9 awaiting review was
    # submitted 14 minutes ago (the factory: one a minute, from 17 minutes ago)
    countdown = r"auto-approval in 23 h (\d\d) min the oldest awaiting review; 9 within a day"
    found = re.search(countdown, page)
    assert found and 44 <= int(found[1]) <= 46, page[:3000]


@pytest.mark.parametrize(("budget", "alert"), [("'1.40'", True), ("'2.00'", False)])
def test_the_page_warns_once_the_committed_money_passes_eighty_percent_of_the_budget(
    tmp_path, database_url, budget, alert
):
    page = study_page(tmp_path, database_url, budget=budget)
    # 4 HITs x 3 assignments x $0.10 on a study link (no fees): $1.20 committed
    said = "Committed $1.20, 86% of the budget $1.40: $0.20 left."
    assert (said in page) is alert


def test_a_platform_approving_after_its_own_window_counts_down_from_it(
    tmp_path, database_url, monkeypatch
):
    auto = dataclasses.replace(LINK.capabilities, auto_approval_window=timedelta(days=21))
    monkeypatch.setattr(LINK, "capabilities", auto)
    page = study_page(tmp_path, database_url)
    # 21 days, not the spec's 1 day; the oldest of the 9 awaiting review was submitted 14
    # minutes ago: 20 days 23 h 46 min to go; none within a day
    assert "auto-approval in 20 d 23 h the oldest awaiting review; 0 within a day" in page
    assert "approves what is not decided 21 d 00 h after it was submitted" in page


def test_prolific_approves_what_nobody_decided_21_days_after_submission():
    # docs.prolific.com, submissions guide: "Submissions that are awaiting review are
    # automatically approved after 21 days"
    assert platform_named("prolific").capabilities.auto_approval_window == timedelta(days=21)
