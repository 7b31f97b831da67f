"""Shared by launch, sync, review, status and expire: the store, and the provider of a study.

The target and endpoint are stored with the study at launch, so later commands need only the
study's name (and the database).
"""

from __future__ import annotations

from typing import Any

import click
import sqlalchemy as sa

from harness.errors import InputError
from harness.platform.provider import Provider
from harness.store import database_url, make_engine

db_option = click.option(
    "--db",
    "db",
    metavar="URL|PATH",
    default=None,
    help="Database URL or SQLite file (default: $HARNESS_DATABASE_URL, else harness.db).",
)


def open_engine(db: str | None) -> sa.Engine:
    return make_engine(database_url(db))


def make_provider(provider: str, target: str, endpoint_url: str | None) -> Provider:
    """The provider a study runs on (today: MTurk, on local, sandbox or production)."""
    if provider != "mturk":
        raise InputError(f"unknown platform provider {provider!r}; harness knows: mturk")
    from harness.platform.mturk import MTurkProvider, make_client

    return MTurkProvider(make_client(target, endpoint_url), target)


def echo_err(message: str, **kwargs: Any) -> None:
    click.echo(message, err=True, **kwargs)


def study_provider(engine: sa.Engine, study_name: str) -> Provider:
    """The provider of a launched study, from what the launch stored (target, endpoint)."""
    from harness.platform.studies import find_study, platform_of
    from harness.store import session_scope

    with session_scope(engine) as session:
        study = find_study(session, study_name)
        platform = platform_of(session, study)
        return make_provider(platform.provider, study.target, platform.endpoint_url)


def live_screening(session: Any, assignment_id: int) -> None:
    """The after-submission hook: screen the new assignment, storing decisions for review."""
    from harness.screening.live import screen_assignment

    screen_assignment(session, assignment_id)


def screen_and_act(session: Any, assignment_id: int) -> None:
    """The after-submission hook that also carries out what screening decided (block, reject,
    replace) at once, on the study's platform, instead of waiting for `harness review`."""
    from harness.platform.review import apply_pending_decisions
    from harness.platform.studies import platform_of
    from harness.store.models import Assignment, Hit, Study

    live_screening(session, assignment_id)
    assignment = session.get(Assignment, assignment_id)
    study = session.get(Study, session.get(Hit, assignment.hit_id).study_id)
    platform = platform_of(session, study)
    key = (study.target, platform.endpoint_url)
    provider = _providers.get(key)
    if provider is None:
        provider = _providers[key] = make_provider(platform.provider, *key)
    apply_pending_decisions(session, provider, study)


_providers: dict[tuple[str, str | None], Provider] = {}
"""One provider per (target, endpoint) for the hooks of a long-running process."""


apply_option = click.option(
    "--apply-decisions/--no-apply-decisions",
    default=True,
    show_default=True,
    help="Carry out screening's block, reject and replace decisions as submissions arrive "
    "(otherwise `harness review` does).",
)


def after_submission_hook(apply: bool) -> Any:
    return screen_and_act if apply else live_screening
