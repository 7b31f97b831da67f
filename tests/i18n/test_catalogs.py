"""The participant pages' translation catalogs: complete, faithful to their placeholders, and
what a spec's ``language`` and a browser's languages choose."""

from __future__ import annotations

import re
from decimal import Decimal
from pathlib import Path

import pytest
from babel.messages.extract import extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.pofile import read_po

from harness.i18n import _ as translate
from harness.i18n import direction, format_number, languages, speaking, translations
from harness.i18n.languages import CATALOGS
from harness.spec.study_types.pair_comparison import PAIR_CHOICES

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = [lang for lang in languages() if lang != "en"]


def _used_messages() -> set[str]:
    """Every msgid the templates and the code use, extracted as `babel.cfg` says."""
    with (ROOT / "babel.cfg").open() as config:
        method_map, options_map = parse_mapping_cfg(config)
    found = extract_from_dir(
        str(ROOT), method_map, options_map, keywords={"_": None, "N_": None, "ngettext": (1, 2)}
    )
    out: set[str] = set()
    for _file, _line, message, _comments, _context in found:
        out.update([message] if isinstance(message, str) else message)
    return out


def _catalog(language: str):
    with (CATALOGS / f"{language}.po").open("rb") as po:
        return read_po(po, locale=language)


def test_german_and_hebrew_ship():
    assert {"de", "he"} <= set(SHIPPED)


@pytest.mark.parametrize("language", SHIPPED)
def test_a_catalog_translates_every_message_the_pages_use(language):
    used = _used_messages()
    assert "Submit answers" in used and "Study paused" in used  # templates and code both read
    catalog = _catalog(language)
    missing = sorted(m for m in used if not (catalog.get(m) and catalog.get(m).string))
    fuzzy = sorted(m for m in used if catalog.get(m) and catalog.get(m).fuzzy)
    assert missing == [] and fuzzy == []


@pytest.mark.parametrize("language", SHIPPED)
def test_a_translation_keeps_every_placeholder_and_tag_of_its_message(language):
    wrong = []
    for message in _catalog(language):
        if not message.id:
            continue
        for pattern in (r"\{\w+\}", r"</?\w+>"):
            if sorted(re.findall(pattern, message.id)) != sorted(
                re.findall(pattern, message.string)
            ):
                wrong.append(message.id)
    assert wrong == []


def test_a_pair_comparisons_fixed_words_are_in_the_catalogs():
    with speaking("de"):
        shown = [translate(label) for _value, label in PAIR_CHOICES]
    assert shown == [
        "Die Wörter des ersten Paares sind einander ähnlicher",
        "Die Wörter des zweiten Paares sind einander ähnlicher",
        "Sie sind gleich ähnlich",
    ]


def test_english_needs_no_catalog_and_an_unknown_language_is_refused():
    assert translations("en").gettext("Submit answers") == "Submit answers"
    with pytest.raises(LookupError, match="no translation for language 'xx'"):
        translations("xx")


@pytest.mark.parametrize(
    ("language", "expected"),
    [("ar", "rtl"), ("he", "rtl"), ("fa", "rtl"), ("ur", "rtl"), ("de", "ltr"), ("en", "ltr")],
)
def test_right_to_left_languages_get_rtl_pages(language, expected):
    assert direction(language) == expected


def test_numbers_are_written_as_the_language_writes_them():
    # CLDR: German's decimal separator is a comma, English's and Hebrew's a point
    assert [format_number(7.5, lang) for lang in ("de", "en", "he")] == ["7,5", "7.5", "7.5"]
    assert format_number(12345, "de") == "12345"  # a scale's value, not an amount: no grouping


def test_a_number_longer_than_decimals_default_precision_is_written_not_an_error():
    # a participant may post any digits: quoting them back must not fail (it answered 500)
    typed = "9" * 40
    assert format_number(float(typed), "de") == "1" + "0" * 40
    assert format_number(Decimal(typed + ".125"), "en", every_decimal=True) == typed + ".125"
    assert format_number(Decimal(typed + ".125"), "de") == typed + ",125"
