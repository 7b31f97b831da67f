"""The local Prolific service against Prolific's published API schema: the client generated
from that schema (`pyrolific`), unchanged, runs a researcher's whole flow on it, and every
answer parses with the schema's models."""

from __future__ import annotations

import json
import re
from decimal import Decimal
from typing import Any

import requests
from pyrolific.api.bonuses import create_bonus_payments, pay_bonus_payments
from pyrolific.api.filters import get_filters
from pyrolific.api.hooks import (
    create_secret,
    create_subscription,
    get_event_types,
    get_secrets,
    get_subscriptions,
)
from pyrolific.api.messages import get_messages, send_message
from pyrolific.api.participant_groups import (
    add_to_participant_group,
    create_participant_group,
    delete_participant_group,
    get_participant_group,
    get_participant_group_participants,
    get_participant_groups,
    remove_from_participant_group,
)
from pyrolific.api.projects import create_project, get_project, get_projects
from pyrolific.api.studies import (
    calculate_study_cost,
    create_study,
    get_project_studies,
    get_studies,
    get_study_cost,
    get_study_submissions,
    publish_study,
    update_study,
)
from pyrolific.api.submissions import (
    get_submission,
    get_submissions,
    request_submission_return,
    transition_submission,
)
from pyrolific.api.users import get_user
from pyrolific.api.workspaces import get_workspace, get_workspace_balance, get_workspaces
from pyrolific.models import (
    BaseStudy,
    CreateBonusPaymentsBody,
    CreateParticipantGroupBody,
    CreateProject,
    CreateSecret,
    CreateStudy,
    ParticipantIDList,
    RequestSubmissionReturnBody,
    SendMessage,
    StudyCostRequest,
    StudyStatus,
    StudyTransition,
    SubmissionStatus,
    SubmissionTransition,
    SubmissionTransitionAction,
    SubscriptionDetail,
    WorkspaceID,
)

from harness.providers.prolific.client import ProlificClient
from harness.providers.prolific.provider import ProlificProvider
from tests.platform.factories import harness_cli
from tests.providers.prolific.conftest import prolific_spec
from tests.providers.prolific.oracle import (
    call,
    generated_client,
    request_problems,
    undocumented,
)

STUDY = {
    "name": "Rate word pairs",
    "internal_name": "schema check",
    "description": "Rate how similar two words are.",
    "external_study_url": "http://tasks.test/p/x?PROLIFIC_PID={{%PROLIFIC_PID%}}",
    "prolific_id_option": "url_parameters",
    "completion_codes": [
        {"code": "C0DE", "code_type": "COMPLETED", "actions": [{"action": "MANUALLY_REVIEW"}]}
    ],
    "total_available_places": 2,
    "estimated_completion_time": 5,
    "maximum_allowed_time": 15,
    "reward": 100,
    "device_compatibility": ["desktop"],
    "filters": [{"filter_id": "approval_rate", "selected_range": {"lower": 90, "upper": 100}}],
}


def _take_part(url: str, study_id: str, pid: str, *, complete: bool) -> str:
    joined = requests.post(
        f"{url}/participant/studies/{study_id}/join", data={"participant_id": pid}, timeout=5
    )
    assert joined.status_code == 201, joined.text
    if complete:
        done = requests.get(
            f"{url}/submissions/complete", params={"cc": "C0DE", "participant_id": pid}, timeout=5
        )
        assert done.status_code == 200, done.text
    return str(joined.json()["submission_id"])


