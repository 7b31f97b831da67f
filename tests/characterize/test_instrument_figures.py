"""Precision, repeatability, rank stability and the card, each against an independent computation
(numpy / scipy / the krippendorff package) on WS353 and on a simulated reproduction."""

from __future__ import annotations

import itertools
import math

import krippendorff
import numpy as np
import pandas as pd
import pytest

from harness.characterize import (
    characterize,
    instrument_from_study,
    instrument_from_table,
    instrument_from_ws353,
    precision,
    procedure_card,
    rank_stability_resolution,
    rank_stability_se,
    repeatability,
)
from harness.stats.agreement import summarize_agreement
from tests.characterize import factories


def _values_by_item(table):
    out: dict[str, list[float]] = {}
    for item, value in zip(table["item_id"], table["value"], strict=True):
        out.setdefault(item, []).append(float(value))
    return {k: np.array(v) for k, v in out.items() if len(v) >= 2}


def test_precision_is_the_sample_sd_per_item_its_mean_sd_and_middle_two_thirds(any_table):
    by_item = _values_by_item(any_table)
    sds = np.array([np.std(v, ddof=1) for v in by_item.values()])
    p = precision(any_table)
    assert len(p.summaries) == len(by_item)
    assert p.mean_sd == pytest.approx(sds.mean(), abs=1e-12)
    assert p.sd_sd == pytest.approx(np.std(sds, ddof=0), abs=1e-12)
    assert p.band == pytest.approx(tuple(np.quantile(sds, [1 / 6, 5 / 6])), abs=1e-12)
    assert p.band_mean_sd == pytest.approx((sds.mean() - sds.std(), sds.mean() + sds.std()))
    inside = ((sds >= p.band[0]) & (sds <= p.band[1])).mean()
    assert inside == pytest.approx(2 / 3, abs=0.02)
    ranked = sorted(by_item, key=lambda k: np.std(by_item[k], ddof=1))
    sample_sd = {k: np.std(v, ddof=1) for k, v in by_item.items()}
    assert sample_sd[p.highest[0]] == pytest.approx(sample_sd[ranked[-1]])
    assert sample_sd[p.lowest[0]] == pytest.approx(sample_sd[ranked[0]])
    assert p.to_dict()["ddof"] == 1


def test_the_default_ws353_original_reproduces_the_studys_alpha_and_precision(ws353_dir):
    # The WS353 study characterized 13 raters x 353 pairs: alpha 0.59, mean sd 1.7, sd of sds
    # .54, middle band (mean +- sd) 1.16-2.24. Raters 1-13 with the sample sd give those.
    original = instrument_from_ws353(factories.ws353())
    assert original.name == "WS353" and original.judgments["worker_id"].nunique() == 13
    assert len(original.judgments) == 4589
    assert repeatability(original.judgments, resamples=0).alpha == pytest.approx(0.5899, abs=1e-4)
    p = precision(original.judgments)
    assert (round(p.mean_sd, 3), round(p.sd_sd, 3)) == (1.704, 0.544)
    assert (round(p.band_mean_sd[0], 2), round(p.band_mean_sd[1], 2)) == (1.16, 2.25)
    # The whole distribution is a named variant: 16 raters, alpha 0.560.
    every = instrument_from_ws353(factories.ws353(), raters=16)
    assert every.name == "WS353 (16 raters)" and len(every.judgments) == 5189
    assert repeatability(every.judgments, resamples=0).alpha == pytest.approx(0.5597, abs=1e-4)


def test_repeatability_alpha_agrees_with_the_krippendorff_package(any_table):
    wide = any_table.pivot_table(index="worker_id", columns="item_id", values="value")
    expected = krippendorff.alpha(reliability_data=wide.to_numpy(), level_of_measurement="interval")
    r = repeatability(any_table, resamples=200, seed=3)
    assert r.alpha == pytest.approx(expected, abs=1e-9)
    assert r.ci is not None and r.ci[0] < r.alpha < r.ci[1]
    assert r.verdict == (
        "reliable" if r.alpha >= 0.8 else "tentative" if r.alpha >= 0.667 else "unreliable"
    )


def test_rank_stability_by_standard_error_counts_items_within_one_se(any_table):
    by_item = _values_by_item(any_table)
    keys = sorted(by_item)
    m = {k: by_item[k].mean() for k in keys}
    se = {k: np.std(by_item[k], ddof=1) / math.sqrt(len(by_item[k])) for k in keys}
    neighbours = {
        k: sum(1 for j in keys if j != k and abs(m[j] - m[k]) <= se[k] + 1e-9) for k in keys
    }
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
    assert card.rows["raters"] == "13"  # the study's instrument: raters 1-13 on every pair
    assert card.rows["judgments"] == "4,589"
    assert card.rows["raters per item (distinct workers with a value)"] == (
        "min 13, median 13, max 13"
    )
    assert card.rows["judgments per item"].startswith("min 13, median 13, max 13 (one per rater")
    every = procedure_card(instrument_from_ws353(factories.ws353(), raters=16))
    assert every.rows["raters"] == "16" and every.rows["judgments"] == "5,189"
    assert every.rows["judgments per item"].startswith("min 13, median 16, max 16")
    assert "Finkelstein" in card.rows["reference"]
    assert card.rows["indication"].startswith("mean")


