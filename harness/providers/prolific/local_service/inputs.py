"""What the local Prolific service accepts from a request, checked before anything is stored.

Bodies are parsed with the local MTurk service's bounded JSON reader (nesting depth, finite
numbers, UTF-8), and every field the service later computes with (money, counts, minutes,
filters, profiles) is checked for its type and range here, so a bad value is a 400 in Prolific's
error shape when it arrives, never a 500 then or on every later request that reads it back.
"""

from __future__ import annotations

import math
from decimal import Decimal
from typing import Any

from flask import request

from harness.providers.mturk.local_service.jsonbody import BodyError, parse_json
from harness.providers.prolific.local_service.app import ApiError

MAX_TEXT = 10_000
"""Characters in a text field (Prolific's descriptions are far shorter)."""
MAX_CENTS = 10**8
"""A million dollars: more than any reward, bonus or balance the service is asked for."""
MAX_PLACES = 10**6
MAX_MINUTES = 10**5


def json_object() -> dict[str, Any]:
    """The request's JSON body as an object (bounded, finite numbers), or 400: when it is
    not JSON, or not an object (an empty body is neither)."""
    raw = request.get_data(cache=True)
    try:
        data = parse_json(raw) if raw.strip() else None
    except BodyError as exc:
        raise ApiError(400, f"The request body is refused: {exc}.") from None
    if not isinstance(data, dict):
        raise ApiError(400, "The request body must be a JSON object.")
    return data


def is_text(value: Any, limit: int = MAX_TEXT) -> bool:
    return isinstance(value, str) and len(value) <= limit and "\x00" not in value


def is_whole(value: Any, low: int, high: int) -> bool:
    """An int (not a bool) within ``low..high``."""
    return isinstance(value, int) and not isinstance(value, bool) and low <= value <= high


def number(value: Any, low: float, high: float) -> float | None:
    """``value`` (a number, or text of one in ASCII digits) as a float within ``low..high``;
    None when it is anything else."""
    if isinstance(value, bool):
        return None
    if isinstance(value, str):
        text = value.strip()
        if not text or not text.isascii() or "_" in text:
            return None
        try:
            value = float(text)
        except ValueError:
            return None
    if not isinstance(value, int | float):
        return None
    result = float(value)
    return result if math.isfinite(result) and low <= result <= high else None


def amount(text: str) -> Decimal | None:
    """``text`` (ASCII digits) as an amount of money above 0 and at most `MAX_CENTS` cents;
    None when it is anything else."""
    text = text.strip()
    if not text.isascii() or "_" in text:
        return None
    try:
        money = Decimal(text)
    except ArithmeticError:
        return None
    return money if money.is_finite() and 0 < money <= Decimal(MAX_CENTS) / 100 else None


def study_problems(data: dict[str, Any], filter_ids: set[str]) -> dict[str, list[str]]:
    """Field problems of a new study's body (Prolific's ``{field: [messages]}`` shape);
    ``filter_ids`` are the filters Prolific has."""
    problems: dict[str, list[str]] = {}
    for name in ("name", "description", "external_study_url"):
        if not is_text(data[name]):
            problems[name] = [f"Must be text of at most {MAX_TEXT} characters."]
    for name in ("internal_name", "prolific_id_option"):
        if name in data and not is_text(data[name]):
            problems[name] = [f"Must be text of at most {MAX_TEXT} characters."]
    limits = {
        "reward": MAX_CENTS,
        "total_available_places": MAX_PLACES,
        "estimated_completion_time": MAX_MINUTES,
    }
    for name, high in limits.items():
        if not is_whole(data[name], 1, high):
            problems[name] = [f"Must be a whole number from 1 to {high}."]
    allowed = data.get("maximum_allowed_time")
    if allowed is not None and not is_whole(allowed, 1, MAX_MINUTES):
        problems["maximum_allowed_time"] = [f"Must be a whole number from 1 to {MAX_MINUTES}."]
    codes = data["completion_codes"]
    if (
        not isinstance(codes, list)
        or not codes
        or not all(isinstance(c, dict) and is_text(c.get("code"), 100) and c["code"] for c in codes)
    ):
        problems["completion_codes"] = ["A list of objects with a code."]
    devices = data.get("device_compatibility", [])
    if not isinstance(devices, list) or not all(is_text(d, 100) for d in devices):
        problems["device_compatibility"] = ["A list of device names."]
    filters = data.get("filters", [])
    wrong = filter_problem(filters, filter_ids)
    if wrong:
        problems["filters"] = [wrong]
    return problems


def filter_problem(filters: Any, filter_ids: set[str]) -> str | None:
    """Why a study's filters cannot be used to decide eligibility (None: they can): a filter
    Prolific does not have is refused by name, never ignored."""
    if not isinstance(filters, list):
        return "A list of filters."
    for f in filters:
        if not isinstance(f, dict) or not is_text(f.get("filter_id"), 200):
            return "Each filter is an object with a filter_id."
        if f["filter_id"] not in filter_ids:
            return f"Unknown filter_id {f['filter_id']!r}: see GET /api/v1/filters/."
        values = f.get("selected_values", [])
        if not isinstance(values, list) or not all(
            is_text(v, 200) or is_whole(v, 0, 10**9) for v in values
        ):
            return f"{f['filter_id']}: selected_values must be a list of ids."
        bounds = f.get("selected_range", {})
        if not isinstance(bounds, dict) or any(
            bounds.get(k) is not None and number(bounds[k], -1e18, 1e18) is None
            for k in ("lower", "upper")
        ):
            return f"{f['filter_id']}: selected_range must hold numbers lower and upper."
    return None


PROFILE = {"approval_rate": (0.0, 100.0), "approvals": (0.0, 1e9)}


def profile_problems(data: dict[str, Any]) -> dict[str, list[str]]:
    """Problems with the profile a participant states (country, approval rate, approvals)."""
    problems: dict[str, list[str]] = {}
    if "country" in data and not is_text(data["country"], 100):
        problems["country"] = ["A country's name, e.g. United States."]
    for key, (low, high) in PROFILE.items():
        if key in data and number(data[key], low, high) is None:
            problems[key] = [f"A number from {low:g} to {high:g}."]
    return problems


def id_list(value: Any, name: str) -> list[str]:
    """A list of id strings, or 400 naming the field."""
    if not isinstance(value, list) or not all(is_text(v, 200) and v for v in value):
        raise ApiError(400, {name: ["A list of ids."]})
    return value
