"""Every submission awaiting review can be reached and acted on from the dashboard, however
many there are: the list pages through all of them, the ticked ones of any page or all of them
at once are approved or rejected, and one submission's answers (each item, the value given
and its time) are a click away. The study's judgments download as `harness export` writes
them. On SQLite and PostgreSQL, through Flask's test client."""

from __future__ import annotations

import re

import pytest
from sqlmodel import col, select

from harness.store import make_engine, session_scope
from harness.store.models import Assignment, AssignmentStatus, Hit, Worker
from harness.store.withdrawals import withdraw
from tests.platform.factories import harness_cli
from tests.web.dashboard.stored import (
    PER_HIT,
    SECONDS,
    StoredStudy,
    dashboard_client,
    stored_study,
    study_url,
    text_of,
)

SUBMISSIONS = 120
LISTED = re.compile(r'name="assignment" value="(A\d+)" form="review-page"')
THROUGH = re.compile(r'name="through" value="(\d+)"')


@pytest.fixture
def study(store_copy):
    """120 submissions awaiting review (built once per backend; each test has its copy)."""
    url, built = store_copy("pending-120", lambda u, folder: stored_study(folder, SUBMISSIONS, u))
    return StoredStudy(url, built.ids)


@pytest.fixture
def client(study):
    client, token = dashboard_client(study.db)
    client.token = token
    yield client
    client.application.extensions["harness.web.dashboard"].close()


def statuses(db: str) -> dict[str, str]:
    engine = make_engine(db)
    try:
        with session_scope(engine) as session:
            rows = session.exec(
                select(Assignment.platform_assignment_id, Assignment.status).order_by(
                    col(Assignment.id)
                )
            ).all()
    finally:
        engine.dispose()
    return {aid: AssignmentStatus(s).value for aid, s in rows}


def listed_on(client, number: int) -> tuple[list[str], str]:
    page = client.get(study_url(f"/submissions?page={number}")).get_data(as_text=True)
    return LISTED.findall(page), page


def test_every_submission_awaiting_review_is_on_one_page_of_the_list(client, study):
    pages = [listed_on(client, n) for n in (1, 2, 3)]
    assert [len(ids) for ids, _ in pages] == [50, 50, 20]
    assert [a for ids, _ in pages for a in ids] == study.ids  # each once, oldest first
    assert "120 awaiting review: 51 to 100, oldest first" in text_of(pages[1][1])
    assert "page 2 of 3" in text_of(pages[1][1])
    assert listed_on(client, 9)[0] == pages[2][0]  # past the end: the last page
    live = text_of(client.get(study_url()).get_data(as_text=True))
    assert "and 70 more: all 120, page by page" in live


def test_ticked_submissions_of_a_later_page_are_approved_and_leave_the_list(client, study):
    ticked = listed_on(client, 3)[0][:4]
    done = client.post(
        study_url("/review-many"),
        data={"csrf_token": client.token, "verdict": "approve", "assignment": ticked},
        follow_redirects=True,
    )
    assert "Approved 4 of 4 submissions." in text_of(done.get_data(as_text=True))
    shown = statuses(study.db)
    assert [a for a, s in shown.items() if s == "approved"] == ticked
    assert len(listed_on(client, 3)[0]) == 16


def test_approving_all_approves_every_page_up_to_the_newest_listed(client, study):
    page = listed_on(client, 1)[1]
    through = THROUGH.search(page)
    assert through
    done = client.post(
        study_url("/review-many"),
        data={"csrf_token": client.token, "verdict": "approve", "through": through[1]},
        follow_redirects=True,
    )
    assert f"Approved {SUBMISSIONS} of {SUBMISSIONS} submissions." in text_of(
        done.get_data(as_text=True)
    )
    assert set(statuses(study.db).values()) == {"approved"}
    assert "0 awaiting review" in text_of(client.get(study_url("/submissions")).get_data(True))


def test_a_submission_stored_after_the_list_was_read_is_left_for_a_person_to_see(client, study):
    engine = make_engine(study.db)
    try:
        with session_scope(engine) as session:
            pks = session.exec(select(Assignment.id).order_by(col(Assignment.id))).all()
    finally:
        engine.dispose()
    seen = str(pks[59])  # as if the list had been read when 60 were stored
    done = client.post(
        study_url("/review-many"),
        data={
            "csrf_token": client.token,
            "verdict": "reject",
            "through": seen,
            "feedback": "Every answer was its position.",
        },
        follow_redirects=True,
    )
    assert "Rejected 60 of 60 submissions." in text_of(done.get_data(as_text=True))
    shown = list(statuses(study.db).values())
    assert shown[:60] == ["rejected"] * 60 and shown[60:] == ["submitted"] * 60