def test_control_judgments_are_left_out_and_counted(reproduction_table):
    table = reproduction_table.copy()
    table.loc[table.index[:7], "role"] = "repeat"
    instrument = instrument_from_table(table, name="x", kind="csv")
    assert instrument.controls_left_out == 7
    assert len(instrument.judgments) == len(table) - 7
    assert procedure_card(instrument).rows["control judgments left out"] == "7"


def test_the_card_tells_raters_per_item_from_judgments_per_item():
    rows = [
        ("a", "w1", 1.0),
        ("a", "w1", 3.0),
        ("a", "w2", 2.0),
        ("b", "w1", 4.0),
        ("b", "w2", 5.0),
    ]
    table = pd.DataFrame(rows, columns=["item_id", "worker_id", "value"])
    card = procedure_card(instrument_from_table(table, name="x", kind="csv"))
    assert card.rows["raters per item (distinct workers with a value)"] == "min 2, median 2, max 2"
    assert card.rows["judgments per item"].startswith(
        "min 2, median 2.5, max 3 (1 repeat judgment(s) by a rater who judged the item again"
    )


def _ratings_near_alpha_0_8() -> pd.DataFrame:
    """40 items on 0-10, five raters each with noise: alpha about 0.80, its interval from about
    0.72, so q below 0.667 and below 0.8 differ."""
    rng = np.random.default_rng(7)
    truth = rng.uniform(0, 10, 40)
    rows = [
        (f"i{i:02d}", f"w{w}", float(np.clip(np.round(t + rng.normal(0, 1.6)), 0, 10)))
        for i, t in enumerate(truth)
        for w in range(5)
    ]
    return pd.DataFrame(rows, columns=["item_id", "worker_id", "value"])


@pytest.mark.parametrize("alpha_min", [None, 0.8])
def test_a_studys_alpha_min_sets_its_q_and_interval_warning(alpha_min):
    table = _ratings_near_alpha_0_8()
    spec = {} if alpha_min is None else {"alpha_min": alpha_min}
    study = instrument_from_study({"name": "s"}, {"spec": spec}, table)
    csv = instrument_from_table(table, name="csv", kind="csv")
    data = characterize(study, csv, resamples=200, seed=0).to_dict()
    q_table = summarize_agreement(table, "interval", resamples=200, seed=0).bootstrap.q_table
    expected = 0.667 if alpha_min is None else 0.8
    new, original = data["new"]["repeatability"], data["original"]["repeatability"]
    assert new["alpha_min"] == expected
    assert new["q_below_min"] == q_table[expected]
    assert q_table[0.8] > q_table[0.667]  # the two can be told apart
    assert (new["warning"] is not None) == (alpha_min is not None)  # low end ~0.72
    assert data["reproducibility"]["alpha_new"]["alpha_min"] == expected
    # the original, a CSV, has no spec: the default, whatever the new study says
    assert (original["alpha_min"], original["q_below_min"]) == (0.667, q_table[0.667])


def test_two_studies_of_one_instrument_each_keep_their_own_alpha_min(tmp_path, database_url):
    """alpha_min is not part of the instrument: the second study shares the first's frozen
    spec, so each study keeps its own."""
    from harness.spec import load_spec
    from harness.store import create_study, make_engine, session_scope
    from harness.store.studies import instrument_of
    from tests.factories import MINIMAL_ITEMS, MINIMAL_RATING_SPEC, write_spec

    (tmp_path / "items.csv").write_text(MINIMAL_ITEMS)
    engine = make_engine(database_url)
    table = _ratings_near_alpha_0_8()
    try:
        with session_scope(engine) as session:
            got = {}
            for name, extra in (("plain", ""), ("strict", "alpha_min: 0.8\n")):
                loaded = load_spec(write_spec(tmp_path, MINIMAL_RATING_SPEC + extra))
                study = create_study(session, loaded, name=name)
                version = instrument_of(session, study).model_dump(mode="json")
                got[name] = (
                    version["hash"],
                    instrument_from_study(study.model_dump(mode="json"), version, table).alpha_min,
                )
    finally:
        engine.dispose()
    assert got["plain"][0] == got["strict"][0]  # one instrument
    assert (got["plain"][1], got["strict"][1]) == (0.667, 0.8)
