"""The verdict's reliability rule says what it tests (issue 39): "as reliable" when the two
alphas' 95% intervals overlap, "more reliable" when the new one lies wholly above, failed when
it lies wholly below; and a reproduction of an instrument both of whose alphas are unreliable
says so."""

from __future__ import annotations

import pytest

from harness.report.verdict import Criterion, ReproductionVerdict, _compared

ORIGINAL, ORIGINAL_CI = 0.590, (0.552, 0.627)  # WS353, 13 raters


@pytest.mark.parametrize(
    ("new", "new_ci", "expected"),
    [
        (0.653, (0.617, 0.688), "as reliable"),  # the case: overlapping intervals
        (0.540, (0.500, 0.560), "as reliable"),  # lower, but not told apart
        (0.700, (0.650, 0.740), "more reliable"),
        (0.480, (0.440, 0.520), "less reliable"),
    ],
)
def test_reliability_compares_the_two_intervals(new, new_ci, expected):
    assert _compared(new, new_ci, ORIGINAL, ORIGINAL_CI) == expected


def test_without_intervals_the_alphas_themselves_are_compared():
    assert _compared(0.6, None, ORIGINAL, ORIGINAL_CI) == "more reliable"
    assert _compared(0.5, None, ORIGINAL, None) == "less reliable"


def _verdict(reliability: str, *, unreliable: bool, met: bool = True) -> ReproductionVerdict:
    criteria = [Criterion("reliability", "rule", "observed", met)]
    return ReproductionVerdict("new", "WS353", criteria, reliability, unreliable=unreliable)


def test_the_sentence_says_how_reliable_the_reproduction_is():
    assert _verdict("more reliable", unreliable=False).sentence() == (
        "Verdict: new reproduces WS353: it is more reliable, orders the items the same way and "
        "spreads as much (criteria below)."
    )


def test_reproducing_an_unreliable_instrument_is_said_to_be_that():
    assert _verdict("as reliable", unreliable=True).sentence() == (
        "Verdict: new reproduces WS353: it is as reliable, orders the items the same way and "
        "spreads as much, but both alphas are below 0.667: it reproduces an unreliable "
        "instrument (criteria below)."
    )


def test_a_less_reliable_instrument_does_not_reproduce():
    sentence = _verdict("less reliable", unreliable=True, met=False).sentence()
    assert sentence == (
        "Verdict: new does not reproduce WS353: the reliability criterion failed (criteria below)."
    )
