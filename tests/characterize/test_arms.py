"""The comparison of arms (issue #18), each figure against an independent computation: the
`krippendorff` package, a brute-force weighted pair sum, pandas, scipy and the stated
formulas; and on simulated studies, arms that differ are told apart and arms that do not are
not."""

from __future__ import annotations

import itertools
import math

import krippendorff
import numpy as np
import pandas as pd
import pytest
from scipy import stats

from harness.characterize.arm_alpha import ArmValues
from harness.characterize.arm_bootstrap import two_way_bootstrap
from harness.characterize.arm_relabel import relabeling_test
from harness.characterize.arms import compare_arms, raters_needed, spearman_interval
from harness.errors import JudgmentsError, StatsError
from harness.simulate.arms import simulate_arms


def _reliability_data(table: pd.DataFrame) -> np.ndarray:
    """workers x units matrix for the krippendorff package (NaN: no value)."""
    return table.pivot_table(index="worker_id", columns="unit", values="value").to_numpy()


def _small(seed: int = 0, n_items: int = 7, workers: int = 5) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for w in range(workers):
        for u in range(n_items):
            if rng.random() < 0.8:
                rows.append({"unit": u, "worker_id": f"w{w}", "value": float(rng.integers(1, 6))})
    table = pd.DataFrame(rows)
    counts = table.groupby("unit").size()
    return table[table["unit"].map(counts) >= 2].reset_index(drop=True)


def _arm_values(table: pd.DataFrame, level: str) -> ArmValues:
    units = pd.factorize(table["unit"], sort=True)[0]
    return ArmValues.build(
        units, table["worker_id"].to_numpy(), table["value"].to_numpy(), int(units.max()) + 1, level
    )


@pytest.mark.parametrize("level", ["interval", "ordinal", "nominal"])
def test_with_every_weight_one_a_resample_is_krippendorffs_alpha(level):
    table = _small()
    arm = _arm_values(table, level)
    ones = arm.alphas(np.ones((1, arm.n_units)), np.ones((1, arm.n_workers)))[0]
    expected = krippendorff.alpha(_reliability_data(table), level_of_measurement=level)
    assert ones == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("level", ["interval", "nominal"])
def test_drawing_an_item_twice_is_alpha_of_the_table_with_the_item_copied(level):
    table = _small(seed=3)
    arm = _arm_values(table, level)
    counts = np.zeros((1, arm.n_units))
    counts[0, [0, 0, 2, 3, 3, 3, 5]] = 0
    np.add.at(counts[0], [0, 0, 2, 3, 3, 3, 5], 1)
    expanded = pd.concat(
        [
            table[table["unit"] == u].assign(unit=f"{u}-{k}")
            for u in range(arm.n_units)
            for k in range(int(counts[0, u]))
        ]
    )
    expected = krippendorff.alpha(_reliability_data(expanded), level_of_measurement=level)
    got = arm.alphas(counts, np.ones((1, arm.n_workers)))[0]
    assert got == pytest.approx(expected, abs=1e-12)


def test_weighted_workers_match_a_brute_force_sum_over_pairs():
    """The weighted interval alpha written out pair by pair (module docstring of
    arm_bootstrap): pairs of two different values weighted by the product of weights."""
    table = _small(seed=5)
    arm = _arm_values(table, "interval")
    rng = np.random.default_rng(1)
    c = rng.integers(0, 3, arm.n_units).astype(float)
    v = rng.exponential(1.0, arm.n_workers)
    x = table["value"].to_numpy()
    unit = pd.factorize(table["unit"], sort=True)[0]
    wv = v[arm.worker]
    do_num = do_den = 0.0
    for u in range(arm.n_units):
        rows = np.flatnonzero(unit == u)
        pairs = [(i, j) for i, j in itertools.permutations(rows, 2)]
        mass = sum(wv[i] * wv[j] for i, j in pairs)
        if mass == 0:
            continue
        d = sum(wv[i] * wv[j] * (x[i] - x[j]) ** 2 for i, j in pairs) / mass
        do_num += c[u] * wv[rows].sum() * d
        do_den += c[u] * wv[rows].sum()
    expanded = [(i, k) for i in range(len(x)) for k in range(int(c[unit[i]]))]
    num = den = 0.0
    for (i, _a), (j, _b) in itertools.permutations(expanded, 2):
        num += wv[i] * wv[j] * (x[i] - x[j]) ** 2
        den += wv[i] * wv[j]
    expected = 1 - (do_num / do_den) / (num / den)
    assert arm.alphas(c[None, :], v[None, :])[0] == pytest.approx(expected, rel=1e-10)


