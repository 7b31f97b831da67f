"""Each heuristic on small hand-built tables whose answers are known by construction."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from harness.screening import (
    HEURISTICS,
    REPORT_ONLY,
    ScreeningContext,
    calibration_failure,
    centrist,
    consensus_correlation,
    control_group_variance,
    disagreeable,
    gold_failure,
    high_random,
    low_correlation,
    low_variance,
    low_variance_absolute,
    quick,
    radical,
    resolve,
    slow,
)
from harness.screening.context import min_others_for
from harness.simulate.archetypes import Archetype, Worker
from harness.spec.heuristics import CATALOGUE
from harness.spec.model import Action, HeuristicPolicy, ScaleSpec, StudyType
from harness.spec.scale import resolve_scale

TEN = ScreeningContext(resolve_scale(StudyType.RATING, ScaleSpec(min=0, max=10, step=1)))
FIVE = ScreeningContext(resolve_scale(StudyType.RATING, ScaleSpec(min=1, max=5, step=1)))
TRUTH = [1.0, 3.0, 5.0, 7.0, 9.0, 2.0]


def table(rows: dict[str, list[float]], **columns: list) -> pd.DataFrame:
    """Workers' values on items i0, i1, ... (NaN: not rated), plus extra per-row columns."""
    records = [
        {"item_id": f"i{k}", "worker_id": w, "value": v}
        for w, values in rows.items()
        for k, v in enumerate(values)
        if not math.isnan(v)
    ]
    frame = pd.DataFrame(records)
    for name, values in columns.items():
        frame[name] = values
    return frame


def by_worker(frame: pd.DataFrame) -> pd.DataFrame:
    return frame.set_index("worker_id")


def test_every_catalogue_heuristic_has_one_implementation_and_codes_resolve():
    assert list(HEURISTICS) == [h.key for h in CATALOGUE]
    assert resolve("H3") == "low_variance" and resolve("h8") == "consensus_correlation"
    assert resolve("radical") == "radical" and set(REPORT_ONLY) == {"radical", "centrist"}
    with pytest.raises(KeyError):
        resolve("H14")


def test_policy_threshold_overrides_the_catalogue_default_and_action_defaults_to_report():
    context = ScreeningContext(
        TEN.scale, policy={"H2": HeuristicPolicy(threshold=5, action=Action.REJECT)}
    )
    assert context.threshold("quick") == 5 and context.action("quick") is Action.REJECT
    assert TEN.threshold("quick") == 2.0 and TEN.action("quick") is Action.REPORT


def test_slow_and_quick_read_mean_and_median_seconds():
    frame = table({"a": [1, 2, 3], "b": [1, 2, 3]}, seconds=[400, 400, 100, 1, 1, 30])
    s, q = by_worker(slow(frame, TEN)), by_worker(quick(frame, TEN))
    assert s.loc["a", "score"] == pytest.approx(300) and not s.loc["a", "flag"]
    assert q.loc["b", "score"] == 1 and q.loc["b", "flag"] and not q.loc["a", "flag"]
    assert s.loc["b", "percentile"] == 50 and s.loc["a", "evidence"] == 3


def test_timing_without_seconds_says_nothing():
    out = quick(table({"a": [1, 2]}), TEN)
    assert math.isnan(out["score"].iloc[0]) and out["evidence"].iloc[0] == 0
    assert not out["flag"].iloc[0]


def test_low_variance_is_relative_to_the_consensus_of_the_workers_items():
    # Consensus of each item = mean of a and b; a varies as much as truth, b is constant.
    frame = table({"a": [0, 4, 8, 0, 4, 8], "b": [4, 4, 4, 4, 4, 4]})
    out = by_worker(low_variance(frame, TEN))
    consensus_var = np.var([2, 4, 6, 2, 4, 6], ddof=1)
    assert out.loc["a", "score"] == pytest.approx(np.var([0, 4, 8] * 2, ddof=1) / consensus_var)
    assert out.loc["b", "score"] == 0 and out.loc["b", "flag"] and not out.loc["a", "flag"]
    assert out.loc["a", "variance"] == pytest.approx(np.var([0, 4, 8] * 2, ddof=1))


