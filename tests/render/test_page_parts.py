"""What an instrument keeps once worked out (its page parts) is what working it out again
gives, and a worker's page order is the one its hosting's ordering gives, for every worker and
HIT."""

from __future__ import annotations

from harness.render.client_order import client_order
from harness.render.instrument import Instrument
from harness.render.pages import render_page
from harness.render.plan import plan_hits, showing_order
from harness.spec import load_spec
from tests.web.factories import write_task_spec


def test_a_page_order_is_its_hostings_order_for_every_worker_and_hit(tmp_path):
    loaded = load_spec(write_task_spec(tmp_path, "rating"))
    instrument = Instrument.from_loaded(loaded)
    spec = loaded.spec
    options = {"seed": spec.order.seed, "policy": spec.order.policy, "min_gap": instrument.min_gap}
    for plan in plan_hits(loaded):
        for worker in ("W1", "W2", "W3"):
            for hosting, order in (("external", showing_order), ("mturk", client_order)):
                shown = instrument.page_order(
                    plan, study_name="words", worker_id=worker, hosting=hosting
                )
                assert shown == order(plan, study_name="words", worker_id=worker, **options)
    orders = {
        tuple(instrument.page_order(plan_hits(loaded)[0], study_name="words", worker_id=w))
        for w in ("W1", "W2", "W3", "W4", "W5")
    }
    assert len(orders) > 1  # workers do not share one order


def test_pages_after_the_first_show_the_same_parts_with_their_own_worker_and_items(tmp_path):
    loaded = load_spec(write_task_spec(tmp_path, "rating"))
    instrument = Instrument.from_loaded(loaded)
    plans = plan_hits(loaded)

    def page(plan, worker):
        return render_page(
            instrument,
            plan,
            study_name="words",
            hosting="external",
            worker_id=worker,
            assignment_id=f"A-{worker}",
        )

    first = page(plans[0], "W1")
    fresh = render_page(
        Instrument.from_loaded(loaded),
        plans[0],
        study_name="words",
        hosting="external",
        worker_id="W1",
        assignment_id="A-W1",
    )
    assert first == fresh == page(plans[0], "W1")
    other = page(plans[-1], "W2")
    assert '"workerId": "W2"' in other and "W1" not in other
    assert "Rate how similar the two words are" in other  # the shared guidelines
