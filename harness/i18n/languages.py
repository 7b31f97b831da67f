"""The languages participants' pages speak: translation catalogs, text direction, numbers.

Every participant-facing string is English in the code and the templates and is looked up in
the catalog of the page's language (``catalogs/<language>.po``, gettext's format). English
needs no catalog. A catalog is compiled in memory the first time its language is asked for, so
a bare checkout needs no build step, and what ships is the reviewable ``.po`` text.

Which language a string is translated into is the one in use (`speaking`): a page rendered for
a spec speaks its ``language``; the task server speaks the study's language once it knows the
study, and until then the best of the participant's browser's languages (`harness.web`).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import UTC, datetime
from decimal import Decimal, localcontext
from functools import cache
from gettext import GNUTranslations, NullTranslations
from io import BytesIO
from pathlib import Path

DEFAULT = "en"
"""The language of the code's own strings, and of a spec that names none."""
CATALOGS = Path(__file__).resolve().parent / "catalogs"
_CURRENT: ContextVar[str] = ContextVar("harness_language", default=DEFAULT)


@cache
def languages() -> tuple[str, ...]:
    """Every language the participant pages can speak: English and each shipped catalog (read
    once per process: the task server asks on every request)."""
    return (DEFAULT, *sorted(p.stem for p in CATALOGS.glob("*.po")))


def catalog_file(language: str) -> Path | None:
    """The catalog of ``language`` (None for English, which needs none)."""
    return None if language == DEFAULT else CATALOGS / f"{language}.po"


@cache
def translations(language: str) -> NullTranslations:
    """``language``'s catalog, compiled once per process; raises LookupError for a language
    harness has no catalog of."""
    path = catalog_file(language)
    if path is None:
        return NullTranslations()
    if not path.is_file():
        raise LookupError(f"no translation for language {language!r}; known: {languages()}")
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    with path.open("rb") as po:
        catalog = read_po(po, locale=language)
    compiled = BytesIO()
    write_mo(compiled, catalog)
    compiled.seek(0)
    return GNUTranslations(compiled)


@cache
def direction(language: str) -> str:
    """``rtl`` for a language written right to left (Arabic, Hebrew, Persian, Urdu), else
    ``ltr``: the ``dir`` of its pages."""
    from babel import Locale

    return "rtl" if Locale.parse(language).character_order == "right-to-left" else "ltr"


@contextmanager
def speaking(language: str) -> Iterator[None]:
    """Translate into ``language`` inside the block (this thread or task only)."""
    token = _CURRENT.set(language)
    try:
        yield
    finally:
        _CURRENT.reset(token)


def use_language(language: str) -> None:
    """Translate into ``language`` from now on in this context (a request's thread)."""
    _CURRENT.set(language)


def current_language() -> str:
    """The language strings are translated into here."""
    return _CURRENT.get()


def gettext(message: str) -> str:
    """``message`` in the current language (itself where the catalog lacks it)."""
    return translations(_CURRENT.get()).gettext(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    """The form of ``singular``/``plural`` for ``n`` in the current language."""
    return translations(_CURRENT.get()).ngettext(singular, plural, n)


_ = gettext


def N_(message: str) -> str:  # noqa: N802 - gettext's name for "translate later"
    """Mark ``message`` for the catalog without translating it (translate it where shown)."""
    return message


def format_number(
    value: float | int | Decimal, language: str | None = None, *, every_decimal: bool = False
) -> str:
    """``value`` as ``language`` writes numbers (default: the current language): ``7,5`` in
    German, ``7.5`` in English; no grouping, as a scale's values are not amounts. At most three
    decimals, or ``every_decimal`` (a participant's own answer, quoted back to them); a value
    that is not finite as Python writes it (``nan``, ``inf``)."""
    from babel.numbers import format_decimal

    if not math.isfinite(value):
        return f"{value:g}"
    locale = language or _CURRENT.get()
    number = Decimal(str(value)) if isinstance(value, float) else Decimal(value)
    with localcontext() as context:  # room for every digit a participant may type
        context.prec = max(context.prec, len(number.as_tuple().digits), number.adjusted()) + 8
        return format_decimal(
            number,
            format="#,##0.###",
            locale=locale,
            group_separator=False,
            decimal_quantization=not every_decimal,
        )


def format_time(when: datetime, language: str | None = None) -> str:
    """``when`` (in UTC) as ``language`` writes a date and time (default: the current language):
    ``Nov 28, 2026, 10:50:00 PM`` in English, ``28.11.2026, 22:50:00`` in German."""
    from babel.dates import format_datetime

    return format_datetime(when, "medium", tzinfo=UTC, locale=language or _CURRENT.get())
