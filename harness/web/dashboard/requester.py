"""What a platform's requester pages tell a researcher beside the work itself: when the
platform approves a submission nobody decided, what the reward comes to per hour of work,
and when the money committed passes a share of the budget.

Pure: times and amounts in, figures out; no database, no Flask.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal

BUDGET_ALERT_SHARE = Decimal("0.8")
"""The study page warns once the money committed reaches this share of the budget."""

DAY = timedelta(days=1)


@dataclass(frozen=True)
class AutoApproval:
    """The platform's approval of what nobody decided: the oldest submission awaiting review
    is approved in ``next_in`` (zero: due now), and ``within_day`` of them within a day."""

    delay: timedelta
    next_in: timedelta
    within_day: int


def auto_approval(
    submitted: Sequence[datetime], delay: timedelta, now: datetime
) -> AutoApproval | None:
    """When the platform approves the submissions awaiting review (submitted at
    ``submitted``) by itself, ``delay`` after each was submitted; None when none waits."""
    if not submitted:
        return None
    due = sorted(at + delay - now for at in submitted)
    return AutoApproval(
        delay=delay,
        next_in=max(due[0], timedelta(0)),
        within_day=sum(1 for left in due if left <= DAY),
    )


def hourly_pay(seconds_on_task: Sequence[float], reward: Decimal) -> Decimal | None:
    """The reward per hour at the median time on task (from accepting to submitting), to the
    cent; None before any assignment was timed."""
    timed = [s for s in seconds_on_task if s > 0]
    if not timed:
        return None
    median = Decimal(str(statistics.median(timed)))
    return (reward * 3600 / median).quantize(Decimal("0.01"))


def budget_alert(
    committed: Decimal, budget: Decimal | None, share: Decimal = BUDGET_ALERT_SHARE
) -> bool:
    """Whether the money committed has reached ``share`` of the budget (never without one)."""
    return budget is not None and budget > 0 and committed >= budget * share
