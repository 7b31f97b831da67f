"""One worker's answer to one showing of one item: what the task page collects, the platform
returns, and the store keeps. Shared by render (reading answers), web and store (writing them).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime


@dataclass(frozen=True)
class Answer:
    """A worker's answer to one showing of one item, with when it was shown and answered."""

    item_key: str
    position: int
    value: float | None
    skipped: bool = False
    shown_at: datetime | None = None
    answered_at: datetime | None = None

    @property
    def seconds(self) -> float | None:
        if self.shown_at is None or self.answered_at is None:
            return None
        return (self.answered_at - self.shown_at).total_seconds()
