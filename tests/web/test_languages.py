"""The task server speaks the participant's language: the browser's before the study is known,
the study's after (harness.web.language)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from tests.web.factories import plan_study, write_task_spec
from tests.web.test_task_server import accepted, answers, fields, order_for, refused


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


def test_a_german_studys_refused_answers_are_explained_in_german(client, engine, tmp_path):
    spec = write_task_spec(tmp_path, "rating", **{"type: rating": "type: rating\nlanguage: de"})
    study = plan_study(engine, spec)
    accepted(client, study)
    given = answers(study)
    given[0] = replace(given[0], value=7.25)  # one decimal too many
    given[1] = replace(given[1], value=11.0)  # off the scale
    errors = refused(client, study, engine, fields(study, answer_list=given[:-1]), 422)
    first, second, last = order_for(study)[0], order_for(study)[1], order_for(study)[-1]
    label = {key: " – ".join(study.instrument.sides(key)) for key in (first, second, last)}
    allowed = "geben Sie eine Zahl von 0 bis 10 mit höchstens einer Nachkommastelle ein"
    assert errors == [
        f"Frage 1 ({label[first]}): 7,25 ist nicht erlaubt; {allowed}",
        f"Frage 2 ({label[second]}): 11 ist nicht erlaubt; {allowed}",
        f"die Frage '{label[last]}' hat keine Antwort; bitte beantworten Sie jede Frage",
    ]


def test_a_hebrew_studys_refusal_is_in_hebrew_and_an_english_one_stays_english(
    client, engine, tmp_path
):
    for language, said in (("he", "אין תשובה; יש להזין מספר מ-0 עד 10"), ("en", "no answer; ")):
        folder = tmp_path / language
        folder.mkdir()
        spec = write_task_spec(
            folder, "rating", **{"type: rating": f"type: rating\nlanguage: {language}"}
        )
        study = plan_study(engine, spec, name=f"words-{language}")
        accepted(client, study)
        given = answers(study)
        given[0] = replace(given[0], value=None)
        errors = refused(client, study, engine, fields(study, answer_list=given), 422)
        assert len(errors) == 1 and said in errors[0]


def test_a_german_studys_unreadable_page_signal_is_explained_in_german(client, engine, tmp_path):
    spec = write_task_spec(tmp_path, "rating", **{"type: rating": "type: rating\nlanguage: de"})
    study = plan_study(engine, spec)
    accepted(client, study)
    errors = refused(client, study, engine, fields(study, **{"signal-0": "5320,0,0"}), 400)
    assert len(errors) == 1
    assert "(Signale): '5320,0,0' besteht nicht aus 7 durch Kommas getrennten Teilen" in errors[0]