def test_absolute_low_variance_scales_the_published_threshold_by_range_over_four_squared():
    frame = table({"a": [4, 6, 4, 6]})  # variance 4/3: below 1 * (10/4)^2 = 6.25, above 1
    assert by_worker(low_variance_absolute(frame, TEN)).loc["a", "flag"]
    assert not by_worker(low_variance_absolute(frame.assign(value=[1, 3, 1, 3]), FIVE)).loc[
        "a", "flag"
    ]


def test_high_random_compares_random_pairs_with_real_items():
    frame = table({"a": [8, 2, 2], "b": [1, 6, 8]}, role=["random_pair", "item", "item"] * 2)
    out = by_worker(high_random(frame, TEN))
    assert out.loc["a", "score"] == 6 and out.loc["a", "flag"]
    assert out.loc["b", "score"] == -6 and not out.loc["b", "flag"]
    assert out.loc["a", "evidence"] == 1


def test_high_random_flags_only_strictly_above_zero():
    # As published: rating random pairs exactly as high as real ones (a straight-liner) is a
    # difference of 0, not flagged here (H3 is for it).
    frame = table({"flat": [5, 5, 5]}, role=["random_pair", "item", "item"])
    out = by_worker(high_random(frame, TEN))
    assert out.loc["flat", "score"] == 0 and not out.loc["flat", "flag"]


def test_disagreeable_counts_pairs_of_co_raters_who_agree():
    # Three raters per item is the published rule exactly: "the other two" agree and the worker
    # differs. With more raters, every agreeing pair of co-raters is an occasion: on i0 the
    # co-raters of a are 4 high and 1 low, so 6 agreeing pairs, all high: a (low) differs on 6.
    high, low = [8.0], [2.0]
    rows = {"a": low, "b": high, "c": high, "d": high, "e": high, "f": low}
    out = by_worker(disagreeable(table(rows), TEN))
    assert out.loc["a", "score"] == 1.0 and out.loc["a", "evidence"] == 1
    # b's co-raters: 3 high (3 pairs) and 2 low (1 pair): b differs on 1 of 4 occasions.
    assert out.loc["b", "score"] == 0.25


def test_disagreeable_counts_items_where_all_others_agree():
    # Others (b, c) agree high on i0-i3; a is low on three of four: 0.75 > 0.5 with 4 items.
    frame = table({"a": [1, 1, 1, 9], "b": [9, 8, 7, 9], "c": [8, 9, 9, 6]})
    out = by_worker(disagreeable(frame, TEN))
    assert out.loc["a", "score"] == 0.75 and out.loc["a", "evidence"] == 4 and out.loc["a", "flag"]
    # For b the others (a, c) disagree on i0-i2, so only i3 counts: too little evidence.
    assert out.loc["b", "evidence"] == 1 and not out.loc["b", "flag"]


def test_control_group_variance_is_scaled_to_the_study_scale():
    frame = table({"a": [0, 4, 5, 5], "b": [2, 3, 5, 5]}, group=["g1", "g1", "g2", "g2"] * 2)
    out = by_worker(control_group_variance(frame, TEN))
    assert out.loc["a", "score"] == pytest.approx((8.0 + 0.0) / 2)  # var(0, 4) = 8
    assert out.loc["a", "evidence"] == 2 and not out.loc["a", "flag"]  # 4 <= 6.25
    strict = ScreeningContext(TEN.scale, policy={"H6": HeuristicPolicy(threshold=0.5)})
    assert by_worker(control_group_variance(frame, strict)).loc["a", "flag"]  # 4 > 3.125


def test_low_correlation_takes_the_best_three_partners_per_assignment():
    up = [1, 2, 3, 4, 5]
    rows = {"a": up, "b": up, "c": up, "d": up, "e": [5, 4, 3, 2, 1]}
    out = by_worker(low_correlation(table(rows), TEN))
    assert out.loc["a", "score"] == pytest.approx(1.0) and out.loc["a", "evidence"] == 4
    assert out.loc["e", "score"] == pytest.approx(-1.0) and out.loc["e", "flag"]