def test_the_generated_client_runs_a_researchers_whole_flow_on_the_local_service(prolific):
    c = generated_client(prolific.url)
    assert call(c, get_user).email
    workspace = call(c, get_workspaces).results[0].id
    assert call(c, get_workspace, workspace).id == workspace
    assert call(c, get_workspace_balance, workspace).currency_code == "USD"

    project = call(c, create_project, workspace, body=CreateProject(title="harness"))
    titles = [p.title for p in call(c, get_projects, workspace).results]
    assert titles == ["Default project", "harness"]
    assert call(c, get_project, project.id).title == "harness"

    assert {f.filter_id for f in call(c, get_filters).results} >= {"approval_rate"}
    group = call(
        c,
        create_participant_group,
        body=CreateParticipantGroupBody(name="blocked", workspace_id=workspace),
    )
    members = ParticipantIDList(participant_ids=["5fblocked"])
    call(c, add_to_participant_group, group.id, body=members)
    assert call(c, get_participant_group, group.id).participant_count == 1
    assert len(call(c, get_participant_group_participants, group.id).results) == 1
    call(c, remove_from_participant_group, group.id, body=members)

    quote = call(
        c, calculate_study_cost, body=StudyCostRequest(reward=100, total_available_places=2)
    )
    assert quote.total_cost == 2 * (100 + 33 + 7)  # fee a third, UK VAT a fifth of the fee

    study = call(c, create_study, body=CreateStudy.from_dict(STUDY | {"project": project.id}))
    assert study.status == StudyStatus.UNPUBLISHED and study.project == project.id
    edited = call(c, update_study, study.id, body=BaseStudy(estimated_completion_time=6))
    assert edited.estimated_completion_time == 6  # a draft can be edited
    assert call(c, get_study_cost, study.id).rewards.rewards.amount == 200
    assert call(c, publish_study, study.id, body=StudyTransition("PUBLISH")).status == (
        StudyStatus.ACTIVE
    )
    assert [s.id for s in call(c, get_project_studies, project.id).results] == [study.id]
    assert [s.id for s in call(c, get_studies).results] == [study.id]

    done = _take_part(prolific.url, study.id, "5fdone", complete=True)
    working = _take_part(prolific.url, study.id, "5fworking", complete=False)
    listed = call(c, get_study_submissions, study.id).results
    assert {s.id for s in listed} == {done, working}
    assert all(s.has_siblings is False for s in listed)
    assert {s.id for s in call(c, get_submissions, study=study.id).results} == {done, working}
    assert call(c, get_submission, done).status == SubmissionStatus.AWAITING_REVIEW

    asked = call(
        c,
        request_submission_return,
        working,
        body=RequestSubmissionReturnBody(request_return_reasons=["Withdrew consent."]),
    )
    assert asked.return_requested
    approved = call(
        c,
        transition_submission,
        done,
        body=SubmissionTransition(action=SubmissionTransitionAction.APPROVE),
    )
    assert approved.status == SubmissionStatus.APPROVED

    call(
        c, send_message, body=SendMessage(recipient_id="5fdone", body="Thanks!", study_id=study.id)
    )
    assert [m.body for m in call(c, get_messages, user_id="5fdone").results] == ["Thanks!"]

    bonus = call(
        c,
        create_bonus_payments,
        body=CreateBonusPaymentsBody(study_id=study.id, csv_bonuses=f"{done},0.50\n"),
    )
    assert (bonus.amount, bonus.fees, bonus.vat, bonus.total_amount) == (50, 17, 3, 70)
    call(c, pay_bonus_payments, bonus.id)

    call(c, create_secret, body=CreateSecret(workspace_id=workspace))
    assert len(call(c, get_secrets, workspace_id=workspace).results) == 1
    hook = SubscriptionDetail(
        event_type="submission.status.change",
        target_url="http://127.0.0.1:9/hooks/prolific",
        workspace_id=workspace,
    )
    assert call(c, create_subscription, body=hook).results[0].target_url == hook.target_url
    assert len(call(c, get_subscriptions, workspace_id=workspace).results) == 1
    assert "submission.status.change" in {e.event_type for e in call(c, get_event_types).results}

    call(c, delete_participant_group, group.id)
    listed = call(c, get_participant_groups, filter_=WorkspaceID(workspace_id=workspace)).results
    assert group.id not in {g.id for g in listed}


def test_listed_submissions_name_no_field_the_schema_lacks(prolific):
    c = generated_client(prolific.url)
    study = call(c, create_study, body=CreateStudy.from_dict(STUDY))
    call(c, publish_study, study.id, body=StudyTransition("PUBLISH"))
    done = _take_part(prolific.url, study.id, "5fdone", complete=True)
    assert undocumented(call(c, get_study_submissions, study.id).results) == []
    assert undocumented(call(c, get_submissions, study=study.id).results) == []
    assert call(c, get_submission, done).id == done


def _sent(monkeypatch) -> list[tuple[str, str, Any]]:
    """Every call to Prolific's API made from now on: (method, path under /api/v1/, body)."""
    sent: list[tuple[str, str, Any]] = []
    real = requests.Session.request

    def record(self, method, url, *args, **kwargs):  # type: ignore[no-untyped-def]
        if "/api/v1/" in url:
            path = url.split("/api/v1/", 1)[1].split("?", 1)[0]
            sent.append((method.upper(), path, kwargs.get("json")))
        return real(self, method, url, *args, **kwargs)

    monkeypatch.setattr(requests.Session, "request", record)
    return sent


