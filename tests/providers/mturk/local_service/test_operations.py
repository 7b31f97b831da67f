"""Every operation in botocore's MTurk model is implemented, or docs/local-mturk.md lists it
under "Operations not implemented" with the reason, and the two lists never overlap."""

from __future__ import annotations

import re
from pathlib import Path

import botocore.session
import pytest
from botocore.exceptions import ClientError

from harness.providers.mturk.local_service.requester_api import OPERATIONS

DOC = Path(__file__).resolve().parents[4] / "docs" / "local-mturk.md"


def documented(heading: str) -> dict[str, str]:
    """Operation -> reason, from the table under `heading` in the doc."""
    text = DOC.read_text(encoding="utf-8")
    section = text.split(f"\n## {heading}\n", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| `(\w+)` \| (.+?) \|$", section, flags=re.MULTILINE)
    return dict(rows)


def model_operations() -> set[str]:
    return set(botocore.session.get_session().get_service_model("mturk").operation_names)


def test_every_model_operation_is_implemented_or_documented_with_a_reason():
    missing = model_operations() - set(OPERATIONS)
    listed = documented("Operations not implemented")
    assert set(listed) == missing
    assert all(len(reason.split()) >= 5 for reason in listed.values())


def test_every_implemented_operation_is_in_the_model():
    assert set(OPERATIONS) <= model_operations()


@pytest.mark.parametrize("operation", sorted(documented("Operations not implemented")))
def test_an_operation_not_implemented_is_answered_clearly(mturk, operation):
    r = mturk.raw(operation, "{}")
    assert r.status_code == 400
    assert r.json() == {
        "__type": "UnknownOperationException",
        "Message": f"Operation 'MTurkRequesterServiceV20170117.{operation}' is not supported "
        "by the local MTurk service.",
    }


def test_boto3_sees_unknown_operation(client):
    with pytest.raises(ClientError) as info:
        client.get_file_upload_url(AssignmentId="A" * 30, QuestionIdentifier="q")
    assert info.value.response["Error"]["Code"] == "UnknownOperationException"


def test_the_docs_list_of_implemented_operations_is_the_services():
    text = DOC.read_text(encoding="utf-8")
    paragraph = text.split("\nImplemented (", 1)[1].split("\n## ", 1)[0]
    count, listed = paragraph.split("):", 1)
    assert count == f"{len(OPERATIONS)} of the model's {len(model_operations())}"
    assert set(re.findall(r"\b[A-Z][A-Za-z]+\b", listed)) == set(OPERATIONS)
