"""The published resolution study's item-pair counts (61,425 unique pairwise distances, 33,359
above its resolution of 1.8, as issue 15 quotes the paper), reproduced from WS353's printed
means, and harness's own 353-item counts, each against a plain loop over the CSV file."""

from __future__ import annotations

import csv
import itertools

import pytest

from harness.characterize.item_pairs import (
    PUBLISHED_ABOVE,
    PUBLISHED_PAIRS,
    item_pair_counts,
    published_item_set,
)
from tests.characterize import factories
from tests.factories import WS353_DIR


def _printed_rows() -> list[tuple[str, str, float]]:
    with (WS353_DIR / "combined.csv").open(newline="") as f:
        return [(r["Word 1"], r["Word 2"], float(r["Human (mean)"])) for r in csv.DictReader(f)]


def test_the_published_counts_come_from_351_rows_with_floating_point_distances(ws353_dir):
    rows = [r for r in _printed_rows() if r[:2] not in {("tiger", "tiger"), ("money", "bank")}]
    distances = [abs(a[2] - b[2]) for a, b in itertools.combinations(rows, 2)]
    assert len(distances) == PUBLISHED_PAIRS == 61_425
    assert sum(d > 1.8 for d in distances) == PUBLISHED_ABOVE == 33_359
    published = published_item_set(factories.ws353().items)
    counts = item_pair_counts(published["published_mean"], 1.8)
    assert (counts.items, counts.pairs, counts.above_unrounded) == (351, 61_425, 33_359)
    # with harness's tolerance the 73 pairs printed exactly 1.80 apart are all "at" 1.8
    assert counts.at_or_above - counts.above == 73
    assert counts.above == sum(d > 1.8 + 1e-9 for d in distances) == 33_339


def test_harness_counts_its_353_items_with_means_from_the_votes(ws353_dir):
    means = factories.ws353_means()
    counts = item_pair_counts(means, 1.8)
    pairs = [abs(a - b) for a, b in itertools.combinations(means.tolist(), 2)]
    assert counts.pairs == len(pairs) == 62_128
    assert counts.at_or_above == sum(d >= 1.8 - 1e-9 for d in pairs)


def test_a_copy_of_ws353_without_a_left_out_row_is_refused(ws353_dir):
    items = factories.ws353().items
    with pytest.raises(ValueError, match=r"expected one WS353 row \('tiger', 'tiger'\), found 0"):
        published_item_set(items[items["word2"] != "tiger"])
