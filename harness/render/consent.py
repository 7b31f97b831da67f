"""A participant's consent as a task page posts it, read and checked.

A spec with a ``consent`` text shows it before the first item; the page posts, with the
answers, the hash of the text it showed (``consent``) and when the participant agreed
(``consentedAt``, milliseconds since the Unix epoch, the browser's clock, as every time the
page posts). Answers without a consent to this text are refused: the text a participant agreed
to is the one the study has, and the store keeps its hash and the time with the assignment.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timedelta

from harness.consent import Consent, consent_hash
from harness.i18n import _, format_time
from harness.render.answers import CONSENT_FIELDS, read_millis, write_millis

__all__ = ["CONSENT_FIELDS", "Consent", "consent_hash", "consent_of", "read_consent"]


def read_consent(
    fields: Iterable[tuple[str, str]],
    text: str | None,
    *,
    opened: datetime,
    now: datetime,
    skew: timedelta,
) -> Consent | None | list[str]:
    """The consent posted among ``fields`` for a study whose consent text is ``text`` (None:
    the study asks none, and a posted consent is ignored), or every problem with it: missing,
    to another text, or given outside the task's window (``opened`` to ``now``, give or take
    ``skew``)."""
    if text is None:
        return None
    posted = dict(fields)
    given, at = posted.get("consent", "").strip(), posted.get("consentedAt", "").strip()
    if not given:
        return [_("no consent was given: agree to the consent text before answering")]
    if given != consent_hash(text):
        return [_("the consent given is to another text than this study's: reload the page")]
    problems: list[str] = []
    when = read_millis(at, "consent (consentedAt)", problems)
    if when is None:
        return problems or [_("consent (consentedAt): the time it was given is missing")]
    if not opened - skew <= when <= now + skew:
        return [
            _("consent (consentedAt): given at {when} UTC, outside the task's time").format(
                when=format_time(when)
            )
        ]
    return Consent(given, when)


def consent_of(fields: Iterable[tuple[str, str]], asked: bool = True) -> Consent | None:
    """The consent among fields `read_consent` accepted (None: the study asks none, or they
    hold none: a quarantined submission's fields are read again when it is stored)."""
    posted = dict(fields)
    given = posted.get("consent", "").strip()
    when = read_millis(posted.get("consentedAt", "").strip(), "consent", [])
    if not asked or not given or when is None:
        return None
    return Consent(given, when)


def encode_consent(given: str, at: datetime) -> dict[str, str]:
    """The fields a page posts for a consent ``given`` (the text's hash) at ``at``, as
    `read_consent` reads them (what simulated workers and tests post)."""
    return {"consent": given, "consentedAt": write_millis(at)}
