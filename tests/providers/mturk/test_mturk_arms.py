"""A study with arms on MTurk (issue #18, docs/arms.md "Arms on MTurk"), through the real CLI,
boto3 against the local MTurk service, its worker side over HTTP and the real task server: each
arm its own HIT group (HIT type, reward, qualification), a worker's arm given on their first
arrival and kept, a HIT of another arm refused with nothing stored, and the local service itself
keeping a worker from the other arms' HITs once the task server told it their arm."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlmodel import func, select

from harness.answer import Answer
from harness.render.answers import encode_answers
from harness.render.instrument import Instrument
from harness.render.plan import HitPlan
from harness.spec.arms import load_arms
from harness.store import make_engine, session_scope, study_judgments
from harness.store.arm_assignment import study_arms, worker_arm
from harness.store.arm_tables import WorkerArm
from harness.store.models import Assignment, Hit, Judgment, QuarantinedSubmission, Worker
from harness.web.tokens import token_in_page
from tests.platform.factories import (
    harness_cli,
    hits_on_platform,
    launch_args,
    small_spec,
    until_verified,
)

ARMS = {
    "arms": "\n  long: {}\n  short:\n    guidelines: {text: Similar words score high.}"
    "\n    hit: {reward: '0.20', title: Rate word pairs quickly}",
}
LONG = "Rate how similar the two words are."
SHORT = "Similar words score high."
TITLES = {"long": "Rate word pairs", "short": "Rate word pairs quickly"}


@pytest.fixture
def launched(tmp_path, mturk, tasks, database_url):
    spec = small_spec(tmp_path, items=4, hosting="external", **ARMS)
    result = harness_cli(*launch_args(spec, mturk.url, database_url, "--public-url", tasks.url))
    assert result.exit_code == 0, result.output
    return spec, result.output


def _accept(mturk, hit_id, worker):
    r = mturk.session.post(f"{mturk.url}/worker/hits/{hit_id}/accept", data={"workerId": worker})
    return r


def _hits_by_arm(database_url):
    """Each arm's HITs on the platform (platform ids), in the study's order."""
    engine = make_engine(database_url)
    with session_scope(engine) as session:
        arms = study_arms(session, 1)
        from harness.store.arm_assignment import arm_hits

        out = {}
        for arm in arms:
            ids = arm_hits(session, arm.id)
            out[arm.name] = [
                h.platform_hit_id
                for h in session.exec(select(Hit).where(Hit.id.in_(ids)).order_by(Hit.index))
            ]
    engine.dispose()
    return out


def _counts(database_url):
    engine = make_engine(database_url)
    with session_scope(engine) as session:
        counts = {
            table.__name__: session.exec(select(func.count()).select_from(table)).one()
            for table in (Assignment, Judgment, QuarantinedSubmission, WorkerArm)
        }
    engine.dispose()
    return counts


def _arm_of(database_url, worker):
    engine = make_engine(database_url)
    with session_scope(engine) as session:
        row = session.exec(select(Worker).where(Worker.platform_worker_id == worker)).one()
        arm = worker_arm(session, 1, row.id)
    engine.dispose()
    return arm


def test_launch_posts_each_arm_as_its_own_hit_group_closed_to_the_other_arms(
    launched, mturk, tasks, client, database_url
):
    spec, output = launched
    assert (
        "HITs: 4 x 2 assignments = 8 assignments at $0.10 to $0.20 each (each arm its own)"
        in output
    )
    assert "2 arms: long (2 HITs, instrument " in output and ", $0.10 each, $0.48)" in output
    assert ", short (2 HITs, instrument " in output and ", $0.20 each, $0.96)" in output
    assert "cost: $1.44 = $1.20 rewards + $0.24 fees" in output  # the sum over the arms
    assert "small: 4 HITs on local in 2 arms (4 posted now, 0 posted before)" in output
    hits = {h["HITId"]: h for h in hits_on_platform(client)}
    by_arm = _hits_by_arm(database_url)
    types = {arm: {hits[h]["HITTypeId"] for h in ids} for arm, ids in by_arm.items()}
    assert all(len(t) == 1 for t in types.values()) and types["long"] != types["short"]
    assert {hits[h]["Reward"] for h in by_arm["long"]} == {"0.10"}
    assert {hits[h]["Reward"] for h in by_arm["short"]} == {"0.20"}
    assert {hits[h]["Title"] for h in by_arm["short"]} == {"Rate word pairs quickly"}
    assert {h["MaxAssignments"] for h in hits.values()} == {2}  # raters per item, every arm
    engine = make_engine(database_url)
    with session_scope(engine) as session:
        arms = {a.name: a for a in study_arms(session, 1)}
    engine.dispose()
    assert {arms["long"].work_type_id, arms["short"].work_type_id} == {
        next(iter(types["long"])),
        next(iter(types["short"])),
    }
    for arm, other in (("long", "short"), ("short", "long")):
        requirements = hits[by_arm[arm][0]]["QualificationRequirements"]
        closed = {
            r["QualificationTypeId"] for r in requirements if r["Comparator"] == "DoesNotExist"
        }
        assert arms[other].group_ref in closed and arms[arm].group_ref not in closed
        assert {r["ActionsGuarded"] for r in requirements} == {"DiscoverPreviewAndAccept"}
    # launching again makes nothing twice: no HIT, no HIT type, no qualification type
    quals = client.list_qualification_types(MustBeRequestable=False, MustBeOwnedByCaller=True)
    again = harness_cli(*launch_args(spec, mturk.url, database_url, "--public-url", tasks.url))
    assert again.exit_code == 0, again.output
    assert "small: 4 HITs on local in 2 arms (0 posted now, 4 posted before)" in again.output
    assert (
        client.list_qualification_types(MustBeRequestable=False, MustBeOwnedByCaller=True)[
            "NumResults"
        ]
        == quals["NumResults"]
        == 3
    )  # the exclusion group and one per arm
    assert len(hits_on_platform(client)) == 4


def test_workers_get_an_arm_on_first_arrival_keep_it_and_mturk_keeps_them_there(
    launched, mturk, client, tasks, database_url, http
):
    spec, _output = launched
    armed = load_arms(spec)
    by_arm = _hits_by_arm(database_url)
    first = by_arm["long"][0]
    pages = {}
    for worker in ("AW1", "AW2"):  # both open the same HIT of the arm long
        accepted = _accept(mturk, first, worker)
        assert accepted.status_code == 200, accepted.text
        pages[worker] = (accepted.json(), http.get(accepted.json()["ExternalURL"]))
    arms = {w: _arm_of(database_url, w) for w in pages}
    assert {a.name for a in arms.values()} == {"long", "short"}  # arrivals 0 and 1 of a block
    inside = next(w for w in pages if arms[w].name == "long")
    outside = next(w for w in pages if arms[w].name == "short")
    # the worker of the other arm is refused: which group is theirs, and nothing stored
    refused = pages[outside][1]
    assert refused.status_code == 409
    text = refused.text
    assert "Please return this HIT" in text and "Rate word pairs quickly" in text
    assert arms[outside].work_type_id in text and 'name="pageToken"' not in text
    assert LONG not in text and SHORT not in text
    counts = _counts(database_url)
    assert counts == {"Assignment": 0, "Judgment": 0, "QuarantinedSubmission": 0, "WorkerArm": 2}
    # a token for that page, forged with the task server's own keys, is refused too
    keys = tasks.app.extensions["harness.trust"].keys
    task = pages[outside][0]
    key = task["ExternalURL"].split("/hit/")[1].split("?")[0]
    forged = keys.sign("hit", unit=key, assignment_id=task["AssignmentId"], worker_id=outside)
    plan = HitPlan.from_showings(0, _items(database_url, 0))
    posted = http.post(
        f"{tasks.url}/hit/{key}/submit",
        data=encode_answers(_answers(armed.arm("long").loaded, plan.showings, 0, outside))
        | {
            "assignmentId": task["AssignmentId"],
            "workerId": outside,
            "hitId": first,
            "pageToken": forged,
        },
        headers={"Accept": "application/json"},
    )
    assert posted.status_code == 403
    assert "this HIT belongs to another group of the study's HITs than yours" in posted.text
    assert _counts(database_url) == counts
    # the task server told MTurk: the local service hides the other arm's HITs and refuses them
    assert all(a.group_ref for a in arms.values())
    for worker in (inside, outside):
        listed = mturk.session.get(f"{mturk.url}/worker/hits", params={"workerId": worker})
        shown = {h["HITId"] for h in listed.json()["HITs"]}
        mine, theirs = by_arm[arms[worker].name], by_arm[_other(arms[worker].name)]
        assert shown & set(theirs) == set() and set(mine) - {first} <= shown
    returned = mturk.session.post(
        f"{mturk.url}/worker/assignments/{task['AssignmentId']}/return", data={"workerId": outside}
    )
    assert returned.status_code == 200
    again = _accept(mturk, first, outside)
    assert again.status_code == 403 and "NotQualified" in again.text
    score = client.get_qualification_score(
        QualificationTypeId=arms[outside].group_ref, WorkerId=outside
    )
    assert score["Qualification"]["Status"] == "Granted"
    # the worker of the arm long sees and answers its page; a second HIT keeps their arm
    page = pages[inside][1]
    assert page.status_code == 200 and LONG in page.text and SHORT not in page.text
    _submit(http, mturk, tasks, armed, inside, pages[inside][0], page.text, 0, database_url)
    second = _accept(mturk, by_arm["long"][1], inside).json()
    page2 = http.get(second["ExternalURL"])
    assert page2.status_code == 200 and LONG in page2.text
    mine = _accept(mturk, by_arm["short"][0], outside).json()
    page3 = http.get(mine["ExternalURL"])
    assert page3.status_code == 200 and SHORT in page3.text and LONG not in page3.text
    _submit(http, mturk, tasks, armed, outside, mine, page3.text, 2, database_url)
    assert until_verified(database_url) == 0
    engine = make_engine(database_url)
    with session_scope(engine) as session:
        table = study_judgments(session, 1)
        rows = session.exec(select(WorkerArm)).all()
    engine.dispose()
    assert len(rows) == 2 and all(r.joined_at is not None for r in rows)
    assert table.groupby("worker_id")["instrument_hash"].nunique().max() == 1
    assert set(table["worker_id"]) == {inside, outside}


def _answers(loaded, items, index, worker):
    """Answers to a HIT in the order its page shows them to ``worker``, shown a moment ago."""
    plan = HitPlan.from_showings(index, items)
    order = Instrument.from_loaded(loaded).page_order(
        plan, study_name="small", worker_id=worker, hosting="external"
    )
    t0 = datetime.now(UTC) - timedelta(seconds=1)
    return [
        Answer(
            k,
            p,
            6.0,
            shown_at=t0 + timedelta(milliseconds=90 * p),
            answered_at=t0 + timedelta(milliseconds=90 * p + 50),
        )
        for p, k in enumerate(order)
    ]


def _other(arm):
    return "short" if arm == "long" else "long"


def _items(database_url, index):
    engine = make_engine(database_url)
    with session_scope(engine) as session:
        hit = session.exec(select(Hit).where(Hit.index == index)).one()
        items = list(hit.items)
    engine.dispose()
    return items


def _submit(http, mturk, tasks, armed, worker, task, page, index, database_url):
    """Answer a task page as its JavaScript does: to the task server, then to MTurk."""
    arm = _arm_of(database_url, worker).name
    answers = _answers(armed.arm(arm).loaded, _items(database_url, index), index, worker)
    fields = encode_answers(answers)
    url = task["ExternalURL"].split("?")[0] + "/submit"
    stored = http.post(
        url,
        data=fields
        | {
            "assignmentId": task["AssignmentId"],
            "workerId": worker,
            "hitId": task["HITId"],
            "pageToken": token_in_page(page),
        },
        headers={"Accept": "application/json"},
    )
    assert stored.status_code == 200, stored.text
    done = http.post(task["SubmitURL"], data={"assignmentId": task["AssignmentId"]} | fields)
    assert done.status_code == 200, done.text
