"""Participant pages in other languages: catalogs, direction and numbers (`languages`)."""

from harness.i18n.languages import (
    DEFAULT,
    N_,
    _,
    catalog_file,
    current_language,
    direction,
    format_number,
    format_time,
    gettext,
    languages,
    ngettext,
    speaking,
    translations,
    use_language,
)

__all__ = [
    "DEFAULT",
    "N_",
    "_",
    "catalog_file",
    "current_language",
    "direction",
    "format_number",
    "format_time",
    "gettext",
    "languages",
    "ngettext",
    "speaking",
    "translations",
    "use_language",
]
