"""Systems on WS353 and a simulated reproduction, each figure against scipy/numpy, and the
WS353 system adapter. The two MiniLM systems differ by about 0.01 in rho against WS353."""

from __future__ import annotations

import math
import warnings
from itertools import combinations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from harness.characterize import instrument_systems
from harness.characterize.systems import check_system_items
from harness.datasets.systems import read_system
from harness.errors import DatasetError, InputError
from tests.characterize import factories
from tests.factories import WS353_SYSTEMS_DIR


def _steiger_1980(r_jk, r_jh, r_kh, n):
    """Steiger (1980), eq. 14 with pooled r (Psychological Bulletin 87(2), p. 247)."""
    rm = (r_jk + r_jh) / 2
    psi = r_kh * (1 - 2 * rm**2) - 0.5 * rm**2 * (1 - 2 * rm**2 - r_kh**2)
    c = psi / (1 - rm**2) ** 2
    z = (np.arctanh(r_jk) - np.arctanh(r_jh)) * math.sqrt(n - 3) / math.sqrt(2 - 2 * c)
    return z, 2 * stats.norm.sf(abs(z))


def test_rho_per_rater_rho_t_tests_and_steiger_match_scipy(any_table, system_scores):
    got = instrument_systems(any_table, system_scores)
    means = any_table.groupby("item_id")["value"].mean()
    for name, scores in system_scores.items():
        assert got.rho[name] == pytest.approx(stats.spearmanr(means, scores[means.index])[0])
    per_rater = {}
    for worker, rows in any_table.groupby("worker_id"):
        own = rows.groupby("item_id")["value"].mean()
        if len(own) >= 5 and own.nunique() > 1:
            with warnings.catch_warnings():  # a system constant on the rater's items: NaN
                warnings.simplefilter("ignore", stats.ConstantInputWarning)
                per_rater[worker] = {
                    n: stats.spearmanr(own, s[own.index])[0] for n, s in system_scores.items()
                }
    expected = pd.DataFrame(per_rater).T
    for name in system_scores:
        assert got.per_rater_stats.at[name, "mean"] == pytest.approx(expected[name].mean())
        assert got.per_rater_stats.at[name, "sd"] == pytest.approx(expected[name].std(ddof=1))
        assert got.per_rater_stats.at[name, "min"] == pytest.approx(expected[name].min())
    for row in got.t_tests.itertuples():
        both = expected[[row.a, row.b]].dropna()
        t, p = stats.ttest_rel(both[row.b], both[row.a])
        assert (row.t_paired, row.p_paired, row.df_paired) == pytest.approx((t, p, len(both) - 1))
        own_a, own_b = expected[row.a].dropna(), expected[row.b].dropna()
        t, p = stats.ttest_ind(own_b, own_a, equal_var=True)
        assert (row.t_student, row.p_student) == pytest.approx((t, p))
        assert row.df_student == len(own_a) + len(own_b) - 2
    for row in got.steiger.itertuples():
        r_ab = stats.spearmanr(
            system_scores[row.a][means.index], system_scores[row.b][means.index]
        )[0]
        # stored signed like rho B - rho A, so with B as Steiger's first correlation
        z, p = _steiger_1980(got.rho[row.b], got.rho[row.a], r_ab, len(means))
        assert (row.z, row.p) == pytest.approx((z, p))


def test_distance_correlation_over_item_pairs_above_each_threshold(ws353_table, system_scores):
    got = instrument_systems(ws353_table, system_scores, resolution=0.45)
    means = ws353_table.groupby("item_id")["value"].mean()
    thresholds = sorted(got.distance["threshold"].unique())
    assert thresholds == pytest.approx([0, 0.45, 0.9, 1.8, 2.7, 3.6])
    i, j = zip(*combinations(range(len(means)), 2), strict=True)
    dm = means.to_numpy()[list(i)] - means.to_numpy()[list(j)]
    for name, scores in system_scores.items():
        s = scores[means.index].to_numpy()
        ds = s[list(i)] - s[list(j)]
        for t in thresholds:
            keep = np.abs(dm) >= t - 1e-9
            row = got.distance[
                (got.distance["system"] == name) & (got.distance["threshold"] == t)
            ].iloc[0]
            assert row["n_pairs"] == keep.sum()
            assert row["r"] == pytest.approx(np.corrcoef(dm[keep], ds[keep])[0, 1])


def test_ws353_cannot_tell_the_two_minilm_systems_apart(ws353_table, system_scores):
    got = instrument_systems(ws353_table, system_scores)
    assert got.rho["minilm"] == pytest.approx(0.729, abs=5e-4)  # the systems README
    assert got.rho["minilm_frame"] == pytest.approx(0.740, abs=5e-4)
    verdict = got.verdicts.set_index(["a", "b"]).loc[("minilm", "minilm_frame")]
    assert verdict["difference"] == pytest.approx(0.0107, abs=5e-4)
    # Told apart by harness's test of two Spearman rhos, whose standard error here is 0.019
    # (an item bootstrap gives the same); Steiger's test, made for Pearson's r, would take
    # 0.016 and claim 0.031 suffices. This pair needs 0.038.
    assert verdict["r_ab"] == pytest.approx(0.895, abs=5e-4)
    assert verdict["se"] == pytest.approx(0.019, abs=5e-4)
    assert verdict["mrds"] == pytest.approx(0.038, abs=5e-4)
    assert verdict["difference"] < verdict["mrds"]
    assert verdict["p"] > 0.05 and not verdict["distinguishable"]
    assert verdict["z"] > 0  # signed like the difference
    for row in got.verdicts.itertuples():  # below what it needs exactly when not told apart
        assert (abs(row.difference) >= row.mrds) == row.distinguishable
    assert got.verdicts.set_index(["a", "b"]).loc[("minilm", "char3gram")]["distinguishable"]


