"""The dashboard's figures from tables: alpha of everyone and of the screened set, the pace,
the workers table and the consensus points, against direct computations."""

from __future__ import annotations

from datetime import timedelta

import numpy as np
import pandas as pd
import pytest

from harness.stats.alpha import krippendorff_alpha
from harness.web.dashboard.figures import (
    NO_ALPHA,
    alpha_interval,
    alpha_plot,
    alpha_point,
    arm_progress,
    consensus_points,
    control_results,
    pace,
    worker_rows,
)
from tests.clock import minutes_ago

NOW = minutes_ago()


def ratings(seed: int = 0) -> pd.DataFrame:
    """Five raters who agree (truth + noise) and one who answers at random, on 40 items."""
    rng = np.random.default_rng(seed)
    truth = rng.uniform(0, 10, 40)
    rows = []
    for w in range(6):
        values = rng.uniform(0, 10, 40) if w == 5 else truth + rng.normal(0, 1, 40)
        rows += [
            {
                "item_id": f"i{i}",
                "worker_id": f"w{w}",
                "value": float(v),
                "assignment_id": f"a{w}-{i // 10}",
                "seconds": 2.0 + w,
            }
            for i, v in enumerate(values)
        ]
    return pd.DataFrame(rows)


def test_alpha_of_everyone_and_of_the_screened_set_are_alpha_of_those_rows():
    table = ratings()
    point = alpha_point(table, "interval", {"w5"}, NOW, resamples=50)
    assert point.everyone.alpha == pytest.approx(krippendorff_alpha(table, "interval"))
    kept = table[table["worker_id"] != "w5"]
    assert point.screened.alpha == pytest.approx(krippendorff_alpha(kept, "interval"))
    assert point.screened.alpha > point.everyone.alpha  # the random rater pulled it down
    assert point.everyone.low < point.everyone.alpha < point.everyone.high
    assert point.judgments == len(table)


def test_alpha_is_not_shown_before_any_item_has_two_raters():
    one = ratings()[lambda t: t["worker_id"] == "w0"]
    assert alpha_interval(one, "interval") == NO_ALPHA
    assert NO_ALPHA.shown == "not yet"


def test_the_pace_counts_the_last_ten_minutes_and_the_time_to_finish_follows_it():
    submitted = [NOW - timedelta(minutes=m) for m in (1, 2, 3, 4, 30)]  # 30: outside the window
    per_minute, eta = pace(submitted, judgments_per_assignment=6, remaining=8, now=NOW)
    assert per_minute == pytest.approx(4 * 6 / 4)  # 4 assignments of 6 judgments in 4 minutes
    assert eta == timedelta(minutes=8)
    assert pace([], 6, 8, NOW) == (0.0, None)


def test_the_workers_table_has_judgments_median_seconds_and_scores_against_thresholds():
    table = ratings()
    scores = {
        "quick": pd.DataFrame({"score": [2.0, 7.0], "flag": [True, False]}, index=["w0", "w1"])
    }
    rows = worker_rows(table, scores, {"quick": 3.0}).set_index("worker_id")
    assert rows.loc["w2", "judgments"] == 40 and rows.loc["w2", "assignments"] == 4
    assert rows.loc["w3", "median_seconds"] == 5.0
    assert rows.loc["w0", "quick"].flag and rows.loc["w0", "quick"].shown == "2"
    assert rows.loc["w0", "quick"].threshold == 3.0
    assert rows.loc["w4", "quick"].score is None  # not scored yet


def test_a_score_carries_its_heuristics_evidence_in_words():
    table = ratings()
    scores = {
        "machine_agreement": pd.DataFrame(
            {
                "score": [0.12, -0.3],
                "evidence": [30, 30],
                "flag": [True, False],
                "reference": ["minilm", ""],
                "machine_rho": [0.81, 0.4],
                "human_rho": [0.69, 0.7],
            },
            index=["w0", "w1"],
        )
    }
    rows = worker_rows(table, scores, {"machine_agreement": 0.0}).set_index("worker_id")
    assert rows.loc["w0", "machine_agreement"].detail == (
        "on 30; reference minilm; machine rho 0.81; human rho 0.69"
    )
    assert rows.loc["w1", "machine_agreement"].detail == "on 30; machine rho 0.4; human rho 0.7"
    assert rows.loc["w4", "machine_agreement"].detail == ""  # not scored yet


def test_a_workers_answers_are_set_against_the_others_mean_on_the_same_items():
    table = ratings()
    points = consensus_points(table, "w0").set_index("item_id")
    others = table[table["worker_id"] != "w0"].groupby("item_id")["value"].mean()
    assert points.loc["i3", "consensus"] == pytest.approx(others["i3"])
    assert len(points) == 40


