"""HIT plans: every item once, controls spread, repeats apart, orders seeded per worker."""

from __future__ import annotations

from collections import Counter

import pytest

from harness.render.plan import HitPlan, hit_key, parse_hit_key, plan_hits, showing_order
from harness.spec import load_spec
from harness.spec.model import OrderPolicy
from tests.factories import TASK_SPECS


@pytest.fixture(scope="module")
def ws353():
    return load_spec(TASK_SPECS / "ws353_reproduction.yaml")


def test_every_content_item_is_in_exactly_one_hit_and_hit_sizes_differ_by_at_most_one(ws353):
    plans = plan_hits(ws353)
    assert len(plans) == ws353.n_hits == 12
    content = [k for p in plans for k in p.items if k.startswith("ws353-")]
    assert Counter(content) == Counter(
        ws353.items.loc[ws353.items["role"] == "item", "item_id"].tolist()
    )
    sizes = [sum(k.startswith("ws353-") for k in p.items) for p in plans]
    assert max(sizes) - min(sizes) <= 1


def test_each_hit_gets_its_identical_control_and_one_repeated_content_item(ws353):
    for plan in plan_hits(ws353):
        assert sum(k.startswith("identical-") for k in plan.items) == 1
        assert len(plan.repeated) == 1
        assert plan.repeated[0] in plan.items
        assert plan.repeated[0].startswith("ws353-")


def test_the_plan_is_the_same_on_every_run(ws353):
    assert plan_hits(ws353) == plan_hits(load_spec(TASK_SPECS / "ws353_reproduction.yaml"))


def test_a_plan_comes_back_from_its_stored_showings(ws353):
    plan = plan_hits(ws353)[3]
    assert HitPlan.from_showings(3, plan.showings) == plan


def test_a_worker_sees_every_showing_once_with_the_repeat_kept_apart(ws353):
    plan = plan_hits(ws353)[0]
    for worker in ("A1", "A2", "A3", "B9"):
        order = showing_order(plan, study_name="s", worker_id=worker, seed=353, min_gap=10)
        assert Counter(order) == Counter(plan.showings)
        first, second = (i for i, k in enumerate(order) if k == plan.repeated[0])
        assert second - first - 1 >= 10


def test_the_order_is_seeded_by_study_and_worker(ws353):
    plan = plan_hits(ws353)[0]

    def order(study, worker):
        return showing_order(plan, study_name=study, worker_id=worker, seed=353)

    assert order("s", "A1") == order("s", "A1")
    assert order("s", "A1") != order("s", "A2")
    assert order("s", "A1") != order("t", "A1")


def test_a_short_hit_puts_the_repeat_as_far_apart_as_it_can():
    plan = HitPlan(0, ("a", "b", "c"), ("b",))
    order = showing_order(plan, study_name="s", worker_id="w", min_gap=10)
    first, second = (i for i, k in enumerate(order) if k == "b")
    assert (first, second) == (0, 3)


def test_fixed_order_keeps_the_plan_and_appends_repeats():
    plan = HitPlan(0, ("a", "b", "c"), ("a",))
    assert showing_order(plan, study_name="s", worker_id="w", policy=OrderPolicy.FIXED) == [
        "a",
        "b",
        "c",
        "a",
    ]


def test_hit_keys_round_trip_and_bad_keys_are_refused():
    assert parse_hit_key(hit_key("ws353-reproduction", 7)) == ("ws353-reproduction", 7)
    assert hit_key("tiny", 7) == "tiny-007"
    with pytest.raises(ValueError, match="not a HIT key"):
        parse_hit_key("nothing")