@pytest.fixture(scope="module")
def noisy():
    """Arm b's raters are noisier (sd 2.5 against 1.0): 80 items, 5 raters per item per arm."""
    return simulate_arms({"a": 1.0, "b": 2.5}, items=80, raters_per_item=5, seed=11)


def test_each_arms_figures_match_independent_computations(noisy):
    screened = {"b-h0-r0", "a-h1-r2", "a-h2-r4"}
    result = compare_arms(noisy, screened=screened, resamples=200, seed=2)
    kept = noisy[~noisy["worker_id"].isin(screened)]
    for summary in result.arms:
        rows = kept[kept["arm"] == summary.arm].rename(columns={"item_id": "unit"})
        assert summary.alpha == pytest.approx(
            krippendorff.alpha(_reliability_data(rows), level_of_measurement="interval"),
            abs=1e-12,
        )
        assert summary.item_sd == pytest.approx(rows.groupby("unit")["value"].std().mean())
        assert summary.seconds_per_item == pytest.approx(rows["seconds"].median())
        assert summary.ci_low < summary.alpha < summary.ci_high
        assert summary.items == 80 and summary.workers == 20 - (2 if summary.arm == "a" else 1)
    assert [a.screened_share for a in result.arms] == [2 / 20, 1 / 20]
    # each arm's interval: percentiles of its alpha over the bootstrap of items
    for j, summary in enumerate(result.arms):
        expected = tuple(np.percentile(result.samples[:, j], [2.5, 97.5]))
        assert (summary.ci_low, summary.ci_high) == pytest.approx(expected)
    (diff,) = result.differences
    assert diff.difference == pytest.approx(result.arms[1].alpha - result.arms[0].alpha)
    # the difference's interval and p from the relabeling test of the two arms' values
    codes = {item: i for i, item in enumerate(sorted(kept["item_id"].unique()))}
    test = relabeling_test(
        kept["item_id"].map(codes).to_numpy(),
        kept["worker_id"].to_numpy(),
        kept["value"].to_numpy(),
        (kept["arm"] == "b").to_numpy(),
        len(codes),
        "interval",
        1000,
        0.95,
        np.random.default_rng([2, 1]),
    )
    assert (diff.ci_low, diff.ci_high, diff.p_value) == pytest.approx(
        (test.ci_low, test.ci_high, test.p)
    )
    assert diff.method == "relabel" and result.relabelings == 1000
    # the power figure uses the standard error the interval implies
    assert diff.se == pytest.approx((diff.ci_high - diff.ci_low) / (2 * 1.959963984540054))
    assert diff.raters_needed == raters_needed(diff.difference, diff.se, 5, 0.95, 0.8)
    means = kept.groupby(["arm", "item_id"])["value"].mean().unstack("arm")
    assert diff.rho == pytest.approx(stats.spearmanr(means["a"], means["b"]).statistic)


def test_the_bootstrap_differences_stay_as_named_options(noisy):
    items = compare_arms(noisy, resamples=200, seed=2, difference="items")
    both = compare_arms(noisy, resamples=200, seed=2, difference="items-workers")
    for result in (items, both):
        (diff,) = result.differences
        samples = result.samples[:, 1] - result.samples[:, 0]
        assert (diff.ci_low, diff.ci_high) == pytest.approx(
            tuple(np.percentile(samples, [2.5, 97.5]))
        )
        assert diff.se == pytest.approx(samples.std(ddof=1)) and diff.p_value is None
    # reweighting workers on top of the same item draws widens every interval
    assert both.arms[0].ci_high - both.arms[0].ci_low > items.arms[0].ci_high - items.arms[0].ci_low
    wide, narrow = both.differences[0], items.differences[0]
    assert wide.ci_high - wide.ci_low > narrow.ci_high - narrow.ci_low


