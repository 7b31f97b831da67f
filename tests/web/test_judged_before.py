"""An adaptive study's task page (harness's, on MTurk) asks a worker to return a HIT holding an
item they rated in an earlier HIT of the study: MTurk composes later HITs from the items still
short and cannot keep a worker from one. Nothing is recorded from that page."""

from __future__ import annotations

import pytest

from harness.render.plan import hit_key
from harness.spec import load_spec
from harness.store import create_study, make_engine, session_scope
from harness.store.hits import add_planned_hits
from harness.store.submissions import Answer, store_submission
from tests.factories import MINIMAL_ITEMS, MINIMAL_RATING_SPEC, write_spec

ASKED = "You have rated some of this HIT&#39;s items in an earlier HIT of this study"


@pytest.fixture(params=["adaptive", "fixed"])
def client(request, make_app, database_url, tmp_path):
    """W1 rated a and b (HIT 0); HIT 1 holds a and c."""
    (tmp_path / "items.csv").write_text(MINIMAL_ITEMS)
    extra = "adaptive: {half_width: 1, floor: 3, cap: 9}\n" if request.param == "adaptive" else ""
    loaded = load_spec(write_spec(tmp_path, MINIMAL_RATING_SPEC + extra))
    engine = make_engine(database_url)
    with session_scope(engine) as session:
        study = create_study(session, loaded)
        first, _later = add_planned_hits(session, study, [["a", "b"], ["a", "c"]], 3)
        store_submission(session, first, "A1", "W1", [Answer("a", 0, 3.0), Answer("b", 1, 5.0)])
    engine.dispose()
    return make_app().test_client(), request.param


def _page(client, worker: str | None):
    who = (
        f"assignmentId=A2&workerId={worker}"
        if worker
        else "assignmentId=ASSIGNMENT_ID_NOT_AVAILABLE"
    )
    return client.get(f"/hit/{hit_key('tiny', 1)}?{who}")


def test_a_worker_who_rated_one_of_its_items_is_asked_to_return_the_hit(client):
    app, kind = client
    page = _page(app, "W1")
    if kind == "fixed":  # a fixed study's HITs never share an item: nothing to look up
        assert page.status_code == 200
        return
    assert page.status_code == 409
    assert "Please return this HIT" in page.text and ASKED in page.text


def test_another_worker_and_a_preview_get_the_page(client):
    app, _kind = client
    assert _page(app, "W2").status_code == 200
    assert _page(app, None).status_code == 200