def test_every_request_harness_sends_is_one_the_schema_describes(prolific, tmp_path, monkeypatch):
    sent = _sent(monkeypatch)
    spec = prolific_spec(
        tmp_path,
        qualifications="{countries: [US], min_approval_rate: 95, min_approved_hits: 10}",
        platform="{project: Word similarity}",
    )
    db = f"sqlite:///{tmp_path / 'h.db'}"
    launched = harness_cli(
        *("launch", str(spec), "--target", "prolific-local", "--endpoint-url", prolific.url),
        *("--db", db, "--public-url", "http://tasks.test"),
    )
    assert launched.exit_code == 0, launched.output
    provider = ProlificProvider(ProlificClient(prolific.url, "local"), "prolific-local")
    (study,) = provider.client.pages("studies/")
    requests.get(
        f"{prolific.url}/participant/studies",
        params={"participant_id": "5fdone", "country": "United States", "approvals": 50},
        timeout=5,
    )
    done = _take_part(prolific.url, study["id"], "5fdone", complete=False)
    requests.get(
        f"{prolific.url}/submissions/complete",
        params={"cc": study["completion_codes"][0]["code"], "participant_id": "5fdone"},
        timeout=5,
    )
    provider.request_return(done)
    provider.reject(done, "The answers did not pass the study's checks.")
    provider.pay_bonus(provider.create_bonus(done, Decimal("0.25")))
    provider.exclude(study["filters"][-1]["selected_values"][0], "5fdone")
    provider.include(study["filters"][-1]["selected_values"][0], "5fdone")
    provider.approve_many([])
    provider.message("5fdone", None, "Thanks for taking part.", study["id"])
    problems = [p for method, path, body in sent for p in request_problems(method, path, body)]
    assert problems == []
    writes = {(m, re.sub(r"[0-9a-f]{24}", "<id>", p)) for m, p, _b in sent if m != "GET"}
    assert writes >= {
        ("POST", "participant-groups/"),
        ("POST", "workspaces/<id>/projects/"),
        ("POST", "studies/"),
        ("POST", "studies/<id>/transition/"),
        ("POST", "study-cost-calculator/"),
        ("POST", "submissions/<id>/request-return/"),
        ("POST", "submissions/<id>/transition/"),
        ("POST", "submissions/bonus-payments/"),
        ("POST", "participant-groups/<id>/participants/"),
        ("DELETE", "participant-groups/<id>/participants/"),
        ("POST", "messages/"),
    }
    told = provider.client.call("GET", "messages/", safe=True, params={"user_id": "5fdone"})
    told = told["results"]
    assert [(m["body"], m["data"]["study_id"]) for m in told] == [
        ("Thanks for taking part.", study["id"])
    ]
    assert study["project"] in {
        p["id"]
        for p in provider.client.pages(f"workspaces/{provider.workspace()}/projects/")
        if p["title"] == "Word similarity"
    }


def test_a_dry_run_prints_the_launchs_requests_exactly(tmp_path):
    spec = prolific_spec(tmp_path, platform="{project: Elsewhere}")
    planned = harness_cli(
        *("launch", str(spec), "--target", "prolific-local", "--dry-run"),
        *("--public-url", "http://tasks.test", "--project", "Word similarity"),
    )
    assert planned.exit_code == 0, planned.output
    calls = [json.loads(line) for line in planned.output.splitlines() if line.startswith("{")]
    by_operation = {c["operation"]: c["params"] for c in calls}
    assert by_operation["POST /api/v1/participant-groups/"] == {
        "name": "harness blocked small <launch id>",
        "workspace_id": "<workspace id>",
    }
    study = by_operation["POST /api/v1/studies/"]
    assert study["internal_name"] == "harness study=small launch=<launch id>"
    assert study["external_study_url"].startswith("http://tasks.test/p/small?PROLIFIC_PID=")
    assert study["project"] == "<project id>" and study["reward"] == 15
    assert by_operation["POST /api/v1/workspaces/<workspace id>/projects/"] == {
        "title": "Word similarity"
    }
    problems = [
        p
        for c in calls
        for method, path in [c["operation"].split(" ", 1)]
        if method != "GET"
        for p in request_problems(method, path.removeprefix("/api/v1/"), c["params"])
    ]
    assert problems == []


def _matches(planned: Any, sent: Any) -> bool:
    """Whether a dry run's value is what was sent, a <placeholder> standing for any id."""
    if isinstance(planned, str) and planned.startswith("<") and planned.endswith(">"):
        return True
    if isinstance(planned, dict) and isinstance(sent, dict):
        return planned.keys() == sent.keys() and all(_matches(planned[k], sent[k]) for k in sent)
    if isinstance(planned, list) and isinstance(sent, list):
        return len(planned) == len(sent) and all(map(_matches, planned, sent))
    return bool(planned == sent)


def test_the_dry_run_is_the_launchs_calls_in_order(prolific, tmp_path, monkeypatch):
    spec = prolific_spec(tmp_path, qualifications="{countries: [US]}")
    db = f"sqlite:///{tmp_path / 'h.db'}"
    args = ("--target", "prolific-local", "--endpoint-url", prolific.url, "--db", db)
    args += ("--public-url", "http://tasks.test", "--project", "Word similarity")
    sent = _sent(monkeypatch)
    launched = harness_cli("launch", str(spec), *args)
    assert launched.exit_code == 0, launched.output
    planned = harness_cli("launch", str(spec), *args, "--dry-run")  # knows the launch id now
    calls = [json.loads(line) for line in planned.output.splitlines() if line.startswith("{")]
    ids = re.compile(r"[0-9a-f]{24}|<[^>]+>")
    assert [ids.sub("<id>", c["operation"].split("?")[0]) for c in calls] == [
        ids.sub("<id>", f"{m} /api/v1/{p}") for m, p, _b in sent
    ]
    for call_, (_m, path, body) in zip(calls, sent, strict=True):
        assert _matches(call_["params"], body or {}), (path, call_["params"], body)
