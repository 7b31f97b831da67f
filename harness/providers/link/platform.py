"""A study link: the researcher's own participants (a lab, a mailing list, a panel) open one URL.

There is no platform behind it: harness's task server is the whole of it. The launch opens the
study (`harness.platform.places`) and prints its URL; each participant arrives with an id
(``?participant=...``; without one they get an anonymous id) and the allocator gives them a
slot; the same task pages and live screening run; the end is a page with the study's
completion code. Nobody is paid through harness: approvals, rejections and bonuses are recorded
in the event log (`harness.platform.actions`: ``review.approved``, ``review.rejected``,
``review.bonus``) for the researcher to pay from. Pausing turns new arrivals away at the entry
page (`harness.web.participants`). Imports nothing heavy.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Mapping, Sequence
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from harness.errors import InputError
from harness.hosting import Hosting
from harness.platform.contract import (
    Arrival,
    Capabilities,
    CostEstimate,
    DemoEntry,
    Messaging,
    Pausing,
    PlatformEvent,
    Provider,
    Request,
    WorkSettings,
    WorkUnit,
)
from harness.platform.task_page_question import task_page_question

if TYPE_CHECKING:
    from harness.answer import Answer
    from harness.render.plan import HitPlan

PARTICIPANT = "participant"
"""The query parameter that names a participant on the study's URL."""

ANONYMOUS_PREFIX = "anon-"
_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._@+-]{0,99}$")


class LinkPlatform:
    """Participants by a link: one target, ``link``; no money changes hands through harness."""

    name = "link"
    label = "the study link"
    unit_noun = "HIT"
    targets: tuple[str, ...] = ("link",)
    hostings: tuple[Hosting, ...] = (Hosting.EXTERNAL,)
    capabilities = Capabilities(
        pays=False,  # approvals, rejections and bonuses are recorded for the researcher to act on
        messaging=Messaging(
            False,
            "a study link knows no address of its participants: write to them the way you "
            "recruited them",
        ),
        crowd_door="harness.providers.link.crowd:link_door",  # how simulated participants come
        demo=DemoEntry(
            "link", "link", "a study link for your own participants", crowd_size=30, rank=2
        ),
        pausing=Pausing(
            True,
            "the study's link turns new participants away with a page saying the study is paused; "
            "participants already working can finish and submit.",
            at_entry=True,
        ),
    )

    def is_local(self, target: str) -> bool:
        return True  # no account, no platform: pages on loopback are fine

    def real_money(self, target: str) -> bool:
        return False  # the researcher pays their participants themselves

    def stand_in(self, target: str) -> str:
        return target

    def endpoint(self, target: str, endpoint_url: str | None) -> str | None:
        return None

    def connect(self, target: str, endpoint_url: str | None) -> Provider:
        from harness.providers.link.provider import LinkProvider

        return LinkProvider()

    def start_local(self, endpoint_url: str | None) -> str:
        return "the study link needs no service: participants use the task server (harness serve)"

    def local_service(self, port: int, state: str) -> None:
        return None

    # -- money and limits -------------------------------------------------------------------
    def estimate(self, reward: Decimal, units: int, assignments_per_unit: int) -> CostEstimate:
        n = units * assignments_per_unit
        return CostEstimate(n, reward * n, Decimal("0.00"))

    def bonus_cost(self, amount: Decimal) -> Decimal:
        return amount

    def problems(self, settings: WorkSettings, hosting: Hosting) -> list[tuple[str, str]]:
        if hosting not in self.hostings:
            return [("hosting", "a study link shows harness's own pages: use hosting: external")]
        return []

    def warnings(self, settings: WorkSettings, assignments_per_unit: int) -> list[str]:
        out = []
        if settings.countries or settings.min_approval_rate or settings.min_approved:
            out.append(
                "qualifications (countries, approval rate, approved HITs) cannot be checked on "
                "a study link: whoever has the link can take part"
            )
        return out

    def raters_refusal(self, unit_id: str, current: int, new: int) -> str | None:
        return None

    # -- documents --------------------------------------------------------------------------
    question = task_page_question  # the HIT's task page on harness's server

    def read_answers(self, document: str, plan: HitPlan) -> list[Answer]:
        raise ValueError("a study link keeps no answers of its own: the task server stored them")

    def read_fields(self, document: str) -> list[tuple[str, str]]:
        raise ValueError("a study link keeps no answers of its own: the task server stored them")

    def dry_run(
        self, settings: WorkSettings, units: Sequence[WorkUnit], queue: str | None, study_key: str
    ) -> list[Request]:
        places = sum(u.assignments for u in units)
        return [Request("open", {"study": study_key, "places": places, "hits": len(units)})]

    def events(self, body: str) -> list[PlatformEvent]:
        return []

    def queue_client(self, target: str, queue_url: str) -> Any:
        raise InputError("a study link sends no notifications: sync without --from-queue")

    # -- participants -------------------------------------------------------------------------
    def arrival(self, args: Mapping[str, str]) -> Arrival:
        """``?participant=ID`` names the participant; without it `InputError` (the page then
        gives them an anonymous id, see `anonymous_id`)."""
        given = (args.get(PARTICIPANT) or "").strip()
        if not given:
            raise InputError("the link names no participant")
        if not _ID.match(given):
            raise InputError(
                f"participant {given[:40]!r}: an id is 1 to 100 letters, digits or . _ @ + -"
            )
        return Arrival(given, None, None)

    def completion_url(self, target: str, endpoint_url: str | None, code: str) -> str | None:
        return None  # harness shows the completion code itself

    def anonymous_query(self, args: Mapping[str, str]) -> dict[str, str] | None:
        """The entry page's query with an anonymous id, for a participant who came without
        one; None when they gave one (a bad one is refused, not replaced)."""
        if (args.get(PARTICIPANT) or "").strip():
            return None
        return dict(args) | {PARTICIPANT: anonymous_id()}

    def again_query(self, worker_id: str) -> dict[str, str]:
        """The entry page's query that brings the same participant back for another part."""
        return {PARTICIPANT: worker_id}


def anonymous_id() -> str:
    """A fresh id for a participant who arrived without one."""
    return ANONYMOUS_PREFIX + secrets.token_hex(8)


LINK = LinkPlatform()
