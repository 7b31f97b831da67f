"""The order a self-contained page computes per worker (its script's algorithm, in Python).
That the browser computes the same order is checked by tests/web/test_browser.py."""

from __future__ import annotations

from collections import Counter

from scipy.stats import chisquare

from harness.render.client_order import client_order
from harness.render.plan import HitPlan
from harness.spec.model import OrderPolicy

PLAN = HitPlan(0, tuple(f"i{k}" for k in range(12)), ("i3", "i7"))


def test_the_same_worker_always_gets_the_same_order_and_others_another():
    first = client_order(PLAN, study_name="s", worker_id="W1", seed=1)
    assert first == client_order(PLAN, study_name="s", worker_id="W1", seed=1)
    assert first != client_order(PLAN, study_name="s", worker_id="W2", seed=1)
    assert first != client_order(PLAN, study_name="t", worker_id="W1", seed=1)
    assert first != client_order(PLAN, study_name="s", worker_id="W1", seed=2)


def test_every_showing_is_placed_once_and_repeats_are_kept_apart():
    for w in range(200):
        order = client_order(PLAN, study_name="s", worker_id=f"W{w}", min_gap=4)
        assert sorted(order) == sorted(PLAN.showings)
        for key in PLAN.repeated:
            first, second = (p for p, k in enumerate(order) if k == key)
            assert second - first - 1 >= 4


def test_a_hit_too_short_for_the_gap_shows_the_repeat_first_and_last():
    short = HitPlan(0, ("a", "b"), ("a",))
    assert client_order(short, study_name="s", worker_id="W", min_gap=5) == ["a", "b", "a"]


def test_a_fixed_order_is_the_plans():
    assert client_order(PLAN, study_name="s", worker_id="W", policy=OrderPolicy.FIXED) == (
        PLAN.showings
    )


def test_each_item_is_equally_likely_to_come_first():
    plan = HitPlan(0, tuple("abcdef"))
    firsts = Counter(client_order(plan, study_name="s", worker_id=f"W{w}")[0] for w in range(6000))
    assert chisquare([firsts[k] for k in "abcdef"]).pvalue > 0.001
