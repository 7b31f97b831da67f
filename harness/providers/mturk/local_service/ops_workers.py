"""Requester operations on workers: blocks and messages."""

from __future__ import annotations

from typing import Any

from sqlalchemy import delete, select
from sqlalchemy.dialects.sqlite import insert

from harness.providers.mturk.local_service import models
from harness.providers.mturk.local_service.api_errors import check_length, invalid_value
from harness.providers.mturk.local_service.ops_quals import message
from harness.providers.mturk.local_service.serialize import keyed_page
from harness.providers.mturk.local_service.state import Ctx

WB = models.worker_blocks
MAX_NOTIFY = 100


def create_worker_block(ctx: Ctx, p: dict[str, Any]) -> dict[str, Any]:
    block = insert(WB).values(worker_id=p["WorkerId"], reason=p["Reason"])
    ctx.conn.execute(
        block.on_conflict_do_update(index_elements=["worker_id"], set_={"reason": p["Reason"]})
    )
    return {}


def delete_worker_block(ctx: Ctx, p: dict[str, Any]) -> dict[str, Any]:
    # Unblocking a worker who is not blocked succeeds (chosen; MTurk does not document it).
    ctx.conn.execute(delete(WB).where(WB.c.worker_id == p["WorkerId"]))
    return {}


def list_worker_blocks(ctx: Ctx, p: dict[str, Any]) -> dict[str, Any]:
    page, extra = keyed_page(ctx.conn, select(WB), WB.c.seq, p)
    return {
        "WorkerBlocks": [{"WorkerId": b.worker_id, "Reason": b.reason} for b in page],
        **extra,
    }


def notify_workers(ctx: Ctx, p: dict[str, Any]) -> dict[str, Any]:
    """Message 1 to 100 workers; a worker this service has never seen is a HardFailure."""
    ids = p["WorkerIds"]
    if not 1 <= len(ids) <= MAX_NOTIFY:
        raise invalid_value(
            f"{len(ids)} worker ids", "WorkerIds", f"1 to {MAX_NOTIFY} can be given."
        )
    check_length(p, "Subject", 200)  # MTurk's documented limits
    check_length(p, "MessageText", 4096)
    known = {
        w
        for (w,) in ctx.conn.execute(
            select(models.workers.c.id).where(models.workers.c.id.in_(ids))
        )
    }
    failures = []
    for worker_id in ids:
        if worker_id in known:
            message(ctx, worker_id, p["Subject"], p["MessageText"])
        else:
            failures.append(
                {
                    "NotifyWorkersFailureCode": "HardFailure",
                    "NotifyWorkersFailureMessage": f"Cannot send notification to {worker_id}: "
                    "the worker is unknown.",
                    "WorkerId": worker_id,
                }
            )
    return {"NotifyWorkersFailureStatuses": failures}


OPERATIONS = {
    "CreateWorkerBlock": create_worker_block,
    "DeleteWorkerBlock": delete_worker_block,
    "ListWorkerBlocks": list_worker_blocks,
    "NotifyWorkers": notify_workers,
}