def test_the_alpha_plot_draws_a_line_per_set_and_the_interval_band():
    table = ratings()
    points = [
        alpha_point(table.head(n), "interval", {"w5"}, NOW, resamples=20) for n in (80, 160, 240)
    ]
    plot = alpha_plot(points)
    assert len(plot.lines["everyone"].split()) == len(plot.lines["screened"].split())
    assert plot.bands["everyone"] and plot.bands["screened"]
    assert plot.bands["everyone"] != plot.bands["screened"]  # w5 is out of the screened set
    assert plot.x_labels[-1][1].endswith("judgments")


def test_the_alpha_plot_draws_alpha_min_as_a_rule_in_the_frame_even_above_every_alpha():
    """Every alpha here lies between 0 and 1, so 0.9 is above them all: the frame stretches
    to show the rule, which lies where the y axis puts 0.9."""
    table = ratings()
    points = [alpha_point(table, "interval", {"w5"}, NOW, resamples=20)]
    plot = alpha_plot(points, alpha_min=0.9)
    ((rule_y, label),) = plot.rules
    assert label == "alpha_min 0.900"
    (top_y, top), (bottom_y, bottom) = (
        (plot.y_labels[-1][0], float(plot.y_labels[-1][1])),
        (plot.y_labels[0][0], float(plot.y_labels[0][1])),
    )
    assert bottom <= 0.9 <= top
    assert rule_y == pytest.approx(bottom_y + (top_y - bottom_y) * (0.9 - bottom) / (top - bottom))
    low = alpha_plot(points, alpha_min=-0.5)
    assert float(low.y_labels[0][1]) == -0.5  # below every alpha: the frame reaches it too


def test_control_results_measure_each_control_against_what_a_careful_worker_answers():
    rows = pd.DataFrame(
        [
            {"item_id": "p1", "worker_id": "w1", "value": 4.0, "role": "item"},
            {"item_id": "p1", "worker_id": "w1", "value": 6.0, "role": "repeat"},
            {"item_id": "p1", "worker_id": "w2", "value": 5.0, "role": "item"},
            {"item_id": "p1", "worker_id": "w2", "value": 5.0, "role": "repeat"},
            {"item_id": "same", "worker_id": "w1", "value": 10.0, "role": "identical"},
            {"item_id": "same", "worker_id": "w2", "value": 7.0, "role": "identical"},
            {"item_id": "g1", "worker_id": "w1", "value": 3.0, "role": "gold"},
        ]
    )
    results = {r.role: r for r in control_results(rows, {"g1": 2.0}, top=10.0)}
    assert set(results) == {"gold", "identical", "repeat"}
    assert results["identical"].error == pytest.approx(1.5)  # |10-10| and |7-10|
    assert results["repeat"].error == pytest.approx(1.0)  # |6-4| and |5-5|
    assert results["gold"].error == pytest.approx(1.0) and results["gold"].workers == 1
    assert results["repeat"].showings == 2


def _two_arms() -> pd.DataFrame:
    a = ratings(0).assign(arm="a")
    b = ratings(1).assign(arm="b", worker_id=lambda t: "b-" + t["worker_id"])
    return pd.concat([a, b], ignore_index=True)


def test_in_a_study_with_arms_alpha_is_each_arms_and_never_pooled():
    table = _two_arms()
    point = alpha_point(table, "interval", {"w5"}, NOW, resamples=50, arms=["a", "b"])
    assert point.everyone == NO_ALPHA and point.screened == NO_ALPHA
    assert [a.arm for a in point.arms] == ["a", "b"]
    for arm in point.arms:
        rows = table[table["arm"] == arm.arm]
        assert arm.judgments == len(rows)
        assert arm.everyone.alpha == pytest.approx(krippendorff_alpha(rows, "interval"))
        kept = rows[rows["worker_id"] != "w5"]
        assert arm.screened.alpha == pytest.approx(krippendorff_alpha(kept, "interval"))
    assert point.arms[0].screened.alpha > point.arms[0].everyone.alpha  # w5 answers at random
    plot = alpha_plot([point])
    assert plot.lines["arm:a"] and plot.lines["arm-screened:b"] and not plot.lines["everyone"]


def test_each_arms_progress_counts_its_raters_per_item_with_items_nobody_rated():
    rows = pd.DataFrame(
        [
            ("a", "i1", "w1"),
            ("a", "i1", "w2"),
            ("a", "i2", "w1"),
            ("a", "i1", "w1"),
            ("b", "i1", "w3"),
        ],
        columns=["arm", "item_id", "worker_id"],
    )
    items = {"a": {"i1", "i2", "i3"}, "b": {"i1", "i2", "i3"}, "c": {"i1"}}
    a, b, c = arm_progress(rows, items, target=2)
    assert (a.workers, a.judgments, a.items, a.at_target) == (2, 4, 3, 1)
    assert (a.raters_min, a.raters_median, a.raters_max) == (0, 1.0, 2)
    assert (b.workers, b.at_target, b.raters_max) == (1, 0, 1)
    assert (c.workers, c.judgments, c.items, c.raters_max) == (0, 0, 1, 0)
