"""Tell the platform each worker's arm, so it keeps them from the other arms' work.

On MTurk each arm of a study is a group of workers (a qualification type) that the other arms'
HITs require not to exist (`harness.platform.launch_arms`). Once harness knows a worker's arm
(`harness.store.arm_assignment`: the task server at their first arrival with external hosting;
sync at their first submission with MTurk hosting) the worker is put in the arm's group, and
`WorkerArm.joined_at` records it. The task server asks once, while the worker waits for their
page; whatever it could not do, `harness sync` does (`join_all`). Putting a worker in a group
sets a value, so doing it twice changes nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import sqlalchemy as sa

from harness.errors import HarnessError
from harness.platform.contract import GroupsProvider, Provider
from harness.store.arm_assignment import ArmRef, mark_joined, unjoined
from harness.store.database import session_scope
from harness.store.events import EventKind, record_event


def join(
    engine: sa.Engine,
    provider: Provider,
    study_id: int,
    worker_id: str,
    arm: ArmRef,
    *,
    once: bool = False,
) -> str | None:
    """Put the worker (the platform's id) in their arm's group and record it; what went wrong
    in words, or None (done, or nothing to do: an arm without a group, a platform without
    groups). ``once``: one attempt (a worker is waiting)."""
    if arm.group_ref is None or not isinstance(provider, GroupsProvider):
        return None
    try:
        provider.join_group(arm.group_ref, worker_id, once=once)
    except HarnessError as exc:
        return f"worker {worker_id}, arm {arm.name}: {exc}"
    with session_scope(engine) as session:
        mark_joined(session, study_id, worker_id)
        record_event(
            session,
            EventKind.ARM_JOINED,
            study_id=study_id,
            subject=worker_id,
            payload={"arm": arm.name, "group": arm.group_ref},
        )
    return None


@dataclass
class Joined:
    """What `join_all` did: workers put in their arm's group, and what failed (in words)."""

    joined: int = 0
    failures: list[str] = field(default_factory=list)


def join_all(engine: sa.Engine, provider: Provider, study_id: int) -> Joined:
    """Put every worker of the study the platform has not been told the arm of yet in their
    arm's group (what sync does after reading the platform)."""
    out = Joined()
    with session_scope(engine) as session:
        todo = unjoined(session, study_id)
    for worker_id, arm in todo:
        failure = join(engine, provider, study_id, worker_id, arm)
        if failure is None:
            out.joined += 1
        else:
            out.failures.append(failure)
    return out
