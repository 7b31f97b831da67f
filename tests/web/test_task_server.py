"""The task server through Flask's test client: the page, preview, and every refusal of a
submission (each a 4xx a worker can act on, with nothing written)."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest
from sqlmodel import func, select

from harness.answer import Answer
from harness.render.answers import encode_answers
from harness.render.plan import showing_order
from harness.store import EventKind, session_scope, study_judgments
from harness.store.models import Assignment, Event, Hit, Judgment
from harness.web.tokens import token_in_page
from tests.factories import TASK_SPECS
from tests.web.factories import on_platform, plan_study, write_task_spec

T0 = datetime.now(UTC).replace(microsecond=0) - timedelta(minutes=30)  # within the HIT's time


@pytest.fixture
def rating(engine, tmp_path):
    return plan_study(engine, write_task_spec(tmp_path, "rating"))


@pytest.fixture
def likert(engine, tmp_path):
    return plan_study(engine, write_task_spec(tmp_path, "likert"))


@pytest.fixture
def client(make_app):
    return make_app().test_client()


def page_url(study, assignment="A1", worker="W1", **extra):
    params = {"assignmentId": assignment, "hitId": "HIT1", "workerId": worker}
    params.update(extra)
    query = "&".join(f"{k}={v}" for k, v in params.items())
    return f"/hit/{study.key(0)}?{query}"


def order_for(study, worker="W1"):
    spec = study.loaded.spec
    gap = spec.controls.repeated.min_gap if spec.controls.repeated else 3
    return showing_order(
        study.plans[0],
        study_name=study.name,
        worker_id=worker,
        seed=spec.order.seed,
        policy=spec.order.policy,
        min_gap=gap,
    )


def answers(study, value=6.5, *, worker="W1", **skipped_at):
    return [
        Answer(
            key,
            p,
            None if f"p{p}" in skipped_at else value,
            skipped=f"p{p}" in skipped_at,
            shown_at=T0 + timedelta(seconds=10 * p),
            answered_at=T0 + timedelta(seconds=10 * p + 3),
        )
        for p, key in enumerate(order_for(study, worker))
    ]


def fields(study, assignment="A1", worker="W1", answer_list=None, **changes):
    out = encode_answers(answer_list if answer_list is not None else answers(study, worker=worker))
    out.update(assignmentId=assignment, workerId=worker)
    out.update(changes)
    return out


def submit(client, study, data):
    """Post ``data`` as the page of its assignment and worker would (with the page's token)."""
    if "pageToken" not in data:
        data = {**data, "pageToken": token_for(client, study, data)}
    return client.post(f"/hit/{study.key(0)}/submit", data=data)


def token_for(client, study, data):
    """The token the page of ``data``'s assignment and worker carries."""
    keys = client.application.extensions["harness.trust"].keys
    return keys.sign(
        "hit",
        unit=study.key(0),
        assignment_id=data.get("assignmentId", ""),
        worker_id=data.get("workerId", ""),
    )


def judgments(engine):
    with session_scope(engine) as session:
        return session.exec(select(func.count()).select_from(Judgment)).one()


def accepted(client, study, assignment="A1", worker="W1"):
    response = client.get(page_url(study, assignment, worker))
    assert response.status_code == 200
    return response


# --- the page ------------------------------------------------------------------------------


def test_the_page_shows_the_hits_items_in_the_workers_order(client, rating):
    html = accepted(client, rating).get_data(as_text=True)
    keys = [part.split('"')[0] for part in html.split('data-key="')[1:]]
    assert keys == order_for(rating)
    assert "&lt;b&gt;sun&lt;/b&gt;" in html and "<b>sun</b>" not in html  # item text is escaped


def test_opening_the_page_writes_nothing(client, rating, engine):
    accepted(client, rating)  # a link anyone can type binds no assignment to anyone
    with session_scope(engine) as session:
        assert session.exec(select(func.count()).select_from(Assignment)).one() == 0


def test_preview_shows_the_task_read_only_and_asks_to_accept(client, rating, engine):
    response = client.get(
        f"/hit/{rating.key(0)}?assignmentId=ASSIGNMENT_ID_NOT_AVAILABLE&hitId=HIT1"
    )
    html = response.get_data(as_text=True)
    assert response.status_code == 200
    assert '<div class="banner banner-preview" id="preview-banner">' in html
    assert "Accept the HIT to start" in html
    assert '"preview": true' in html
    with session_scope(engine) as session:
        assert session.exec(select(func.count()).select_from(Assignment)).one() == 0


def test_a_preview_cannot_submit(client, rating):
    response = submit(client, rating, fields(rating, assignment="ASSIGNMENT_ID_NOT_AVAILABLE"))
    assert response.status_code == 400
    assert response.json["errors"] == [
        "This is a preview: accept the HIT on MTurk, then answer and submit."
    ]


def test_an_unknown_hit_is_not_found(client, rating):
    for key in ("words-007", "nosuchstudy-000", "not a key"):
        response = client.get(f"/hit/{key}?assignmentId=A1&workerId=W1")
        assert response.status_code == 404
    keys = client.application.extensions["harness.trust"].keys
    token = keys.sign("hit", unit="words-007", assignment_id="A1", worker_id="W1")
    response = client.post("/hit/words-007/submit", data=fields(rating, pageToken=token))
    assert response.status_code == 404
    assert response.json["errors"] == [
        "There is no HIT words-007 here. Check the link, or return the HIT on MTurk."
    ]


def test_a_page_for_another_platform_hit_is_refused(client, rating, engine):
    with session_scope(engine) as session:
        hit = session.exec(select(Hit)).one()
        hit.platform_hit_id = "HIT-REAL"
        session.add(hit)
    response = client.get(page_url(rating, hitId="HIT-OTHER"))
    assert response.status_code == 400
    assert "belongs to another HIT" in response.get_data(as_text=True)


def test_an_assignment_opened_by_another_worker_first_can_still_be_opened(client, rating):
    accepted(client, rating, "A1", "W2")
    assert accepted(client, rating, "A1", "W1").status_code == 200


def test_an_assignment_submitted_by_one_worker_is_refused_to_another(client, rating):
    assert submit(client, rating, fields(rating)).status_code == 200
    response = client.get(page_url(rating, "A1", "W2"))
    assert response.status_code == 403
    assert "belongs to another worker" in response.get_data(as_text=True)


def test_a_submitted_assignment_says_so_and_offers_to_complete_the_hit(client, rating, engine):
    on_platform(engine, rating.name, "sandbox")
    assert submit(client, rating, fields(rating)).status_code == 200
    response = client.get(page_url(rating, turkSubmitTo="https://workersandbox.mturk.com"))
    html = response.get_data(as_text=True)
    assert "Your answers were already recorded" in html
    assert 'action="https://workersandbox.mturk.com/mturk/externalSubmit"' in html


# --- a good submission ---------------------------------------------------------------------


def test_a_submission_becomes_judgments_with_positions_and_timings(client, rating, engine):
    accepted(client, rating)
    response = submit(client, rating, fields(rating))
    assert response.status_code == 200
    assert response.json == {
        "ok": True,
        "created": True,
        "verified": True,
        "message": "Your answers are recorded.",
    }
    with session_scope(engine) as session:
        table = study_judgments(session, 1).sort_values("position")
    assert table["item_id"].tolist() == order_for(rating)
    assert table["position"].tolist() == list(range(len(order_for(rating))))
    assert table["value"].tolist() == [6.5] * len(table)
    assert table["seconds"].tolist() == [3.0] * len(table)
    repeated = rating.plans[0].repeated[0]
    assert (table["item_id"] == repeated).sum() == 2


def test_a_second_submission_keeps_the_first_and_says_so(client, rating, engine):
    accepted(client, rating)
    submit(client, rating, fields(rating))
    again = submit(client, rating, fields(rating, answer_list=answers(rating, value=2)))
    assert again.status_code == 200
    assert again.json["created"] is False
    assert again.json["message"] == "Your answers were already recorded; nothing was changed."
    with session_scope(engine) as session:
        values = session.exec(select(Judgment.value)).all()
    assert set(values) == {6.5}


def test_after_submission_runs_once_per_new_submission(make_app, rating):
    calls = []
    client = make_app(after_submission=lambda engine, study, a: calls.append(a)).test_client()
    accepted(client, rating)
    submit(client, rating, fields(rating))
    submit(client, rating, fields(rating))
    assert len(calls) == 1


def test_a_failing_after_submission_hook_keeps_the_answers_and_is_logged(make_app, rating, engine):
    def broken(engine, study_id, assignment_id):
        raise RuntimeError("screening is down")

    client = make_app(after_submission=broken).test_client()
    accepted(client, rating)
    assert submit(client, rating, fields(rating)).status_code == 200
    assert judgments(engine) == len(order_for(rating))
    with session_scope(engine) as session:
        (event,) = session.exec(
            select(Event).where(Event.kind == EventKind.AFTER_SUBMISSION_FAILED)
        ).all()
    assert event.payload == {"error": "RuntimeError: screening is down"}


def test_a_skip_is_stored_where_the_spec_allows_it(client, likert, engine):
    accepted(client, likert)
    response = submit(client, likert, fields(likert, answer_list=answers(likert, 5, p0=True)))
    assert response.status_code == 200, response.json
    with session_scope(engine) as session:
        first = session.exec(select(Judgment).where(Judgment.position == 0)).one()
    assert first.skipped and first.value is None


# --- refusals: each a 4xx with an actionable message, nothing written ----------------------


def refused(client, study, engine, data, status):
    response = submit(client, study, data)
    assert response.status_code == status, response.json
    assert response.json["ok"] is False
    assert judgments(engine) == 0
    return response.json["errors"]


def test_a_submission_without_its_pages_token_is_refused(client, rating, engine):
    errors = refused(client, rating, engine, fields(rating, pageToken=""), 403)
    assert errors == [
        "This page's token is missing or does not match its assignment and worker, so your "
        "answers were not stored. Reload the HIT page from MTurk and submit again."
    ]


def test_a_worker_id_other_than_the_pages_is_refused(client, rating, engine):
    token = token_in_page(accepted(client, rating, "A1", "W1").get_data(as_text=True))
    errors = refused(client, rating, engine, fields(rating, worker="W2", pageToken=token), 403)
    assert "token is missing or does not match" in errors[0]


def test_a_submission_without_worker_id_is_refused(client, rating, engine):
    accepted(client, rating)
    errors = refused(client, rating, engine, fields(rating, workerId=""), 400)
    assert errors == ["The submission has no workerId. Open the task from MTurk again."]


def test_a_value_off_the_scale_is_refused(client, rating, engine):
    accepted(client, rating)
    errors = refused(client, rating, engine, fields(rating, **{"value-0": "11"}), 422)
    first = order_for(rating)[0]
    assert len(errors) == 1
    assert errors[0].startswith(f"question 1 ({' – '.join(rating.instrument.sides(first))}): ")
    assert errors[0].endswith(
        "11 is not allowed; enter a number from 0 to 10 with at most 1 decimal"
    )


def test_a_value_with_too_many_decimals_is_refused(client, rating, engine):
    accepted(client, rating)
    errors = refused(client, rating, engine, fields(rating, **{"value-1": "7.25"}), 422)
    assert "7.25 is not allowed; enter a number from 0 to 10 with at most 1 decimal" in errors[0]


def test_a_value_off_the_step_is_refused(client, engine, tmp_path):
    study = plan_study(
        engine, write_task_spec(tmp_path, "rating", **{"fractional: true": "fractional: false"})
    )
    accepted(client, study)
    errors = refused(client, study, engine, fields(study, answer_list=answers(study, 2.5)), 422)
    assert errors[0].endswith("2.5 is not allowed; enter a number from 0 to 10 in steps of 1")


def test_an_option_that_is_not_on_the_likert_scale_is_refused(client, likert, engine):
    accepted(client, likert)
    errors = refused(client, likert, engine, fields(likert, answer_list=answers(likert, 4)), 422)
    assert len(errors) == 6
    assert errors[0].endswith(
        '4 is not allowed; choose one of the options, or tick "I cannot judge this statement"'
    )


def test_a_missing_answer_is_refused(client, rating, engine):
    accepted(client, rating)
    errors = refused(client, rating, engine, fields(rating, **{"value-2": ""}), 422)
    assert errors[0].endswith("no answer; enter a number from 0 to 10 with at most 1 decimal")


def test_a_missing_item_is_refused(client, rating, engine):
    accepted(client, rating)
    data = fields(rating)
    last = len(order_for(rating)) - 1
    key = data.pop(f"item-{last}")
    for kind in ("value", "skip", "shown", "answered"):
        data.pop(f"{kind}-{last}")
    errors = refused(client, rating, engine, data, 422)
    label = " – ".join(rating.instrument.sides(key))
    assert errors[-1].startswith(f"the item '{label}' has no answer")


def test_a_skip_where_the_spec_does_not_allow_it_is_refused(client, rating, engine):
    accepted(client, rating)
    data = fields(rating, answer_list=answers(rating, 5, p3=True))
    errors = refused(client, rating, engine, data, 422)
    assert errors[0].endswith("skipping is not possible in this task; please answer")


def test_an_extra_item_is_refused(client, rating, engine):
    accepted(client, rating)
    extra = {"item-9": "w-unknown", "value-9": "3", "skip-9": "", "shown-9": "", "answered-9": ""}
    errors = refused(client, rating, engine, fields(rating, **extra), 422)
    assert "answer 10: there is no such question; this HIT has 7" in errors
    assert "an answer names item 'w-unknown', which is not part of this HIT" in errors


def test_a_duplicated_item_is_refused(client, rating, engine):
    accepted(client, rating)
    order = order_for(rating)
    once = next(k for k in order if order.count(k) == 1)
    other = next(p for p, k in enumerate(order) if k != once and order.count(k) == 1)
    errors = refused(client, rating, engine, fields(rating, **{f"item-{other}": once}), 422)
    assert any("was answered 2 times but is shown once" in e for e in errors)


def test_answers_in_another_order_than_shown_are_refused(client, rating, engine):
    accepted(client, rating)
    order = order_for(rating)
    swapped = fields(rating, **{"item-0": order[1], "item-1": order[0]})
    errors = refused(client, rating, engine, swapped, 422)
    assert errors[0].endswith(
        "this page showed another item there; reload the HIT page and answer again"
    )


def test_unreadable_fields_are_refused_all_at_once(client, rating, engine):
    accepted(client, rating)
    data = fields(rating, **{"value-0": "seven", "shown-1": "yesterday", "comment": "hi"})
    errors = refused(client, rating, engine, data, 400)
    assert errors == [
        "unexpected field 'comment': this page does not have it",
        "answer 1: 'seven' is not a number (digits 0-9)",
        "answer 2 (shown): 'yesterday' is not a time in milliseconds between 2000 and now "
        "(is this computer's clock right?)",
    ]


def test_an_oversized_body_is_refused(make_app, rating, engine):
    client = make_app(max_submission_bytes=4096).test_client()
    accepted(client, rating)
    response = submit(client, rating, fields(rating, padding="x" * 5000))
    assert response.status_code == 413
    assert response.json["errors"][0].startswith(
        "Your submission is larger than this task accepts (4 KB)."
    )
    assert judgments(engine) == 0


def test_a_page_built_from_the_store_shows_the_specs_display_columns_only(client, engine):
    # generated pairs of pairs: the display columns are resolved, not written in the spec
    study = plan_study(engine, TASK_SPECS / "ws353_resolution.yaml")
    html = accepted(client, study).get_data(as_text=True)
    words = re.findall(r'<span class="side">([^<]+)</span>', html)
    expected = [w for key in order_for(study) for w in study.instrument.sides(key)]
    assert words == expected
    assert len(words) == 4 * len(order_for(study))