@pytest.mark.parametrize("level", ["ordinal", "nominal"])
def test_ordinal_and_nominal_arms_are_compared_at_their_level(noisy, level):
    result = compare_arms(noisy, level=level, resamples=50, relabelings=200)
    a, b = (
        krippendorff.alpha(
            _reliability_data(noisy[noisy["arm"] == arm].rename(columns={"item_id": "unit"})),
            level_of_measurement=level,
        )
        for arm in "ab"
    )
    (diff,) = result.differences
    assert diff.difference == pytest.approx(b - a, abs=1e-12)
    assert diff.ci_low < diff.difference < diff.ci_high


def test_a_noisier_arm_is_told_apart_with_a_plain_verdict(noisy):
    result = compare_arms(noisy, resamples=300, seed=0)
    (diff,) = result.differences
    assert diff.distinguishable and diff.ci_high < 0
    assert diff.verdict.startswith("arm b is less reliable than a: difference -0.")
    assert diff.raters_needed is not None and diff.raters_needed <= 5


def test_arms_that_do_not_differ_are_not_told_apart():
    same = simulate_arms({"a": 1.5, "b": 1.5}, items=60, raters_per_item=4, seed=4)
    (diff,) = compare_arms(same, resamples=300, seed=0).differences
    assert not diff.distinguishable
    assert diff.verdict.startswith("arms b and a are not distinguishable with this many raters")


def test_with_three_workers_per_arm_the_verdict_says_relabeling_cannot_reach_the_level():
    """3 + 3 workers allow 20 splits, so no p-value falls below 2 / 20; 5 + 5 allow 252."""
    few = simulate_arms({"a": 0.5, "b": 3.0}, items=20, raters_per_item=3, items_per_hit=20, seed=1)
    (diff,) = compare_arms(few, resamples=20, relabelings=400).differences
    assert diff.too_few_workers and not diff.distinguishable and diff.p_value >= 0.1
    assert diff.verdict.endswith(
        "; too few workers to tell arms apart by relabeling them at this level"
    )
    more = simulate_arms(
        {"a": 0.5, "b": 3.0}, items=20, raters_per_item=5, items_per_hit=20, seed=1
    )
    (diff,) = compare_arms(more, resamples=20, relabelings=400).differences
    assert not diff.too_few_workers and diff.distinguishable and diff.p_value < 0.05


@pytest.mark.slow
def test_over_seeds_equal_arms_are_rarely_told_apart_and_a_noisier_arm_mostly_is():
    """30 small studies of each kind (30 items, 4 raters per item per arm, HITs of 10): at 95%
    the relabeling test calls about 1.5 of the equal pairs different (3 allowed), and tells
    noise sd 2.5 from 1.5 in about three quarters (18 required; the items-and-workers bootstrap
    manages about half)."""

    def told(noise_b: float) -> int:
        return sum(
            compare_arms(
                simulate_arms(
                    {"a": 1.5, "b": noise_b},
                    items=30,
                    raters_per_item=4,
                    items_per_hit=10,
                    seed=seed,
                ),
                resamples=10,
                relabelings=200,
                seed=seed,
            )
            .differences[0]
            .distinguishable
            for seed in range(30)
        )

    assert told(1.5) <= 3
    assert told(2.5) >= 18


def test_the_comparison_repeats_for_a_seed_and_resamples_items_jointly(noisy):
    first = compare_arms(noisy, resamples=50, relabelings=100, seed=9)
    again = compare_arms(noisy, resamples=50, relabelings=100, seed=9)
    assert np.array_equal(first.samples, again.samples)
    assert first.differences == again.differences
    one = first.samples
    # jointly: the arms' alphas move together across resamples (shared item draws)
    assert np.corrcoef(one[:, 0], one[:, 1])[0, 1] > 0


def test_spearman_interval_is_fisher_z_with_the_fieller_standard_error():
    rng = np.random.default_rng(0)
    x = rng.normal(size=30)
    y = x + rng.normal(size=30)
    rho, low, high = spearman_interval(x, y, 0.95)
    assert rho == pytest.approx(stats.spearmanr(x, y).statistic)
    half = 1.959963984540054 * math.sqrt(1.06 / 27)
    assert (low, high) == pytest.approx(
        (math.tanh(math.atanh(rho) - half), math.tanh(math.atanh(rho) + half))
    )


