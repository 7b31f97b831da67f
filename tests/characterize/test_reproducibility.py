"""Reproducibility of a simulated WS353 reproduction against WS353, against scipy/numpy."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from harness.characterize import MIN_SHARED_ITEMS, reproducibility
from harness.errors import InputError


def _mean_sd(table):
    groups = table.groupby("item_id")["value"]
    return groups.mean(), groups.apply(lambda v: float(np.std(v.to_numpy(), ddof=1)))


def test_reproducibility_figures_match_scipy_on_shared_items(reproduction_table, ws353_table):
    r = reproducibility(reproduction_table, ws353_table, resamples=100)
    m_new, s_new = _mean_sd(reproduction_table)
    m_old, s_old = _mean_sd(ws353_table)
    ids = sorted(set(m_new.index) & set(m_old.index))
    assert r.overlap.n_shared == len(ids) == 353
    assert r.spearman_means == pytest.approx(stats.spearmanr(m_new[ids], m_old[ids])[0])
    assert r.pearson_means == pytest.approx(stats.pearsonr(m_new[ids], m_old[ids])[0])
    assert r.pearson_sds == pytest.approx(stats.pearsonr(s_new[ids], s_old[ids])[0])
    assert r.mean_sd_new == pytest.approx(s_new[ids].mean())
    assert r.sd_sd_original == pytest.approx(np.std(s_old[ids].to_numpy(), ddof=0))
    change = (m_new[ids] - m_old[ids]).abs().sort_values()
    most, least = r.most_changed("mean_change"), r.least_changed("mean_change")
    assert abs(most["mean_change"].iloc[0]) == pytest.approx(change.iloc[-1])
    assert abs(least["mean_change"].iloc[0]) == pytest.approx(change.iloc[0])
    assert list(abs(most["mean_change"])) == pytest.approx(list(change.iloc[::-1][:5]))


def test_alpha_of_each_side_is_computed_on_the_shared_items_only(reproduction_table, ws353_table):
    half = sorted(ws353_table["item_id"].unique())[:200]
    new = reproduction_table[reproduction_table["item_id"].isin(half)]
    r = reproducibility(new, ws353_table, resamples=50)
    assert r.overlap.n_shared == 200 and r.overlap.n_original == 353
    assert r.alpha_original.n_items == 200
    assert r.alpha_new.n_items == 200


def test_too_few_shared_items_are_refused_with_the_overlap_and_the_minimum(
    reproduction_table, ws353_table
):
    few = sorted(ws353_table["item_id"].unique())[: MIN_SHARED_ITEMS - 1]
    new = reproduction_table[reproduction_table["item_id"].isin(few)]
    with pytest.raises(InputError) as error:
        reproducibility(new, ws353_table, new_name="new.csv", original_name="WS353")
    message = str(error.value)
    assert f"share {MIN_SHARED_ITEMS - 1} item(s)" in message
    assert f"new.csv has {MIN_SHARED_ITEMS - 1}, WS353 has 353" in message
    assert f"at least {MIN_SHARED_ITEMS} shared items are needed" in message