def test_low_correlation_fails_the_one_random_assignment_among_good_ones():
    # The published rule is per HIT response: an assignment whose best three correlations
    # average below 0.3 fails. Worker x answers three HITs well and one at random; averaged
    # over x's assignments the failing one would be diluted above 0.3.
    rng = np.random.default_rng(7)
    truth = rng.uniform(0, 10, size=24)
    records = []
    for w in ["a", "b", "c", "d", "e", "x"]:
        for hit in range(4):
            for item in range(hit * 6, hit * 6 + 6):
                value = truth[item] + rng.normal(0, 0.8)
                if w == "x" and hit == 2:
                    value = 10 - truth[item]  # the random (here: reversed) HIT
                records.append((f"i{item}", w, float(value), f"{w}-hit{hit}"))
    frame = pd.DataFrame(records, columns=["item_id", "worker_id", "value", "assignment_id"])
    out = by_worker(low_correlation(frame, TEN))
    assert out.loc["x", "flag"] and out.loc["x", "below"] == 1
    assert out.loc["x", "worst"] == "x-hit2" and out.loc["x", "score"] < 0.3
    assert out.loc["x", "mean"] > 0.3  # the per-worker mean would not have flagged x
    assert not out.drop(index="x")["flag"].any()


def test_consensus_correlation_labels_backwards_workers():
    rows = {"a": TRUTH, "b": TRUTH, "d": TRUTH, "c": [10 - v for v in TRUTH]}
    out = by_worker(consensus_correlation(table(rows), TEN))
    # Others of a: mean of b, d (the truth) and c (its mirror) still rise with the truth.
    assert out.loc["a", "score"] == pytest.approx(1.0)
    assert out.loc["c", "score"] < -0.3 and out.loc["c", "label"] == "backwards"
    assert out.loc["c", "flag"]
    assert out.loc["a", "label"] == "" and not out.loc["a", "flag"]
    assert out.loc["a", "evidence"] == 6 and not math.isnan(out.loc["a", "rho"])


def test_consensus_correlation_is_nan_when_the_others_mean_is_constant():
    rows = {"a": TRUTH, "b": TRUTH, "c": [10 - v for v in TRUTH]}  # a's others average to 5
    out = by_worker(consensus_correlation(table(rows), TEN))
    assert math.isnan(out.loc["a", "score"]) and not out.loc["a", "flag"]


def test_consensus_correlation_needs_five_items_with_other_raters():
    rows = {"a": TRUTH[:4], "b": TRUTH[:4]}
    out = by_worker(consensus_correlation(table(rows), TEN))
    assert math.isnan(out.loc["a", "score"]) and out.loc["a", "evidence"] == 4
    assert not out.loc["a", "flag"]


LIVE = dataclasses.replace(TEN, min_others=5)  # a study with 5 or more raters per item


def test_a_consensus_of_fewer_than_the_needed_other_raters_is_no_evidence():
    # Early in a live study: a's "consensus" would be b, c and two backwards workers.
    mirror = [10 - v for v in TRUTH]
    rows = {"a": TRUTH, "b": TRUTH, "c": TRUTH, "y": mirror, "z": mirror}
    assert by_worker(consensus_correlation(table(rows), TEN))["flag"].any()
    out = by_worker(consensus_correlation(table(rows), LIVE))
    assert (out["evidence"] == 0).all() and not out["flag"].any()


def test_low_correlation_flags_only_with_the_needed_correlations():
    up = [1, 2, 3, 4, 5]
    rows = {"a": up, "b": up, "c": up, "d": up, "e": [5, 4, 3, 2, 1]}
    out = by_worker(low_correlation(table(rows), LIVE))
    assert out.loc["e", "score"] == pytest.approx(-1.0) and out.loc["e", "evidence"] == 4
    assert not out.loc["e", "flag"]
    out = by_worker(low_correlation(table(rows | {"f": up}), LIVE))
    assert out.loc["e", "evidence"] == 5 and out.loc["e", "flag"]


def test_a_specs_context_asks_five_other_raters_or_all_there_are():
    assert [min_others_for(n) for n in (1, 2, 3, 6, 13)] == [1, 1, 2, 5, 5]


def test_gold_failure_allows_one_step_and_needs_two_gold_items():
    frame = table({"a": [4, 9, 1], "b": [5, 0, 1]}, gold=[5, 1, np.nan] * 2)
    out = by_worker(gold_failure(frame, TEN))
    assert out.loc["a", "score"] == 0.5 and not out.loc["a", "flag"]  # 9 vs 1 missed; 4 ok
    assert out.loc["b", "score"] == 0 and out.loc["b", "evidence"] == 2


