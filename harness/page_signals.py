"""What a task page notices about how each item was answered: the page signals.

Collected openly (the page says so, docs/task-pages.md "Page signals"), nothing that identifies
a person and no keystroke contents: per showing, the time the item was on screen with the
page visible, how often the page was hidden or lost focus, paste events, whether the answer
was given with a pointer, the keyboard, both or neither, and whether it was given while the
page was hidden (a person answers the page they see; a script fills a background tab).
Screening reads them (H12, `harness.screening.page`); the export carries them.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class InputKind(StrEnum):
    """How the worker gave an item's answer."""

    POINTER = "pointer"  # mouse, touch or pen
    KEYBOARD = "keyboard"
    BOTH = "both"
    NONE = "none"  # the answer changed with neither: a script, or the browser's autofill


@dataclass(frozen=True)
class PageSignals:
    """One showing's page signals (see the module docstring)."""

    visible_seconds: float  # the item on screen with the page visible
    hidden_seconds: float  # the item current while the page was hidden
    hides: int  # times the page was hidden (another tab, minimised) on this item
    blurs: int  # times the window lost focus on this item
    pastes: int  # paste events on this item
    input_kind: InputKind
    answered_hidden: bool


SIGNAL_COLUMNS = (
    "visible_seconds",
    "hidden_seconds",
    "hides",
    "blurs",
    "pastes",
    "input_kind",
    "answered_hidden",
)
"""The judgment columns (store and long table) that hold a showing's signals."""
