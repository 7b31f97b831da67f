"""A spec's ``language``: English unless named, one harness has a catalog of, part of the
instrument, and what its pages and the task server's refusals speak."""

from __future__ import annotations

import pytest

from harness.errors import SpecError
from harness.render.instrument import Instrument
from harness.render.pages import render_page
from harness.render.plan import plan_hits
from harness.spec import load_spec
from tests.factories import MINIMAL_ITEMS, MINIMAL_RATING_SPEC, write_spec


def _load(tmp_path, extra: str = ""):
    (tmp_path / "items.csv").write_text(MINIMAL_ITEMS)
    return load_spec(write_spec(tmp_path, MINIMAL_RATING_SPEC + extra))


def _page(loaded) -> str:
    return render_page(
        Instrument.from_loaded(loaded), plan_hits(loaded)[0], study_name="tiny", hosting="mturk"
    )


def test_a_spec_without_a_language_is_english_and_hashes_as_if_it_said_so(tmp_path):
    plain = _load(tmp_path)
    assert plain.spec.language == "en"
    assert _load(tmp_path, "language: en\n").instrument_hash == plain.instrument_hash
    assert '<html lang="en" dir="ltr">' in _page(plain)


def test_a_language_without_a_catalog_is_refused_at_its_line(tmp_path):
    (tmp_path / "items.csv").write_text(MINIMAL_ITEMS)
    with pytest.raises(SpecError) as caught:
        load_spec(write_spec(tmp_path, MINIMAL_RATING_SPEC + "language: xx\n"))
    assert [str(p) for p in caught.value.problems] == [
        f"{tmp_path / 'spec.yaml'}:18: language: no translation of the participant pages into "
        "'xx'; known: en, de, he"
    ]


def test_the_language_and_its_catalog_are_part_of_the_instrument(tmp_path):
    english = _load(tmp_path).instrument_hash
    german = _load(tmp_path, "language: de\n")
    assert german.instrument_hash != english
    assert "catalogs/de.po" in german.template_files


def test_a_german_page_speaks_german_and_writes_german_numbers(tmp_path):
    page = _page(_load(tmp_path, "language: de\nscale: {min: 0, max: 10, fractional: true}\n"))
    assert '<html lang="de" dir="ltr">' in page
    assert "Antworten absenden" in page and "Submit answers" not in page
    assert "Dezimalstellen sind erlaubt (z. B. 7,5)" in page
    assert '"decimal": ","' in page  # what the page's script writes a decimal point as


def test_a_hebrew_page_is_right_to_left(tmp_path):
    page = _page(_load(tmp_path, "language: he\n"))
    assert '<html lang="he" dir="rtl">' in page
    assert "שליחת התשובות" in page