def test_gold_answers_can_come_from_the_item_table():
    items = pd.DataFrame({"item_id": ["i0", "i1"], "role": "gold", "gold": [10.0, 0.0]})
    context = ScreeningContext(TEN.scale, items=items)
    out = by_worker(gold_failure(table({"a": [0, 10]}), context))
    assert out.loc["a", "score"] == 1 and out.loc["a", "flag"]


def _checks(worker: str, identical: list[float], repeats: list[tuple[float, float]]) -> list:
    rows = [(f"same{k}", worker, v, "identical") for k, v in enumerate(identical)]
    for k, (first, second) in enumerate(repeats):
        rows += [(f"x{k}", worker, first, "item"), (f"x{k}", worker, second, "repeat")]
    return rows


def test_calibration_failure_checks_identical_pairs_and_repeats():
    # An identical pair fails below 9 on 0-10, a repeat whose showings differ by more than 2.5.
    # By default a worker is flagged when a careful worker (failing 17% of checks) would fail
    # that many less than 1% of the time: one-sided binomial, scipy's binom.sf.
    rows = (
        _checks("a", [9.0, 10.0], [(2, 4), (5, 8)])  # 1 of 4 fails: a careful rater's luck
        + _checks("b", [8.5, 10.0], [(2, 6), (3, 3)])  # 2 of 4: p = 0.137, chance explains it
        + _checks("c", [5.0], [(1, 9)])  # 2 of 2: p = 0.029, still too few checks to say
        + _checks("d", [5.0, 6.0], [(1, 9)])  # 3 of 3: p = 0.005
        + _checks("e", [8.0, 7.0, 10.0, 10.0], [(1, 9), (0, 10), (4, 9), (6, 6)])  # 5 of 8
    )
    frame = pd.DataFrame(rows, columns=["item_id", "worker_id", "value", "role"])
    out = by_worker(calibration_failure(frame, TEN))
    assert out.loc["a", "score"] == 0.25 and out.loc["a", "evidence"] == 4
    assert out.loc["b", "score"] == 0.5 and out.loc["b", "failures"] == 2
    assert out.loc["c", "score"] == 1 and out.loc["d", "score"] == 1
    chance = {
        w: stats.binom.sf(out.loc[w, "failures"] - 1, out.loc[w, "evidence"], 0.17)
        for w in out.index
    }
    assert chance["b"] == pytest.approx(0.137, abs=5e-4) and chance["e"] < 0.01
    assert out["flag"].to_dict() == {"a": False, "b": False, "c": False, "d": True, "e": True}
    # A spec's own threshold decides from the first check: 0 is the published "any failure".
    strict = ScreeningContext(TEN.scale, policy={"H10": HeuristicPolicy(threshold=0)})
    assert by_worker(calibration_failure(frame, strict))["flag"].all()


