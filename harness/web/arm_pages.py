"""The task server's part in keeping an MTurk worker to one arm of a study (docs/arms.md,
"Arms on MTurk"), and to items they have not rated (adaptive collection).

A worker who opens an accepted HIT of a study with arms is given their arm on their first
arrival (`harness.store.arm_assignment.arrive_at_hit`). A HIT of another arm is not shown: the
page says which group of the study's HITs is theirs and asks them to return this one, and
nothing else is stored. Once their arm is known, the platform is told
(`harness.platform.arm_groups.join`, one attempt while the worker waits; `harness sync` does
what failed), and MTurk then hides the other arms' HITs from them.
"""

from __future__ import annotations

from flask import Response, current_app
from sqlmodel import Session

from harness.i18n import N_, _
from harness.platform.arm_groups import join
from harness.platform.contract import GroupPages
from harness.store.arm_assignment import HitArrival
from harness.store.models import StudyPlatform
from harness.store.posted import KeptStudy
from harness.web.messages import message_page
from harness.web.state import web_state
from harness.web.trust import trust

OTHER_ARM_TITLE = N_("Please return this HIT")
OTHER_ARM = N_(
    "This HIT belongs to another group of this study's HITs than yours. You were placed in "
    "the group \N{LEFT DOUBLE QUOTATION MARK}{title}\N{RIGHT DOUBLE QUOTATION MARK} (HIT group "
    "{group}) when you first opened one of the study's HITs, and only that group's HITs are "
    "yours. Please return this HIT on MTurk and take a HIT of that group instead. Nothing was "
    "recorded from this page."
)


JUDGED_BEFORE = N_(
    "You have rated some of this HIT's items in an earlier HIT of this study, and a second "
    "rating of the same item cannot be used. Please return this HIT on MTurk and take another "
    "HIT of this study. Returning is not held against you. Nothing was recorded from this page."
)


def judged_before_page() -> Response:
    """The page shown instead of an adaptive study's HIT holding an item the worker rated in
    an earlier HIT of the study (MTurk composes HITs from the items still short, and cannot
    keep a worker from one: docs/methods.md, "Adaptive collection")."""
    return message_page(_(OTHER_ARM_TITLE), _(JUDGED_BEFORE), 409)


def other_arm_page(session: Session, study: KeptStudy, arrival: HitArrival) -> Response:
    """The page shown instead of a HIT of another arm than the worker's: their group's title,
    its HIT group id and (on MTurk's sites) a link to it."""
    from harness.platform.registry import platform_named

    mine = web_state().instrument(session, arrival.worker.instrument_id)
    group = arrival.worker.work_type_id or "unknown"
    where = session.get(StudyPlatform, study.id)
    link = ""
    if where is not None and arrival.worker.work_type_id is not None:
        platform = platform_named(where.provider)
        if isinstance(platform, GroupPages):
            link = platform.group_url(study.target, arrival.worker.work_type_id) or ""
    text = _(OTHER_ARM).format(title=mine.spec.hit.title, group=group)
    return message_page(
        _(OTHER_ARM_TITLE),
        text,
        409,
        link=link,
        link_text=_("HITs of the group {title}").format(title=mine.spec.hit.title),
    )


def tell_platform(
    where: StudyPlatform | None, study: KeptStudy, arrival: HitArrival, worker_id: str
) -> None:
    """Put the worker in their arm's group on the platform the study runs on (``where``),
    unless it was done before; a failure is logged (sync does it later), never shown to the
    worker."""
    if arrival.joined or arrival.worker.group_ref is None or where is None:
        return
    state = web_state()
    try:
        provider = trust().verifier.provider(where, study.target)
    except Exception:  # the page is the worker's: whatever failed, the next sync tries again
        current_app.logger.exception("arm group of %s not joined (sync will)", worker_id)
        return
    failure = join(state.engine, provider, study.id, worker_id, arrival.worker, once=True)
    if failure is not None:
        current_app.logger.warning("arm group not joined (sync will): %s", failure)
