"""What a task-server worker process loads as it starts, before it serves a request: the
modules screening, verification and acting on decisions import on first use (scipy.stats alone
is slow to import), and a platform client for each platform a launched study runs
on (boto3 reads its service model as it makes one).

Without it the first submissions each worker process takes pay for all of that during the
crowd, several at once, and their workers wait. `harness serve` imports the modules in the
gunicorn master before it forks (`before_fork`: no connection is open there, and numpy was
imported there already), so each worker process, a restarted one too, starts with them, and
calls `warm_up` in each worker's app factory, after the fork, so no database connection or
platform client crosses a fork. A failure only costs the speed-up: it is logged, and the first
request that needs a client makes it, as it would have.
"""

from __future__ import annotations

import importlib
import logging

import sqlalchemy as sa
from sqlmodel import col, select

from harness.platform.registry import load, platforms
from harness.platform.verification import Verifier
from harness.store.database import session_scope
from harness.store.models import Study, StudyPlatform

LOG = logging.getLogger(__name__)

MODULES = (
    "harness.screening.live",  # pandas, scipy.stats, the heuristics
    "harness.platform.decisions",  # acting on decisions
    "harness.render.pages",  # task pages
)
"""Imported by every task-server worker process as it starts."""


def import_modules() -> list[str]:
    """Import `MODULES` and run each platform's preload (`Capabilities.preload`: boto3's MTurk
    service model); what was loaded already costs nothing. The names imported or run."""
    for name in MODULES:
        importlib.import_module(name)
    preloads = [p.capabilities.preload for p in platforms() if p.capabilities.preload]
    for where in preloads:
        load(where)()
    return [*MODULES, *preloads]


def before_fork() -> None:
    """`import_modules` in a server's master process, before it forks its workers; a failure
    is logged (each worker process tries again in `warm_up`)."""
    try:
        import_modules()
    except Exception:  # noqa: BLE001 - a warm-up never stops a server from serving
        LOG.warning("importing ahead of the worker processes failed", exc_info=True)


def connect_launched(engine: sa.Engine, verifier: Verifier) -> int:
    """Make ``verifier``'s provider (the process's one client) for each platform, target and
    endpoint a launched study of the store runs on; how many were made or found."""
    with session_scope(engine) as session:
        on = col(Study.id) == col(StudyPlatform.study_id)
        places = session.exec(select(StudyPlatform, Study.target).join(Study, on)).all()
        wheres = {(w.provider, target, w.endpoint_url): (w, target) for w, target in places}
        for where, _ in wheres.values():
            session.expunge(where)
    made = 0
    for where, target in wheres.values():
        try:
            verifier.provider(where, target)
        except Exception:  # noqa: BLE001 - logged; the first request that needs it retries
            LOG.warning(
                "could not connect to %s (%s) ahead of requests",
                where.provider,
                target,
                exc_info=True,
            )
            continue
        made += 1
    return made


def warm_up(engine: sa.Engine, verifier: Verifier) -> None:
    """Import what requests and screening need and connect to the studies' platforms, now
    rather than during the crowd."""
    try:
        import_modules()
        connect_launched(engine, verifier)
    except Exception:  # noqa: BLE001 - a warm-up never stops a worker from serving
        LOG.warning("warming up the worker process failed", exc_info=True)