def test_rejecting_all_needs_feedback_for_the_workers(client, study):
    done = client.post(
        study_url("/review-many"),
        data={"csrf_token": client.token, "verdict": "reject", "through": "999999"},
        follow_redirects=True,
    )
    assert "Not done: the form's 'feedback' field is empty: fill it in" in text_of(
        done.get_data(as_text=True)
    ).replace("&#39;", "'")
    assert set(statuses(study.db).values()) == {"submitted"}


def test_a_through_that_is_not_a_number_is_refused_by_name(client, study):
    done = client.post(
        study_url("/review-many"),
        data={"csrf_token": client.token, "verdict": "approve", "through": "1e3"},
        follow_redirects=True,
    )
    said = text_of(done.get_data(as_text=True)).replace("&#39;", "'")
    assert "Not done: the form's 'through' field should be a whole number, got '1e3'" in said
    assert set(statuses(study.db).values()) == {"submitted"}


def test_a_submissions_answers_show_each_item_as_shown_the_value_and_its_time(client, study):
    aid = study.ids[7]
    page = client.get(study_url(f"/assignment/{aid}")).get_data(as_text=True)
    rows = re.findall(
        r"<tr><td class=\"num\">(\d+)</td><td>([^<]+)</td><td>([^<]*)</td>"
        r"<td>([^<]+)</td>\s*<td class=\"num\">([^<]+)</td>"
        r"<td class=\"num\">([^<]+)</td></tr>",
        page,
    )
    assert len(rows) == PER_HIT
    # the factory answers each item with its position (from 0), in SECONDS
    assert [(r[0], r[4], r[5]) for r in rows] == [
        (str(n + 1), f"{n:g}", f"{SECONDS:.1f}") for n in range(PER_HIT)
    ]
    assert all(r[2].startswith("left: word") and "; right: other" in r[2] for r in rows)
    said = text_of(page)
    assert f"time on task 0 min {PER_HIT * SECONDS:02.0f} s" in said
    assert "worker W0007" in said and "state submitted" in said
    missing = client.get(study_url("/assignment/NOPE"))
    assert missing.status_code == 404
    assert "study 'small' has no assignment 'NOPE'" in missing.get_data(as_text=True).replace(
        "&#39;", "'"
    )


def test_the_judgments_download_as_harness_export_writes_them(client, study, tmp_path):
    answer = client.get(study_url("/judgments.csv"))
    assert answer.status_code == 200 and answer.mimetype == "text/csv"
    assert 'filename="small-judgments.csv"' in answer.headers["Content-Disposition"]
    out = tmp_path / "exported.csv"
    done = harness_cli("export", "small", "--db", study.db, "--out", str(out))
    assert done.exit_code == 0, done.output
    assert answer.get_data(as_text=True) == out.read_text(encoding="utf-8")
    assert len(out.read_text(encoding="utf-8").splitlines()) == 1 + SUBMISSIONS * PER_HIT


def test_a_participant_who_withdrew_is_not_rejected_with_the_others(client, study):
    ticked = listed_on(client, 1)[0][:3]
    engine = make_engine(study.db)
    try:
        with session_scope(engine) as session:
            rows = {
                a.platform_assignment_id: a
                for a in session.exec(select(Assignment))
                if a.platform_assignment_id in ticked
            }
            first = rows[ticked[0]]
            worker = session.get(Worker, first.worker_id).platform_worker_id
            study_id = session.get(Hit, first.hit_id).study_id
            withdraw(session, study_id, worker, ticked[0])
            theirs = [a for a in ticked if rows[a].worker_id == first.worker_id]
    finally:
        engine.dispose()
    done = client.post(
        study_url("/review-many"),
        data={
            "csrf_token": client.token,
            "verdict": "reject",
            "assignment": ticked,
            "feedback": "Every answer was its position.",
        },
        follow_redirects=True,
    )
    said = text_of(done.get_data(as_text=True))
    assert (
        f"Rejected {3 - len(theirs)} of 3 submissions. {len(theirs)} not rejected: their "
        "participant withdrew from the study, which costs nothing (review approves it)."
    ) in said
    shown = statuses(study.db)
    assert {a: shown[a] for a in theirs} == dict.fromkeys(theirs, "submitted")
