"""Precision, repeatability, rank stability and the card, each against an independent computation
(numpy / scipy / the krippendorff package) on WS353 and on a simulated reproduction."""

from __future__ import annotations

import itertools
import math

import krippendorff
import numpy as np
import pytest

from harness.characterize import (
    instrument_from_table,
    instrument_from_ws353,
    precision,
    procedure_card,
    rank_stability_resolution,
    rank_stability_se,
    repeatability,
)
from tests.characterize import factories


def _values_by_item(table):
    out: dict[str, list[float]] = {}
    for item, value in zip(table["item_id"], table["value"], strict=True):
        out.setdefault(item, []).append(float(value))
    return {k: np.array(v) for k, v in out.items() if len(v) >= 2}


def test_precision_is_the_population_sd_per_item_its_mean_sd_and_middle_two_thirds(any_table):
    by_item = _values_by_item(any_table)
    sds = np.array([np.std(v, ddof=0) for v in by_item.values()])
    p = precision(any_table)
    assert len(p.summaries) == len(by_item)
    assert p.mean_sd == pytest.approx(sds.mean(), abs=1e-12)
    assert p.sd_sd == pytest.approx(np.std(sds, ddof=0), abs=1e-12)
    assert p.band == pytest.approx(tuple(np.quantile(sds, [1 / 6, 5 / 6])), abs=1e-12)
    inside = ((sds >= p.band[0]) & (sds <= p.band[1])).mean()
    assert inside == pytest.approx(2 / 3, abs=0.02)
    ranked = sorted(by_item, key=lambda k: np.std(by_item[k], ddof=0))
    assert np.std(by_item[p.highest[0]]) == pytest.approx(np.std(by_item[ranked[-1]]))
    assert np.std(by_item[p.lowest[0]]) == pytest.approx(np.std(by_item[ranked[0]]))


def test_repeatability_alpha_agrees_with_the_krippendorff_package(any_table):
    wide = any_table.pivot_table(index="worker_id", columns="item_id", values="value")
    expected = krippendorff.alpha(reliability_data=wide.to_numpy(), level_of_measurement="interval")
    r = repeatability(any_table, resamples=200, seed=3)
    assert r.alpha == pytest.approx(expected, abs=1e-9)
    assert r.ci is not None and r.ci[0] < r.alpha < r.ci[1]
    assert r.verdict == ("reliable" if r.alpha >= 0.8 else
                         "tentative" if r.alpha >= 0.667 else "unreliable")  # fmt: skip


def test_rank_stability_by_standard_error_counts_items_within_one_se(any_table):
    by_item = _values_by_item(any_table)
    keys = sorted(by_item)
    m = {k: by_item[k].mean() for k in keys}
    se = {k: np.std(by_item[k], ddof=1) / math.sqrt(len(by_item[k])) for k in keys}
    neighbours = {k: sum(1 for j in keys if j != k and abs(m[j] - m[k]) <= se[k] + 1e-9)
                  for k in keys}  # fmt: skip
    pairs = list(itertools.combinations(keys, 2))
    inseparable = sum(1 for a, b in pairs if abs(m[a] - m[b]) <= max(se[a], se[b]) + 1e-9)
    r = rank_stability_se(precision(any_table).summaries)
    assert r.neighbours.to_dict() == neighbours
    assert r.share_inseparable == pytest.approx(inseparable / len(pairs), abs=1e-12)


@pytest.mark.parametrize("t", [0.0, 0.4, 0.9, 2.5])
def test_rank_stability_at_a_resolution_counts_items_closer_than_it(ws353_table, t):
    by_item = _values_by_item(ws353_table)
    keys = sorted(by_item)
    m = {k: by_item[k].mean() for k in keys}
    close = {k: sum(1 for j in keys if j != k and abs(m[j] - m[k]) < t - 1e-9) for k in keys}
    pairs = list(itertools.combinations(keys, 2))
    below = sum(1 for a, b in pairs if abs(m[a] - m[b]) < t - 1e-9)
    r = rank_stability_resolution(precision(ws353_table).summaries, t)
    assert r.neighbours.to_dict() == close
    assert r.share_inseparable == pytest.approx(below / len(pairs), abs=1e-12)


def test_the_ws353_card_says_what_is_known_and_counts_from_the_votes(ws353_dir):
    card = procedure_card(instrument_from_ws353(factories.ws353()))
    assert card.rows["items"] == "353"
    assert card.rows["raters"] == "16"
    assert card.rows["judgments"] == "5,189"
    assert card.rows["judgments per item"] == "min 13, median 16, max 16"
    assert "Finkelstein" in card.rows["reference"]
    assert card.rows["indication"].startswith("mean")


def test_control_judgments_are_left_out_and_counted(reproduction_table):
    table = reproduction_table.copy()
    table.loc[table.index[:7], "role"] = "repeat"
    instrument = instrument_from_table(table, name="x", kind="csv")
    assert instrument.controls_left_out == 7
    assert len(instrument.judgments) == len(table) - 7
    assert procedure_card(instrument).rows["control judgments left out"] == "7"
