"""The task server speaks the participant's language: the browser's before the study is known,
the study's after (harness.web.language)."""

from __future__ import annotations

import pytest

from tests.web.factories import plan_study, write_task_spec


@pytest.fixture
def client(make_app):
    return make_app().test_client()


def test_a_refusal_before_the_study_is_known_speaks_the_browsers_language(client):
    response = client.get("/hit/nosuch-000", headers={"Accept-Language": "fr, de;q=0.8, en;q=0.5"})
    assert response.status_code == 404
    page = response.get_data(as_text=True)
    assert '<html lang="de" dir="ltr">' in page
    assert "<h1>HIT nicht gefunden</h1>" in page
    english = client.get("/hit/nosuch-000", headers={"Accept-Language": "fr"})
    assert "<h1>HIT not found</h1>" in english.get_data(as_text=True)


def test_a_refusal_for_a_known_study_speaks_the_studys_language(client, engine, tmp_path):
    spec = write_task_spec(tmp_path, "rating", **{"type: rating": "type: rating\nlanguage: he"})
    study = plan_study(engine, spec)
    response = client.get(
        f"/hit/{study.key(0)}?assignmentId=A1&hitId=H1", headers={"Accept-Language": "de"}
    )
    assert response.status_code == 400
    page = response.get_data(as_text=True)
    assert '<html lang="he" dir="rtl">' in page
    assert "<h1>מזהה העובד חסר</h1>" in page
    assert "בקישור יש assignmentId אך אין workerId." in page
