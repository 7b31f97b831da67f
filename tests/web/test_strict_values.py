"""Values and times the task server used to accept and must not (issue 21, hole 6): numbers are
plain ASCII decimals, times lie between the HIT's posting and now, and nothing is written when
any of them is wrong. On both stores."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from harness.render.answers import AnswerFormatError, decode_fields
from tests.web.test_task_server import fields, refused, submit


@pytest.fixture
def rating(engine, tmp_path):
    from tests.web.factories import plan_study, write_task_spec

    return plan_study(engine, write_task_spec(tmp_path, "rating"))


@pytest.fixture
def client(make_app):
    return make_app().test_client()


def millis(when: datetime) -> str:
    return str(round(when.timestamp() * 1000))


@pytest.mark.parametrize(
    "value",
    ["٥", "５", "1_0", "1e-400", "1e1", "inf", "nan", "-nan", "0x5", "5..", "+" * 3, "5" * 41],
)
def test_a_value_that_is_not_a_plain_decimal_is_refused(client, rating, engine, value):
    errors = refused(client, rating, engine, fields(rating, **{"value-0": value}), 400)
    assert errors == [f"answer 1: {value[:40]!r} is not a number (digits 0-9)"]


@pytest.mark.parametrize("value", ["7", "7.5", "7,5", ".5", "+3", "10"])
def test_a_plain_decimal_on_the_scale_is_stored(client, rating, value):
    response = submit(client, rating, fields(rating, **{"value-0": value}))
    assert response.status_code == 200, response.json


def test_an_answer_given_before_it_was_shown_is_refused(client, rating, engine):
    shown = datetime.now(UTC) - timedelta(minutes=5)
    data = fields(
        rating, **{"shown-0": millis(shown), "answered-0": millis(shown - timedelta(seconds=100))}
    )
    errors = refused(client, rating, engine, data, 400)
    assert errors == [
        f"answer 1: answered ({data['answered-0']}) before it was shown ({data['shown-0']})"
    ]


@pytest.mark.parametrize("year", [5000, 1990])
def test_a_time_far_from_now_is_refused(client, rating, engine, year):
    far = millis(datetime(year, 1, 1, tzinfo=UTC))
    errors = refused(client, rating, engine, fields(rating, **{"answered-2": far}), 400)
    assert errors == [
        f"answer 3 (answered): {far!r} is not a time in milliseconds between 2000 and now "
        "(is this computer's clock right?)"
    ]


@pytest.mark.parametrize("far", ["253402300800000", "999999999999999", "999999999999999.99"])
def test_a_time_past_the_year_9999_is_refused_not_a_server_error(client, rating, engine, far):
    errors = refused(client, rating, engine, fields(rating, **{"shown-1": far}), 400)
    assert errors == [
        f"answer 2 (shown): {far!r} is not a time in milliseconds between 2000 and now "
        "(is this computer's clock right?)"
    ]


def test_a_time_before_the_hit_was_posted_is_refused(client, rating, engine):
    early = datetime.now(UTC) - timedelta(days=3)
    data = fields(rating, **{"shown-0": millis(early), "answered-0": millis(early)})
    errors = refused(client, rating, engine, data, 422)
    assert len(errors) == 2 and all(
        e.startswith("answer 1: ") and "outside the time this task was open" in e for e in errors
    )


@pytest.mark.parametrize("text", ["1e3", "٥٥٥", "-5", "12.5e2", "1_000"])
def test_times_are_ascii_milliseconds_only(text):
    with pytest.raises(AnswerFormatError) as caught:
        decode_fields([("item-0", "a"), ("value-0", "1"), ("shown-0", text)])
    assert caught.value.problems[0].startswith(f"answer 1 (shown): {text!r} is not a time")


@pytest.mark.parametrize(
    "ids",
    [
        {"workerId": "A\x00B"},
        {"assignmentId": "A" * 201},
        {"workerId": "Ä1"},
        {"assignmentId": "A 1"},
    ],
)
def test_ids_that_no_platform_gives_are_refused_not_a_server_error(client, rating, engine, ids):
    data = fields(rating, **ids)
    errors = refused(client, rating, engine, data, 400)
    assert errors[0].endswith(
        "is not a valid id (printable characters, at most 200). "
        "Open the task from the platform again."
    )
    page = client.get(
        f"/hit/{rating.key(0)}",
        query_string={
            "hitId": "H",
            **ids,
            "workerId": ids.get("workerId", "W1"),
            "assignmentId": ids.get("assignmentId", "A1"),
        },
    )
    assert page.status_code == 400
