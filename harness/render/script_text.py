"""The words the task page's script shows (`templates/_task.js`), in the current language.

The script fills in each ``{name}`` itself; numbers it writes as the page's language does.
"""

from __future__ import annotations

from harness.i18n import _


def script_text() -> dict[str, str]:
    """Every message of the page's script, by the key the script asks for."""
    return {
        "item_of": _("Item {n} of {total}"),
        "item": _("Item {n}"),
        "items": _("{n} items"),
        "answered": _("{n} answered"),
        "answer_gate": _("Please answer the first question for this item."),
        "not_allowed": _("\u201c{typed}\u201d is not allowed."),
        "answer_item": _("Please answer this item before going on."),
        "at": _("{value}, {label}"),
        "between": _("{value}, between {low} and {high}"),
        "above": _("{value}, above {low}"),
        "below": _("{value}, below {high}"),
        "on_scale": _("{value} on a scale from {min} to {max}"),
        "no_answer": _("no answer yet"),
        "not_submitted": _("Your answers could not be submitted yet:"),
        "sending": _("Sending\u2026"),
        "submit": _("Submit answers"),
        "outside_mturk": _("This page was opened outside MTurk: there is nowhere to submit to."),
        "server_answered": _("The server answered {status}; please try again."),
        "try_again": _("Please try again."),
        "completing": _("Completing the HIT on MTurk\u2026"),
        "close": _("You can close this page."),
        "unreachable": _(
            "The server could not be reached. Check your connection and press Submit again; "
            "nothing is lost."
        ),
        "withdraw_unreachable": _(
            "The server could not be reached. Check your connection and try again."
        ),
    }
