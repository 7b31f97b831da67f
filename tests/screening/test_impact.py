"""`screening_impact`: every subset of the heuristics, with figures checked independently."""

from __future__ import annotations

import dataclasses

import pandas as pd
import pytest
from scipy import stats

from harness.datasets import load_ws353
from harness.screening import ScreeningContext, screen_workers
from harness.screening.impact import screening_impact
from harness.simulate import Crowd, simulate_judgments
from harness.spec import load_spec
from harness.stats import krippendorff_alpha
from tests.factories import TASK_SPECS, WS353_DIR, WS353_SYSTEMS_DIR

SPEC = TASK_SPECS / "ws353_reproduction.yaml"
MIX = {"careful": 0.7, "spammer": 0.1, "straight_liner": 0.1, "backwards": 0.1}


@pytest.fixture(scope="module")
def study():
    loaded = load_spec(SPEC)
    truths = load_ws353(WS353_DIR).judgments.groupby("item_id")["value"].mean().iloc[:120]
    table = simulate_judgments(truths, loaded.scale, Crowd(MIX, 20, seed=3), 8, 30, seed=3)
    return loaded, table.drop(columns="true_archetype")


def _system(name: str) -> pd.DataFrame:
    table = pd.read_csv(WS353_SYSTEMS_DIR / f"{name}.csv")
    return table.assign(item_id=[f"ws353-{r:03d}" for r in table["row"]])


def test_every_subset_of_the_policy_heuristics_gets_a_row_after_no_screening(study):
    loaded, table = study
    impact = screening_impact(table, ScreeningContext.from_spec(loaded))
    names = list(loaded.spec.screening)  # five heuristics: 32 subsets
    assert len(impact) == 2 ** len(names) and impact["label"].iloc[0] == "none"
    assert impact["size"].is_monotonic_increasing and impact["alpha_change"].iloc[0] == 0
    (policy,) = impact.index[impact["policy"]]
    assert set(impact.loc[policy, "subset"]) == {
        "low_variance",
        "low_correlation",
        "consensus_correlation",
    }


def test_a_subset_removes_exactly_the_workers_its_heuristics_flag(study):
    loaded, table = study
    context = ScreeningContext.from_spec(loaded)
    impact = screening_impact(table, context, heuristics=["H3", "H8"]).set_index("label")
    report = screen_workers(table, context, ["H3", "H8"])
    removed = set(report.workers[report.flagged])  # both block in the spec
    kept = table[~table["worker_id"].isin(removed)]
    row = impact.loc["H3+H8"]
    assert row["workers_removed"] == len(removed) > 0
    assert row["workers_kept"] == kept["worker_id"].nunique()
    assert row["judgments_kept"] == len(kept)
    assert row["alpha"] == pytest.approx(krippendorff_alpha(kept))
    assert row["alpha_change"] == pytest.approx(row["alpha"] - impact.loc["none", "alpha"])


def test_rho_is_spearman_of_the_system_with_the_item_means_that_are_left(study):
    loaded, table = study
    systems = {"minilm": _system("minilm"), "char3gram": _system("char3gram")}
    impact = screening_impact(
        table, ScreeningContext.from_spec(loaded), systems, heuristics=["H8"]
    ).set_index("label")
    means = table.groupby("item_id")["value"].mean()
    minilm = systems["minilm"].set_index("item_id")["score"].reindex(means.index)
    expected = stats.spearmanr(means, minilm).statistic
    assert impact.loc["none", "rho:minilm"] == pytest.approx(expected)
    assert impact.loc["H8", "rho:minilm"] > impact.loc["none", "rho:minilm"]
    assert {"rho:char3gram", "rho_change:char3gram"} <= set(impact.columns)


def test_report_only_extremes_are_refused_as_screening_heuristics(study):
    loaded, table = study
    with pytest.raises(KeyError, match="radical"):
        screening_impact(table, ScreeningContext.from_spec(loaded), heuristics=["radical"])


def test_without_a_policy_only_the_heuristics_that_flag_someone_get_subsets(study):

    loaded, table = study
    context = dataclasses.replace(ScreeningContext.from_spec(loaded), policy={})
    impact = screening_impact(table, context)
    used = {key for subset in impact["subset"] for key in subset}
    assert len(impact) == 2 ** len(used) and 0 < len(used) <= 10
    flagged = screen_workers(table, context, sorted(used)).results
    assert all(frame["flag"].any() for frame in flagged.values())
    with pytest.raises(ValueError, match="at most 10 heuristics"):
        screening_impact(table, context, heuristics=[f"H{k}" for k in range(1, 14)])
