"""The page signals' form field, both ways: ``signal-p`` for the showing at position ``p``.

Seven comma-separated parts, in this order: milliseconds the item was on screen with the page
visible, milliseconds it was current while the page was hidden, times the page was hidden,
times the window lost focus, paste events (whole numbers), how the answer was given
(``pointer``, ``keyboard``, ``both``, ``none``) and ``1`` when it was given while the page was
hidden, else ``0``: ``5320,0,0,1,0,pointer,0``. Workers are strangers: every part is checked
(numbers of ASCII digits, at most a day or 10,000 events), and a field that is not readable is
a problem naming the answer, as an unreadable answer is. A page that sends no signal (an older
page) leaves the showing's signals unknown.
"""

from __future__ import annotations

from harness.i18n import _
from harness.page_signals import InputKind, PageSignals

DAY_MS = 86_400_000
MAX_EVENTS = 10_000
_KINDS = ", ".join(k.value for k in InputKind)


def encode_signals(signals: PageSignals) -> str:
    """The ``signal-p`` field of a showing's signals."""
    return ",".join(
        [
            str(round(signals.visible_seconds * 1000)),
            str(round(signals.hidden_seconds * 1000)),
            str(signals.hides),
            str(signals.blurs),
            str(signals.pastes),
            signals.input_kind.value,
            "1" if signals.answered_hidden else "0",
        ]
    )


def read_signals(text: str, where: str, problems: list[str]) -> PageSignals | None:
    """The signals of a ``signal-p`` field (None when the page sent none); what is wrong with
    it goes to ``problems``, naming ``where`` (the answer)."""
    if not text:
        return None
    parts = text.split(",")
    if len(parts) != 7:
        problems.append(
            _("{where} (signals): {text} is not 7 comma-separated parts").format(
                where=where, text=repr(text[:60])
            )
        )
        return None
    numbers = [
        _whole(p, limit)
        for p, limit in zip(parts[:5], (DAY_MS, DAY_MS, *[MAX_EVENTS] * 3), strict=True)
    ]
    bad = [parts[i] for i, n in enumerate(numbers) if n is None]
    if bad:
        problems.append(
            _(
                "{where} (signals): {text} is not a whole number of milliseconds (at most a "
                "day) or events (at most 10,000)"
            ).format(where=where, text=repr(bad[0][:20]))
        )
    try:
        kind = InputKind(parts[5])
    except ValueError:
        problems.append(
            _("{where} (signals): input {text} is not one of {kinds}").format(
                where=where, text=repr(parts[5][:20]), kinds=_KINDS
            )
        )
        return None
    if parts[6] not in ("0", "1"):
        problems.append(
            _("{where} (signals): answered while hidden {text} is not 0 or 1").format(
                where=where, text=repr(parts[6][:20])
            )
        )
        return None
    if bad:
        return None
    visible, hidden, hides, blurs, pastes = (int(n) for n in numbers if n is not None)
    return PageSignals(visible / 1000, hidden / 1000, hides, blurs, pastes, kind, parts[6] == "1")


def _whole(text: str, limit: int) -> int | None:
    if not (text.isascii() and text.isdigit()) or len(text) > 9:
        return None
    value = int(text)
    return value if value <= limit else None
