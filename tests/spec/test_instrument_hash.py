"""The instrument hash covers the measurement procedure and nothing else."""

from __future__ import annotations

import pytest

from harness.spec import load_spec
from tests.factories import MINIMAL_ITEMS, MINIMAL_RATING_SPEC, write_spec


def _hash(tmp_path, text, items=MINIMAL_ITEMS):
    (tmp_path / "items.csv").write_text(items)
    return load_spec(write_spec(tmp_path, text)).instrument_hash


def test_the_same_spec_always_has_the_same_hash(tmp_path):
    assert _hash(tmp_path, MINIMAL_RATING_SPEC) == _hash(tmp_path, MINIMAL_RATING_SPEC)
    assert len(_hash(tmp_path, MINIMAL_RATING_SPEC)) == 64


@pytest.mark.parametrize(
    "change",
    [
        ("Rate how similar the two words are.", "Rate how related the two words are."),
        ("  max: 10", "  max: 9"),
        ("raters_per_item: 3", "raters_per_item: 4"),
        ("  display: [left, right]", "  display: [right, left]"),
    ],
    ids=["guidelines text", "scale", "raters per item", "item display"],
)
def test_changing_the_measurement_procedure_changes_the_hash(tmp_path, change):
    assert _hash(tmp_path, MINIMAL_RATING_SPEC) != _hash(
        tmp_path, MINIMAL_RATING_SPEC.replace(*change)
    )


def test_changing_an_item_changes_the_hash(tmp_path):
    changed = MINIMAL_ITEMS.replace("cup,mug", "cup,glass")
    assert _hash(tmp_path, MINIMAL_RATING_SPEC) != _hash(tmp_path, MINIMAL_RATING_SPEC, changed)


@pytest.mark.parametrize(
    "extra",
    [
        "budget: '50.00'\n",
        "platform: {target: production}\n",
        "hosting: mturk\n",
        "study:\n  name: renamed\n  description: other words\n",
    ],
    ids=["budget", "platform target", "hosting", "study name"],
)
def test_launch_settings_do_not_change_the_hash(tmp_path, extra):
    base = _hash(tmp_path, MINIMAL_RATING_SPEC)
    text = (
        MINIMAL_RATING_SPEC.replace("study:\n  name: tiny\n", "")
        if extra.startswith("study")
        else MINIMAL_RATING_SPEC
    )
    assert _hash(tmp_path, text + extra) == base
    lifetime = MINIMAL_RATING_SPEC.replace('reward: "0.10"', 'reward: "0.20"\n  lifetime: 2d')
    assert _hash(tmp_path, lifetime) == base
