"""One worker's answer to one showing of one item: what the task page collects, the platform
returns, and the store keeps. Shared by render (reading answers), web and store (writing them).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from harness.i18n import N_, _, format_time
from harness.page_signals import PageSignals


@dataclass(frozen=True)
class Answer:
    """A worker's answer to one showing of one item, with when it was shown and answered."""

    item_key: str
    position: int
    value: float | None
    skipped: bool = False
    shown_at: datetime | None = None
    answered_at: datetime | None = None
    signals: PageSignals | None = None  # what the page noticed (None: an older page)

    @property
    def seconds(self) -> float | None:
        if self.shown_at is None or self.answered_at is None:
            return None
        return (self.answered_at - self.shown_at).total_seconds()


OUTSIDE_SHOWN = N_(
    "answer {n}: shown at {when} UTC, outside the time this task was open ({earliest} to "
    "{latest}); is this computer's clock right?"
)
OUTSIDE_ANSWERED = N_(
    "answer {n}: answered at {when} UTC, outside the time this task was open ({earliest} to "
    "{latest}); is this computer's clock right?"
)


def times_outside(
    answers: Sequence[Answer], opened: datetime, now: datetime, skew: timedelta
) -> list[str]:
    """What is wrong with the answers' times for work that could start no earlier than
    ``opened`` (the HIT posted, the place reserved) and was posted at ``now``: each time must
    lie between them, give or take ``skew`` (a browser's clock may be off)."""
    earliest, latest = opened - skew, now + skew
    problems = []
    for a in answers:
        for said, when in ((OUTSIDE_SHOWN, a.shown_at), (OUTSIDE_ANSWERED, a.answered_at)):
            if when is not None and not earliest <= when <= latest:
                problems.append(
                    _(said).format(
                        n=a.position + 1,
                        when=format_time(when),
                        earliest=format_time(earliest),
                        latest=format_time(latest),
                    )
                )
    return problems