def test_the_ws353_adapter_maps_rows_to_item_ids_and_checks_words(ws353_dir, tmp_path):
    items = factories.ws353().items
    scores = read_system(WS353_SYSTEMS_DIR / "minilm.csv", lambda: items)
    assert len(scores) == 353
    assert scores.index[2] == "ws353-003"
    assert scores.iloc[2] == 1.0  # (tiger, tiger)
    wrong = tmp_path / "wrong.csv"
    wrong.write_text("row,word1,word2,score\n1,love,sex,0.5\n2,tiger,dog,0.4\n")
    with pytest.raises(
        DatasetError,
        match=r"wrong.csv:3: row 2 has words \('tiger', 'dog'\), "
        r"but WS353 row 2 is \('tiger', 'cat'\)",
    ):
        read_system(wrong, lambda: items)


def test_a_system_missing_items_is_refused_naming_the_file(system_scores):
    partial = system_scores["minilm"].drop(["ws353-010", "ws353-011"])
    with pytest.raises(
        InputError,
        match=r"sys.csv: system 'minilm' has no score for 2 of the "
        r"353 items of WS353 \(ws353-010, ws353-011\)",
    ):
        check_system_items(
            partial,
            list(system_scores["minilm"].index),
            system="minilm",
            instrument="WS353",
            source="sys.csv",
        )


def test_per_rater_rho_equals_scipy_per_rater_with_repeats_constants_and_missing_scores():
    rng = np.random.default_rng(5)
    items = [f"i{k:02d}" for k in range(30)]
    rows = []
    for w in range(12):
        rated = rng.choice(items, size=[3, 4, 5, 6, 12, 30][w % 6], replace=False)
        for item in rated:
            value = 4.0 if w == 10 else float(rng.integers(0, 11))  # rater 10 never varies
            rows.append((item, f"w{w:02d}", value))
            if w == 8:  # rater 8 rated every item twice: the mean of the two counts
                rows.append((item, f"w{w:02d}", float(rng.integers(0, 11))))
    table = pd.DataFrame(rows, columns=["item_id", "worker_id", "value"])
    scores = {
        "a": pd.Series(rng.normal(size=30), index=items),
        "b": pd.Series(rng.integers(0, 3, 30).astype(float), index=items),  # ties
    }
    scores["b"].iloc[[0, 5]] = np.nan  # no score: left out of that system's rhos
    got = instrument_systems(table, scores).per_rater
    expected = {}
    for worker, rated in table.groupby("worker_id"):
        own = rated.groupby("item_id")["value"].mean()
        if len(own) < 5:
            continue
        expected[worker] = {}
        for name, s in scores.items():
            a, b = own.to_numpy(), s[own.index].to_numpy()
            ok = ~np.isnan(b)
            a, b = a[ok], b[ok]
            constant = len(a) < 3 or np.ptp(a) == 0 or np.ptp(b) == 0
            expected[worker][name] = np.nan if constant else stats.spearmanr(a, b).statistic
    expected_table = pd.DataFrame(expected).T
    assert got.index.tolist() == sorted(expected)
    assert got["a"].to_numpy() == pytest.approx(expected_table["a"].to_numpy(), nan_ok=True)
    assert got["b"].to_numpy() == pytest.approx(expected_table["b"].to_numpy(), nan_ok=True)
    assert got.loc["w10"].isna().all()


def test_both_t_tests_over_ws353s_13_raters_paired_and_students_unpaired(
    ws353_table, system_scores
):
    # The WS353 study's Table 3 compares systems with Student's unpaired t over its 13 raters;
    # harness reports it beside the paired t (the same 13 people rated for both systems).
    thirteen = ws353_table[ws353_table["worker_id"] <= "ws353-r13"]
    got = instrument_systems(thirteen, system_scores)
    row = got.t_tests.set_index(["a", "b"]).loc[("minilm", "minilm_frame")]
    a, b = got.per_rater["minilm"].to_numpy(), got.per_rater["minilm_frame"].to_numpy()
    pooled = math.sqrt(((len(a) - 1) * a.var(ddof=1) + (len(b) - 1) * b.var(ddof=1)) / 24)
    student = (b.mean() - a.mean()) / (pooled * math.sqrt(1 / 13 + 1 / 13))
    paired = (b - a).mean() / ((b - a).std(ddof=1) / math.sqrt(13))
    assert row["n_raters_a"] == row["n_raters_b"] == row["n_raters"] == 13
    assert row["t_student"] == pytest.approx(student) and row["df_student"] == 24
    assert row["p_student"] == pytest.approx(2 * stats.t.sf(abs(student), 24))
    assert row["t_paired"] == pytest.approx(paired) and row["df_paired"] == 12
    # Pairing removes the between-rater spread that both systems share: a far larger t.
    assert abs(row["t_paired"]) > 5 * abs(row["t_student"])