def test_raters_needed_is_the_normal_approximation_stated():
    # d = 0.05, se 0.04 at 5 raters: 5 * (0.04 * (1.96 + 0.8416) / 0.05)^2 = 25.1 -> 26
    assert raters_needed(0.05, 0.04, 5, 0.95, 0.8) == 26
    assert raters_needed(0.0, 0.04, 5, 0.95, 0.8) is None
    assert raters_needed(1e-6, 0.04, 5, 0.95, 0.8) is None  # beyond any sensible study


def test_a_reference_names_the_arm_that_reproduces_it_best(noisy):
    truths = simulate_arms({"t": 0.0}, items=80, raters_per_item=1, bias_sd=0.0, seed=11)
    # the same seed draws the same truths: the noiseless arm's values are the truths, rounded
    reference = dict(zip(truths["item_id"], truths["value"], strict=True))
    result = compare_arms(noisy, reference=reference, resamples=50, relabelings=50)
    assert result.best_reference == "a"
    fits = {f.arm: f for f in result.reference}
    assert fits["a"].rho > fits["b"].rho and fits["a"].p_vs_best is None
    assert 0 <= fits["b"].p_vs_best < 0.05


def test_missing_columns_and_too_few_arms_are_refused_with_what_to_do():
    with pytest.raises(JudgmentsError, match="missing column.s. arm; comparing arms needs"):
        compare_arms(pd.DataFrame({"item_id": [], "worker_id": [], "value": []}))
    one = simulate_arms({"a": 1.0}, items=10, seed=0)
    with pytest.raises(StatsError, match="needs two or more arms"):
        compare_arms(one)


def test_two_way_bootstrap_refuses_arms_with_different_items():
    a = ArmValues.build(
        np.array([0, 0, 1, 1]),
        np.array(["x", "y", "x", "y"]),
        np.array([1.0, 2.0, 3.0, 4.0]),
        2,
        "interval",
    )
    b = ArmValues.build(np.array([0, 0]), np.array(["x", "y"]), np.array([1.0, 2.0]), 1, "interval")
    with pytest.raises(StatsError, match="same items"):
        two_way_bootstrap([a, b], 10, np.random.default_rng(0))


def test_the_ws353_reference_is_its_published_means(ws353_dir):
    from harness.commands.compare_arms import _reference
    from harness.datasets import load_ws353

    reference = _reference("ws353")
    items = load_ws353().items
    assert len(reference) == 353
    assert reference["ws353-001"] == pytest.approx(float(items["published_mean"].iloc[0]))


def test_on_ws353_the_arm_with_less_noisy_raters_reproduces_the_published_means_best(ws353_dir):
    from harness.commands.compare_arms import _reference

    means = _reference("ws353")
    table = simulate_arms(
        {"original": 1.0, "short": 2.5}, items=means, raters_per_item=5, items_per_hit=30, seed=353
    )
    result = compare_arms(table, reference=means, resamples=100, relabelings=50)
    assert result.best_reference == "original"
    fits = {f.arm: f for f in result.reference}
    assert fits["original"].rho_low > fits["short"].rho
    assert fits["short"].p_vs_best < 0.001


def test_the_cost_of_a_reliable_item_mean_is_spearman_brown_times_the_cost_per_judgment(noisy):
    from harness.characterize.arms import cost_of_reliable_mean

    # alpha 0.5: one judgment's reliability; 0.8 needs k = 0.8 * 0.5 / (0.5 * 0.2) = 4 judgments
    assert cost_of_reliable_mean(0.5, 0.025) == pytest.approx(0.1)
    assert cost_of_reliable_mean(-0.1, 0.025) is None
    result = compare_arms(
        noisy, resamples=20, relabelings=20, cost_per_judgment={"a": 0.02, "b": 0.01}
    )
    a, b = result.arms
    assert a.cost_reliable == pytest.approx(0.8 * (1 - a.alpha) / (a.alpha * 0.2) * 0.02)
    assert b.cost_reliable == pytest.approx(0.8 * (1 - b.alpha) / (b.alpha * 0.2) * 0.01)
    assert compare_arms(noisy, resamples=20, relabelings=20).arms[0].cost_reliable is None
