"""The request bodies harness sends to Prolific (pure: a dry run prints them)."""

from __future__ import annotations

from typing import Any

from harness.platform.contract import WorkSettings
from harness.providers.prolific import pricing

URL_PARAMETERS = (
    "PROLIFIC_PID={{%PROLIFIC_PID%}}&STUDY_ID={{%STUDY_ID%}}&SESSION_ID={{%SESSION_ID%}}"
)

COUNTRY_NAMES = {
    "GB": "United Kingdom",
    "US": "United States",
    "IE": "Ireland",
    "DE": "Germany",
    "FR": "France",
    "ES": "Spain",
    "IT": "Italy",
    "NL": "Netherlands",
    "CA": "Canada",
    "AU": "Australia",
    "NZ": "New Zealand",
    "ZA": "South Africa",
    "PT": "Portugal",
    "PL": "Poland",
    "MX": "Mexico",
    "IN": "India",
}
"""The spec's ISO codes as Prolific names the countries in its filter's choices."""


def filters(settings: WorkSettings, exclude_ref: str, country_ids: dict[str, str]) -> list[Any]:
    """The study's filters: countries, approval rate and number, and the blocklist group."""
    out: list[dict[str, Any]] = []
    if settings.countries:
        out.append(
            {
                "filter_id": "current-country-of-residence",
                "selected_values": [country_ids.get(c, f"<{c}>") for c in settings.countries],
            }
        )
    if settings.min_approval_rate is not None:
        out.append(
            {
                "filter_id": "approval_rate",
                "selected_range": {"lower": settings.min_approval_rate, "upper": 100},
            }
        )
    if settings.min_approved is not None:
        out.append(
            {"filter_id": "approval_numbers", "selected_range": {"lower": settings.min_approved}}
        )
    out.append({"filter_id": "participant_group_blocklist", "selected_values": [exclude_ref]})
    return out


def create_group(study_key: str, workspace: str) -> dict[str, Any]:
    """The body of ``POST /api/v1/participant-groups/``: the study's blocklist group."""
    return {"name": f"harness blocked {study_key}", "workspace_id": workspace}


def create_project(title: str) -> dict[str, Any]:
    """The body of ``POST /api/v1/workspaces/<id>/projects/``."""
    return {"title": title}


def cost_quote(study: dict[str, Any]) -> dict[str, Any]:
    """The body of ``POST /api/v1/study-cost-calculator/`` for a study's body."""
    return {"reward": study["reward"], "total_available_places": study["total_available_places"]}


def create_study(
    settings: WorkSettings,
    label: str,
    places: int,
    url: str,
    code: str,
    exclude_ref: str,
    country_ids: dict[str, str],
    project: str | None = None,
) -> dict[str, Any]:
    """The body of ``POST /api/v1/studies/`` (a draft; published by a transition after); the
    reward in the minor unit of the workspace's currency, which is the spec's."""
    sep = "&" if "?" in url else "?"
    minutes = pricing.estimated_minutes(settings.assignment_duration)
    body = {
        "name": settings.title,
        "internal_name": label,
        "description": settings.description,
        "external_study_url": f"{url}{sep}{URL_PARAMETERS}",
        "prolific_id_option": "url_parameters",
        "completion_codes": [
            {"code": code, "code_type": "COMPLETED", "actions": [{"action": "MANUALLY_REVIEW"}]}
        ],
        "total_available_places": places,
        "estimated_completion_time": minutes,
        "maximum_allowed_time": max(minutes, settings.assignment_duration // 60),
        "reward": pricing.cents(settings.reward),
        "device_compatibility": ["desktop"],
        "filters": filters(settings, exclude_ref, country_ids),
    }
    return body | ({"project": project} if project else {})
