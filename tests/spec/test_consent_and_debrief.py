"""A spec's consent and debrief: optional Markdown sections, part of the instrument when given,
and a spec without them hashes exactly as before they existed."""

from __future__ import annotations

import pytest
import yaml

from harness.errors import SpecError
from harness.spec import load_spec
from harness.spec.hashing import instrument_hash
from harness.spec.model import TaskSpec
from tests.factories import MINIMAL_ITEMS, MINIMAL_RATING_SPEC, write_spec

CONSENT = "consent: |\n  # Taking part\n  You may stop at any time.\n"
DEBRIEF = "debrief: We study how people judge similarity.\n"


def _loaded(tmp_path, text):
    (tmp_path / "items.csv").write_text(MINIMAL_ITEMS)
    return load_spec(write_spec(tmp_path, text))


def test_a_spec_may_give_a_consent_and_a_debrief_in_markdown(tmp_path):
    loaded = _loaded(tmp_path, MINIMAL_RATING_SPEC + CONSENT + DEBRIEF)
    assert loaded.spec.consent == "# Taking part\nYou may stop at any time.\n"
    assert loaded.spec.debrief == "We study how people judge similarity."


def test_a_spec_without_them_asks_no_consent_and_shows_no_debrief(tmp_path):
    loaded = _loaded(tmp_path, MINIMAL_RATING_SPEC)
    assert loaded.spec.consent is None and loaded.spec.debrief is None


@pytest.mark.parametrize(
    ("part", "reworded"),
    [(CONSENT, CONSENT.replace("any", "every")), (DEBRIEF, DEBRIEF.replace("study", "ask"))],
    ids=["consent", "debrief"],
)
def test_a_consent_or_debrief_is_part_of_the_instrument(tmp_path, part, reworded):
    plain = _loaded(tmp_path, MINIMAL_RATING_SPEC).instrument_hash
    given = _loaded(tmp_path, MINIMAL_RATING_SPEC + part).instrument_hash
    changed = _loaded(tmp_path, MINIMAL_RATING_SPEC + reworded).instrument_hash
    assert len({plain, given, changed}) == 3


def test_an_empty_consent_is_refused_naming_its_line(tmp_path):
    with pytest.raises(SpecError) as refused:
        _loaded(tmp_path, MINIMAL_RATING_SPEC + 'consent: ""\n')
    assert str(refused.value).endswith(
        "spec.yaml:18: consent: string should have at least 1 character (got '')"
    )


def test_a_spec_without_them_hashes_as_before_they_existed():
    """The hash of a fixed procedure, as harness computed it before specs had a consent or a
    debrief (commit 5f983eb): a spec that uses neither keeps its instrument hash."""
    spec = TaskSpec.model_validate(
        yaml.safe_load(
            """
study: {name: tiny}
type: rating
items: {csv: items.csv, display: [left, right]}
guidelines: {text: Rate how similar the two words are.}
scale: {min: 0, max: 10}
raters_per_item: 3
items_per_hit: 2
hit: {title: Rate words, description: Rate how similar two words are., reward: "0.10"}
"""
        )
    )
    rows = [{"item_id": "a", "left": "cat", "right": "dog", "role": "item"}]
    digest = instrument_hash(
        spec,
        rows,
        ["item_id", "left", "right", "role"],
        ["left", "right"],
        "Rate how similar the two words are.",
        {"base.html": "<p>{{ x }}</p>"},
    )
    assert digest == "dc0a3368a470a5ec52c51bc8ee68a8489e768d68f10d6d0825eff16f27c4b8bb"
