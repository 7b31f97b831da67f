"""Prolific's published API schema as the oracle, through the client generated from it
(`pyrolific`, a dev dependency): its models parse what the local service answers, and the
request models parse what harness sends, with no field the schema does not name."""

from __future__ import annotations

import inspect
import re
from types import ModuleType
from typing import Any

import attrs
from pyrolific import AuthenticatedClient
from pyrolific.models import (
    CreateBonusPaymentsBody,
    CreateParticipantGroupBody,
    CreateProject,
    CreateStudy,
    ParticipantIDList,
    RequestSubmissionReturnBody,
    SendMessage,
    StudyCostRequest,
    StudyTransition,
    SubmissionTransition,
)
from pyrolific.types import Unset

TOKEN = "local"


def generated_client(url: str) -> AuthenticatedClient:
    """The generated client, unchanged, on ``url``; an answer the schema does not list for
    the call (a 404, a 400) raises."""
    return AuthenticatedClient(
        base_url=url, token=TOKEN, prefix="Token", raise_on_unexpected_status=True
    )


def call(client: AuthenticatedClient, endpoint: ModuleType, *args: Any, **kwargs: Any) -> Any:
    """``endpoint.sync_detailed``: its parsed answer (a model of the schema), which must be
    there for a documented status."""
    if "authorization" in inspect.signature(endpoint.sync_detailed).parameters:
        kwargs["authorization"] = f"Token {TOKEN}"
    answer = endpoint.sync_detailed(*args, client=client, **kwargs)
    assert 200 <= answer.status_code < 300, (answer.status_code, answer.content)
    return answer.parsed


def undocumented(model: Any, where: str = "") -> list[str]:
    """Every field of ``model`` (and of the models inside it) that the schema does not name."""
    if isinstance(model, list):
        return [p for i, m in enumerate(model) for p in undocumented(m, f"{where}[{i}]")]
    if not attrs.has(type(model)):
        return []
    found = [f"{where}.{k}" for k in getattr(model, "additional_properties", {})]
    for field in attrs.fields(type(model)):
        if field.name != "additional_properties":
            value = getattr(model, field.name)
            if not isinstance(value, Unset):
                found += undocumented(value, f"{where}.{field.name}")
    return found


REQUESTS: list[tuple[str, str, Any]] = [
    ("POST", r"studies/", CreateStudy),
    ("PATCH", r"studies/[^/]+/", CreateStudy),
    ("POST", r"studies/[^/]+/transition/", StudyTransition),
    ("POST", r"study-cost-calculator/", StudyCostRequest),
    ("POST", r"workspaces/[^/]+/projects/", CreateProject),
    ("POST", r"participant-groups/", CreateParticipantGroupBody),
    ("POST", r"participant-groups/[^/]+/participants/", ParticipantIDList),
    ("DELETE", r"participant-groups/[^/]+/participants/", ParticipantIDList),
    ("POST", r"submissions/[^/]+/transition/", SubmissionTransition),
    ("POST", r"submissions/[^/]+/request-return/", RequestSubmissionReturnBody),
    ("POST", r"submissions/bonus-payments/", CreateBonusPaymentsBody),
    ("POST", r"messages/", SendMessage),
]
"""The request bodies harness sends, by method and path under /api/v1/, and their model."""


def request_problems(method: str, path: str, body: Any) -> list[str]:
    """Why a request harness sends is not one the schema describes (empty: it is)."""
    for wanted, pattern, model in REQUESTS:
        if method == wanted and re.fullmatch(pattern, path):
            try:
                parsed = model.from_dict(body)
            except (KeyError, ValueError, TypeError) as exc:
                return [f"{method} {path}: {type(exc).__name__} {exc}"]
            return [f"{method} {path}: {p}" for p in undocumented(parsed, "body")]
    return [] if body is None else [f"{method} {path}: a body the schema has no model for"]
