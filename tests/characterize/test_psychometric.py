"""The resolution's design-free views: agreement per distance band, and the logistic
psychometric curve with a bootstrap interval of the distance where it reaches 95%, checked
against independent computations (scipy's optimizer for the maximum-likelihood fit, loops for
the bands)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from scipy.optimize import minimize
from scipy.special import expit

from harness.characterize import resolution
from harness.characterize.psychometric import bootstrap_indices, fit_logistic, psychometric
from tests.characterize import factories

LOGIT_95 = np.log(0.95 / 0.05)


def _scipy_fit(d: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Maximum likelihood of the logistic by a general optimizer (no Newton steps of ours)."""

    def loss(b: np.ndarray) -> float:
        z = b[0] + b[1] * d
        return float(np.sum(np.logaddexp(0, z) - y * z))

    def grad(b: np.ndarray) -> np.ndarray:
        r = expit(b[0] + b[1] * d) - y
        return np.array([r.sum(), (r * d).sum()])

    found = minimize(loss, np.zeros(2), jac=grad, method="BFGS", options={"gtol": 1e-10})
    return np.asarray(found.x)


def test_the_logistic_fit_matches_scipys_maximum_likelihood(resolution_table, ws353_dir):
    decisions = resolution(resolution_table, factories.ws353_means()).decisions
    d = decisions["distance"].to_numpy()
    y = decisions["agrees"].to_numpy(dtype=float)
    fitted = fit_logistic(d, y)
    assert fitted is not None
    assert fitted == pytest.approx(tuple(_scipy_fit(d, y)), abs=1e-4)


def test_d95_and_its_bootstrap_interval_match_refitting_every_resample_with_scipy():
    rng = np.random.default_rng(5)
    d = rng.uniform(0, 8, 120)
    y = (rng.random(120) < expit(-1.5 + 1.2 * d)).astype(float)
    curve = psychometric(d, y, resamples=40, seed=3)
    assert curve is not None
    b0, b1 = _scipy_fit(d, y)
    assert curve.d_target == pytest.approx((LOGIT_95 - b0) / b1, abs=1e-4)
    refits = [_scipy_fit(d[rows], y[rows]) for rows in bootstrap_indices(120, 40, 3)]
    d95 = [(LOGIT_95 - a) / b for a, b in refits]
    assert curve.failed == 0
    assert curve.ci == pytest.approx((np.percentile(d95, 2.5), np.percentile(d95, 97.5)), abs=1e-3)
    assert curve.at(np.array([curve.d_target]))[0] == pytest.approx(0.95)


def test_a_separable_or_uniform_outcome_has_no_curve():
    d = np.linspace(0, 5, 30)
    assert fit_logistic(d, (d > 2).astype(float)) is None  # the slope is infinite
    assert fit_logistic(d, np.ones(30)) is None
    assert fit_logistic(d, (d < 2).astype(float)) is None  # agreement falls with distance
    assert psychometric(d, np.zeros(30)) is None


def test_bands_count_every_decision_once_as_a_loop_does(resolution_table, ws353_dir):
    res = resolution(resolution_table, factories.ws353_means(), scale_range=10.0)
    rows = res.decisions
    assert res.bands["n"].sum() == len(rows)
    for band in res.bands.itertuples():
        inside = [r for r in rows.itertuples() if band.low - 1e-9 <= r.distance < band.high - 1e-9]
        assert band.n == len(inside)
        assert band.agree == sum(bool(r.agrees) for r in inside)
        assert band.equal == sum(r.decision == 0 for r in inside)
        assert band.reversed == sum(r.decision != 0 and not r.agrees for r in inside)
        assert band.agree + band.equal + band.reversed == band.n
    assert res.bands["high"].iloc[0] == pytest.approx(1.0)  # 10% of the 0-10 range


def test_the_resolution_json_holds_bands_and_the_curve(resolution_table, ws353_dir):
    res = resolution(resolution_table, factories.ws353_means())
    data = json.loads(json.dumps(res.to_dict()))
    assert data["bands"][0]["low"] == 0.0 and isinstance(data["bands"][0]["n"], int)
    assert data["psychometric"]["d_target"] == pytest.approx(res.psychometric.d_target)
    assert len(data["psychometric"]["ci"]) == 2


def test_fitting_the_resamples_in_chunks_changes_nothing(monkeypatch):
    from harness.characterize import psychometric as module

    rng = np.random.default_rng(8)
    d = rng.uniform(0, 8, 90)
    y = (rng.random(90) < expit(-1.0 + 1.0 * d)).astype(float)
    whole = psychometric(d, y, resamples=50)
    monkeypatch.setattr(module, "_CHUNK_VALUES", 90 * 7)  # 7 resamples at a time
    chunked = psychometric(d, y, resamples=50)
    assert whole is not None and chunked is not None
    assert chunked.ci == pytest.approx(whole.ci) and chunked.failed == whole.failed


def test_the_curves_interval_uses_the_characterizations_resamples_and_seed(
    resolution_table, ws353_dir
):
    means = factories.ws353_means()
    few = resolution(resolution_table, means, resamples=30, seed=4).psychometric
    again = resolution(resolution_table, means, resamples=30, seed=4).psychometric
    other = resolution(resolution_table, means, resamples=30, seed=5).psychometric
    assert few.resamples == 30 and few.ci == again.ci != other.ci
