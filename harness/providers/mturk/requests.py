"""The MTurk requests harness sends, built from plain settings (no client, nothing sent).

Kept apart from the provider so `harness launch --dry-run` can print exactly what would be sent.
"""

from __future__ import annotations

from typing import Any

from harness.platform.contract import WorkSettings, WorkUnit
from harness.providers.mturk.pricing import format_amount

LOCALE = "00000000000000000071"
PERCENT_APPROVED = "000000000000000000L0"
NUMBER_APPROVED = "00000000000000000040"
HIDE = "DiscoverPreviewAndAccept"


def exclusion_qualification(study_key: str) -> dict[str, Any]:
    """CreateQualificationType for a study's exclusion group (blocked and excluded workers);
    ``study_key`` is the study's name and launch id, so the name is unique to the study."""
    return {
        "Name": f"harness exclude {study_key}",
        "Description": (
            f"Workers who may not take part in study {study_key} (blocked by its screening, "
            "or took part in a study it excludes)."
        ),
        "QualificationTypeStatus": "Active",
    }


def group_qualification(study_key: str, group: str) -> dict[str, Any]:
    """CreateQualificationType for one group of a study's workers (an arm): the workers of the
    group hold it, and the HITs of the other groups require it not to exist."""
    return {
        "Name": f"harness group {group} {study_key}",
        "Description": (
            f"Workers of group {group} of study {study_key}: they take that group's HITs only."
        ),
        "QualificationTypeStatus": "Active",
    }


def requirements(settings: WorkSettings, exclude_ref: str | None) -> list[dict[str, Any]]:
    """Qualification requirements: countries, approval rate and count, the exclusion group,
    and the groups kept out (the other arms' workers).

    Every requirement hides the HIT from workers who fail it (DiscoverPreviewAndAccept).
    """
    out: list[dict[str, Any]] = []
    if settings.countries:
        out.append(
            {
                "QualificationTypeId": LOCALE,
                "Comparator": "In",
                "LocaleValues": [{"Country": c} for c in settings.countries],
                "ActionsGuarded": HIDE,
            }
        )
    for type_id, least in (
        (PERCENT_APPROVED, settings.min_approval_rate),
        (NUMBER_APPROVED, settings.min_approved),
    ):
        if least is not None:
            out.append(
                {
                    "QualificationTypeId": type_id,
                    "Comparator": "GreaterThanOrEqualTo",
                    "IntegerValues": [least],
                    "ActionsGuarded": HIDE,
                }
            )
    for type_id in ([exclude_ref] if exclude_ref is not None else []) + list(settings.keep_out):
        out.append(
            {
                "QualificationTypeId": type_id,
                "Comparator": "DoesNotExist",
                "ActionsGuarded": HIDE,
            }
        )
    return out


def hit_type(settings: WorkSettings, exclude_ref: str | None) -> dict[str, Any]:
    """CreateHITType for the study's HITs."""
    params: dict[str, Any] = {
        "Title": settings.title,
        "Description": settings.description,
        "Reward": format_amount(settings.reward),
        "AssignmentDurationInSeconds": settings.assignment_duration,
        "AutoApprovalDelayInSeconds": settings.auto_approval_delay,
        "QualificationRequirements": requirements(settings, exclude_ref),
    }
    if settings.keywords:
        params["Keywords"] = ", ".join(settings.keywords)
    return params


def create_hit(hit_type_id: str, unit: WorkUnit) -> dict[str, Any]:
    """CreateHITWithHITType for one unit, with its UniqueRequestToken and RequesterAnnotation."""
    return {
        "HITTypeId": hit_type_id,
        "MaxAssignments": unit.assignments,
        "LifetimeInSeconds": unit.lifetime,
        "Question": unit.question,
        "RequesterAnnotation": unit.label,
        "UniqueRequestToken": unit.token,
    }


def notification(queue_url: str) -> dict[str, Any]:
    """The Notification member of UpdateNotificationSettings: every assignment and HIT event."""
    return {
        "Destination": queue_url,
        "Transport": "SQS",
        "Version": "2014-08-15",
        "EventTypes": [
            "AssignmentAccepted",
            "AssignmentSubmitted",
            "AssignmentReturned",
            "AssignmentAbandoned",
            "AssignmentApproved",
            "AssignmentRejected",
            "HITReviewable",
            "HITExpired",
        ],
    }
