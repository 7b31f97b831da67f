"""Which language the task server speaks to a participant (`harness.i18n`).

Every request starts in the best of the browser's languages (its ``Accept-Language``) that
harness has a catalog of, so a page shown before the study is known (a bad link, an unknown
HIT) is in a language the participant reads; once a view knows the study, it speaks the
study's ``language`` instead. The researcher's dashboard translates nothing.
"""

from __future__ import annotations

from flask import request
from sqlmodel import Session

from harness.i18n import DEFAULT, languages, use_language
from harness.store.posted import KeptStudy
from harness.web.state import web_state


def speak_browsers_language() -> None:
    """Speak the browser's best language (a ``before_request`` hook)."""
    use_language(request.accept_languages.best_match(languages(), default=DEFAULT) or DEFAULT)


def speak_studys_language(session: Session, study: KeptStudy) -> None:
    """Speak ``study``'s language from now on in this request."""
    use_language(web_state().instrument(session, study.instrument_id).spec.language)
