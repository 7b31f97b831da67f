"""Simulated pair comparisons: each rater perceives each pair with noise and says "equally
similar" within a band, fitted to the published study's worked examples.

The published figures (the resolution experiment on WS353, as issues 15 and 33 quote them): one
rater calls pairs 0.4 apart "equally similar" 80% of the time and names the more similar of
pairs 3.09 apart 92% of the time; on its uniform design 25% of the pairs of pairs are not
decided like the original (1 - agreement) and agreement reaches 95% at a distance of 1.8.
"""

from __future__ import annotations

import itertools
from math import prod

import numpy as np
import pandas as pd
import pytest

from harness.simulate import Archetype, Crowd, simulate_judgments
from harness.simulate.perception import (
    BAND,
    PERCEPTION,
    band_range,
    expected_decisions,
    expected_resolution,
    fit_worked_examples,
    plurality_chances,
    vote_probabilities,
)
from harness.simulate.truths import latent_truths
from harness.spec.model import ScaleSpec, StudyType
from harness.spec.scale import resolve_scale
from tests.characterize import factories

PAIRS = resolve_scale(StudyType.PAIR_COMPARISON, ScaleSpec())


def test_vote_chances_match_a_direct_simulation_of_two_noisy_perceptions():
    rng = np.random.default_rng(0)
    d, sd, band = 1.5, 1.76, (1.0, 1.8)
    n = 400_000
    perceived = d + rng.normal(0, sd, n) - rng.normal(0, sd, n)  # P and Q perceived apart
    own_band = rng.uniform(*band, n)
    right, wrong, equal = vote_probabilities(np.array([d]), sd, band)
    assert right[0] == pytest.approx((perceived >= own_band).mean(), abs=0.003)
    assert wrong[0] == pytest.approx((perceived <= -own_band).mean(), abs=0.003)
    assert equal[0] == pytest.approx((np.abs(perceived) < own_band).mean(), abs=0.003)


def test_expected_decisions_match_enumerating_every_vote_pattern():
    chances = (0.5, 0.2, 0.3)  # right, wrong, equal for one rater
    agree = reverse = 0.0
    for votes in itertools.product(range(3), repeat=5):  # 5 raters, every pattern
        p = prod(chances[v] for v in votes)
        counts = [votes.count(k) for k in range(3)]
        top = max(counts)
        if counts.count(top) == 1 and counts[0] == top:
            agree += p
        elif counts.count(top) == 1 and counts[1] == top:
            reverse += p
    got = plurality_chances(*(np.array([c]) for c in chances), 5)
    assert got.agree[0] == pytest.approx(agree)
    assert got.reversed[0] == pytest.approx(reverse)
    assert got.equal[0] == pytest.approx(1 - agree - reverse)


def test_a_careful_rater_answers_the_published_worked_examples():
    perception, centre = fit_worked_examples()
    assert (perception, centre) == pytest.approx((0.767, 1.522), abs=5e-4)
    assert (PERCEPTION * 10, BAND * 10) == pytest.approx((perception, centre), abs=0.005)
    right, _, equal = vote_probabilities(
        np.array([0.4, 3.09]), PERCEPTION * 10, band_range(BAND * 10)
    )
    assert equal[0] == pytest.approx(0.80, abs=0.005)  # published: 80% "equally similar"
    assert right[1] == pytest.approx(0.92, abs=0.005)  # published: 92% the right pair


def test_no_rater_of_this_model_gives_both_published_crowd_figures_on_the_uniform_design(
    ws353_dir,
):
    # The fitted rater gives 15.6% not decided like the original and a resolution of 1.2; for
    # 25% (published) the resolution is at least 2.1, above the published 1.8, whatever the
    # perception noise (scripts/calibrate_pair_comparison.py scans the whole family).
    design = factories.resolution_spec().items["distance"].to_numpy(dtype=float)
    fitted = expected_decisions(design, PERCEPTION * 10, band_range(BAND * 10), 13)
    assert 1 - fitted.agree.mean() == pytest.approx(0.156, abs=0.005)
    assert expected_resolution(design, fitted.agree) == pytest.approx(1.2)
    for sd in (0.5, 1.0, 1.5, 2.0):
        low, high = 0.0, 6.0
        for _ in range(30):  # the band at which 25% are not decided like the original
            band = (low + high) / 2
            e = expected_decisions(design, sd, band_range(band), 13)
            low, high = (band, high) if 1 - e.agree.mean() < 0.25 else (low, band)
        reached = expected_resolution(design, e.agree)
        assert reached is not None and reached > 1.8 + 1e-9


def test_a_simulated_careful_crowd_decides_as_expected_on_the_shipped_design(ws353_dir):
    from harness.characterize import resolution
    from harness.simulate.studies import simulate_spec_study

    loaded = factories.resolution_spec()
    distance = loaded.items["distance"].to_numpy(dtype=float)
    expected = expected_decisions(distance, PERCEPTION * 10, band_range(BAND * 10), 13)
    agreements = []
    for seed in range(3):
        table = simulate_spec_study(loaded, Crowd({"careful": 1.0}, size=30, seed=seed), seed=seed)
        agreements.append(resolution(table, factories.ws353_means()).agreement_all)
    # 3 x 200 pairs of pairs: the sd of the mean is about 0.013
    assert np.mean(agreements) == pytest.approx(expected.agree.mean(), abs=0.035)


def test_each_archetype_compares_pairs_as_its_name_says():
    differences = pd.Series(np.tile([-3.0, 3.0], 200), index=[f"p{k}" for k in range(400)])
    sign = np.sign(differences)

    def agreement(kind: Archetype) -> tuple[float, float]:
        table = simulate_judgments(differences, PAIRS, Crowd({kind: 1.0}, size=8, seed=1), 4, 50)
        right = (table["value"].to_numpy() == table["item_id"].map(sign).to_numpy()).mean()
        return float(right), float((table["value"] == 0).mean())

    careful, sloppy = agreement(Archetype.CAREFUL), agreement(Archetype.SLOPPY)
    backwards, radical = agreement(Archetype.BACKWARDS), agreement(Archetype.RADICAL)
    centrist, spammer = agreement(Archetype.CENTRIST), agreement(Archetype.SPAMMER)
    right, wrong, equal = vote_probabilities(
        np.array([3.0]), PERCEPTION * 10, band_range(BAND * 10)
    )
    assert careful[0] == pytest.approx(right[0], abs=0.04)
    assert sloppy[0] < careful[0] - 0.1
    assert backwards[0] < 0.2  # mostly the reverse
    assert radical[1] == 0.0 and centrist[1] > careful[1] + 0.2
    assert spammer[0] == pytest.approx(1 / 3, abs=0.06)


def test_simulate_workers_answers_a_pair_comparison_from_its_pairs_means():
    items = pd.DataFrame(
        {
            "item_id": ["pp-001", "pp-002"],
            "role": ["item", "item"],
            "p_mean": [8.0, 2.5],
            "q_mean": [1.0, 3.0],
        }
    )
    assert latent_truths(items, PAIRS, seed=0) == {"pp-001": 7.0, "pp-002": -0.5}