@pytest.mark.parametrize("checks", [4, 6, 8, 10, 20])
def test_calibration_failure_flags_at_most_one_careful_worker_in_a_hundred(checks):
    # Simulated careful workers on WS353's scale (half identical pairs, half repeats of WS353
    # items); the rule published as "any failure" flagged 6-8% of them at 4-8 checks.
    scale, rng = TEN.scale, np.random.default_rng(checks)
    truths = np.linspace(0.2, 9.8, 353)
    rows = []
    for k in range(800):
        worker = Worker.draw(f"w{k}", Archetype.CAREFUL, scale, rng)
        same = worker.answer(np.full(checks // 2, 10.0), scale, rng)
        items = rng.choice(truths, checks - checks // 2)
        twice = worker.answer(np.concatenate([items, items]), scale, rng)
        pairs = list(zip(twice[: len(items)], twice[len(items) :], strict=True))
        rows += _checks(worker.worker_id, list(same), pairs)
    frame = pd.DataFrame(rows, columns=["item_id", "worker_id", "value", "role"])
    assert by_worker(calibration_failure(frame, TEN))["flag"].mean() <= 0.01


def test_radical_and_centrist_shares_leave_out_the_midpoint():
    frame = table({"r": [0, 10, 10, 5, 3], "c": [2, 8, 8, 5, 3]})
    out = by_worker(radical(frame, TEN))
    assert out.loc["r", "score"] == 0.75 and out.loc["r", "evidence"] == 4  # the 5 left out
    assert out.loc["r", "flag"]
    assert by_worker(centrist(frame, TEN)).loc["c", "flag"]
    assert not by_worker(centrist(frame, TEN)).loc["r", "flag"]


def test_centrist_is_the_same_rule_on_any_scale():
    # The published centrist answers 2 and 4 on 1-5; its proportional image on 0-10 is 2.5 and
    # 7.5, and 2 and 8 (or 3 and 7) are as far in. 1 and 9 sit nearer the ends than the middle.
    five = table({"c": [2, 4, 4, 2, 4, 3]})
    assert by_worker(centrist(five, FIVE)).loc["c", "flag"]
    ten = table(
        {
            "image": [2.5, 7.5, 7.5, 2.5, 7.5, 5],
            "two_eight": [2, 8, 8, 2, 8, 8],
            "three_seven": [3, 7, 7, 3, 7, 3],
            "one_nine": [1, 9, 9, 1, 9, 9],
            "steady": [7, 7, 7, 7, 7, 7],
        }
    )
    out = by_worker(centrist(ten, TEN))
    assert out.loc[["image", "two_eight", "three_seven"], "flag"].all()
    assert not out.loc["one_nine", "flag"] and out.loc["one_nine", "score"] == 0
    assert not out.loc["steady", "flag"]  # all at one point: H3's concern, not this one


def test_radical_and_centrist_mark_only_workers_whose_values_vary():
    # Variance above 1 on a 1-5 scale, 6.25 on 0-10: a worker at 9 and 10 only is not marked.
    frame = table({"steady": [10, 9, 10, 10, 9, 10], "r": [0, 10, 10, 0, 10, 2]})
    out = by_worker(radical(frame, TEN))
    assert out.loc["steady", "score"] > 0.5 and out.loc["steady", "variance"] < 6.25
    assert not out.loc["steady", "flag"] and out.loc["r", "flag"]
    assert by_worker(radical(frame.assign(value=frame["value"] / 2.5 + 1), FIVE)).loc["r", "flag"]


EDGE_CASES = {
    "one judgment": pd.DataFrame({"item_id": ["i0"], "worker_id": ["a"], "value": [3.0]}),
    "all skipped": pd.DataFrame(
        {"item_id": ["i0", "i1"], "worker_id": "a", "value": np.nan, "skipped": True}
    ),
    "one rater per item": table({"a": [1, 2, np.nan, np.nan], "b": [np.nan, np.nan, 3, 4]}),
    "constant raters": table({"a": [5] * 6, "b": [5] * 6}, seconds=[3.0] * 12),
}


@pytest.mark.parametrize("case", list(EDGE_CASES))
@pytest.mark.parametrize("key", [*HEURISTICS, *REPORT_ONLY])
def test_edge_cases_give_nan_scores_without_flags_or_crashes(case, key):
    from harness.screening import get

    frame = EDGE_CASES[case]
    out = get(key)(frame, TEN)
    assert list(out.columns[:4]) == ["worker_id", "score", "evidence", "flag"]
    assert set(out["worker_id"]) == set(frame["worker_id"])
    assert out["flag"].dtype == bool
    nothing = out["score"].isna()
    assert not out.loc[nothing, "flag"].any()


def test_a_screening_run_shares_preparation_but_gives_each_heuristics_own_result():
    # screen_workers derives the answered rows, cells and item aggregates once for all
    # heuristics (harness.screening.context.sharing); each result must equal a call on its own.
    from harness.screening import get, screen_workers
    from harness.simulate import Crowd, simulate_judgments
    from harness.simulate.mixes import SCREENING_MIXES

    truths = pd.Series(np.linspace(0, 10, 90), index=[f"p{k:02d}" for k in range(90)])
    judgments = simulate_judgments(
        truths, TEN.scale, Crowd(SCREENING_MIXES["30% bad"], 40, 3), 9, 15, 3
    ).drop(columns="true_archetype")
    report = screen_workers(judgments, TEN)
    context = TEN.fitted_to(judgments)
    assert sum(int(frame["flag"].sum()) for frame in report.results.values()) > 5
    for key in [*HEURISTICS, *REPORT_ONLY]:
        pd.testing.assert_frame_equal(report.results[key], get(key)(judgments, context))
