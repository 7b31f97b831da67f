"""MTurk as harness knows it before connecting: targets, fees and limits, question and answer
documents, dry-run requests, and notifications (MTurk's SQS event messages).

Imports nothing heavy: `harness validate` and `harness launch --dry-run` use it without boto3.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from decimal import Decimal
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from harness.errors import InputError
from harness.hosting import Hosting
from harness.platform.contract import (
    Capabilities,
    CostEstimate,
    DemoEntry,
    EventTopic,
    LocalCommand,
    LocalService,
    Messaging,
    Pausing,
    PlatformEvent,
    Provider,
    Request,
    WorkSettings,
    WorkUnit,
)
from harness.platform.local_service import is_loopback
from harness.providers.mturk import pricing

if TYPE_CHECKING:
    from harness.answer import Answer
    from harness.render.instrument import Instrument
    from harness.render.plan import HitPlan

MIN_REWARD = Decimal("0.01")
"""MTurk's smallest reward per assignment."""

APPROVAL_RATE_FLOOR = 100
"""Below this many decided HITs MTurk reports a worker's approval rate as 100%."""

WORKER_SITES = {
    "sandbox": "https://workersandbox.mturk.com",
    "production": "https://www.mturk.com",
}
"""MTurk's worker-facing sites, where workers accept and complete assignments."""
GROUP_PAGES = {
    "sandbox": "https://workersandbox.mturk.com/projects/{group}/tasks",
    "production": "https://worker.mturk.com/projects/{group}/tasks",
}
"""Where a worker finds the HITs of one HIT group (its HIT type id) on MTurk's worker site."""
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")

ASSIGNMENT_EVENTS = {"AssignmentSubmitted", "AssignmentApproved", "AssignmentRejected"}
HIT_EVENTS = {"HITReviewable", "HITExpired"}


class MTurkPlatform:
    """MTurk: the local MTurk-compatible service, the sandbox, or production."""

    name = "mturk"
    label = "MTurk"
    unit_noun = "HIT"
    targets: tuple[str, ...] = ("local", "sandbox", "production")
    hostings: tuple[Hosting, ...] = (Hosting.EXTERNAL, Hosting.MTURK)
    capabilities = Capabilities(
        pausing=Pausing(
            False,
            "MTurk has no pause: its API can only expire a HIT, which stops new workers for good "
            "(workers already on it can still submit). To stop new workers, expire the study; "
            "to collect more work later, launch a new study.",
        ),
        messaging=Messaging(  # NotifyWorkers' documented limits
            True, "MTurk e-mails it to the worker, from MTurk", subject=200, text=4096
        ),
        arm_groups=True,  # keeps a worker to one arm's HITs (a qualification per arm)
        auto_approves=True,  # AutoApprovalDelayInSeconds after a submission
        crowd_door="harness.providers.mturk.crowd:mturk_door",  # the local service's worker side
        preload="harness.providers.mturk.client:preload",  # boto3 and MTurk's service model
        demo=DemoEntry("local", "local", "the local MTurk service", crowd_size=30, rank=0),
        local_command=LocalCommand(
            "mturk-local",
            "harness.providers.mturk.local_service.command:mturk_local_command",
            "Run the local MTurk service: boto3's `mturk` client with "
            "endpoint_url=http://HOST:PORT talks to it unchanged; workers use /worker/...",
        ),
    )

    def is_local(self, target: str) -> bool:
        return target == "local"

    def real_money(self, target: str) -> bool:
        return target == "production"

    def stand_in(self, target: str) -> str:
        return "sandbox"

    def endpoint(self, target: str, endpoint_url: str | None) -> str | None:
        from harness.providers.mturk.client import endpoint_for

        resolved = endpoint_for(target, endpoint_url)  # refuses an override off local
        return resolved if target == "local" else None

    def connect(self, target: str, endpoint_url: str | None) -> Provider:
        from harness.providers.mturk.client import make_client
        from harness.providers.mturk.provider import MTurkProvider

        return MTurkProvider(make_client(target, endpoint_url), target)

    def worker_origins(self, target: str, endpoint_url: str | None) -> tuple[str, ...]:
        """Where MTurk's worker site is on ``target``: the only origins a task page may post
        its completed assignment to (``turkSubmitTo``) and be framed by. Local: the local
        service's own address."""
        if target == "local":
            from harness.providers.mturk.client import endpoint_for

            url = endpoint_for("local", endpoint_url).rstrip("/")
            parts = urlsplit(url)
            if parts.hostname not in ("127.0.0.1", "localhost", "::1"):
                return (url,)
            port = f":{parts.port}" if parts.port else ""  # the same service by any loopback name
            return tuple(f"{parts.scheme}://{name}{port}" for name in LOOPBACK_NAMES)
        return (WORKER_SITES[target],)

    def group_url(self, target: str, work_type_id: str) -> str | None:
        """The worker site's page of a HIT group (None on the local service, which has no
        pages for people)."""
        page = GROUP_PAGES.get(target)
        return None if page is None else page.format(group=work_type_id)

    def start_local(self, endpoint_url: str | None) -> str:
        from harness.platform.local_service import start_service
        from harness.providers.mturk.client import endpoint_for

        return start_service(self.local_service, endpoint_for("local", endpoint_url), "mturk-local")

    def local_service(self, port: int, state: str) -> LocalService:
        return LocalService(
            ["mturk-local", "--port", str(port), "--db", state],
            "/_control/clock",
            "the local MTurk service",
        )

    # -- money and limits -----------------------------------------------------------------
    def estimate(self, reward: Decimal, units: int, assignments_per_unit: int) -> CostEstimate:
        return pricing.estimate_cost(reward, units, assignments_per_unit)

    def bonus_cost(self, amount: Decimal) -> Decimal:
        return pricing.bonus_cost(amount)

    def problems(self, settings: WorkSettings, hosting: Hosting) -> list[tuple[str, str]]:
        out = []
        if settings.currency != pricing.CURRENCY:
            out.append(
                (
                    "platform.currency",
                    f"MTurk pays in {pricing.CURRENCY} only, not {settings.currency}",
                )
            )
        if Decimal(0) <= settings.reward < MIN_REWARD:
            out.append(("hit.reward", f"must be at least {MIN_REWARD} (MTurk's minimum)"))
        if hosting not in self.hostings:
            out.append(("hosting", f"MTurk shows pages with hosting {' or '.join(self.hostings)}"))
        return out

    def warnings(self, settings: WorkSettings, assignments_per_unit: int) -> list[str]:
        large = pricing.LARGE_HIT_ASSIGNMENTS
        out = []
        if assignments_per_unit >= large:
            out.append(
                f"{assignments_per_unit} assignments per HIT: HITs with {large} or "
                "more assignments pay MTurk 20% more in fees (40% instead of 20%)"
            )
        elif assignments_per_unit == large - 1:
            out.append(
                f"{assignments_per_unit} assignments per HIT: MTurk cannot raise a HIT from fewer "
                f"than {large} to {large} or more assignments, so "
                "a lost judgment can be replaced only while the HIT stays below that"
            )
        if settings.min_approval_rate is not None and (
            settings.min_approved is None or settings.min_approved < APPROVAL_RATE_FLOOR
        ):
            out.append(
                f"min_approval_rate {settings.min_approval_rate}% without min_approved_hits >= "
                f"{APPROVAL_RATE_FLOOR}: MTurk reports 100% for workers with fewer than "
                f"{APPROVAL_RATE_FLOOR} HITs, so the rate alone admits newcomers"
            )
        return out

    def raters_refusal(self, unit_id: str, current: int, new: int) -> str | None:
        large = pricing.LARGE_HIT_ASSIGNMENTS
        if current < large <= new:
            return (
                f"HIT {unit_id} has {current} assignments; MTurk cannot "
                f"raise it to {new} ({large} or more): post a new HIT instead"
            )
        return None

    # -- documents ------------------------------------------------------------------------
    def question(
        self,
        instrument: Instrument,
        plan: HitPlan,
        *,
        hosting: Hosting,
        public_url: str | None,
        study_name: str,
        target: str,
        endpoint_url: str | None,
    ) -> str:
        from harness.render.pages import external_question, html_question

        if hosting == Hosting.EXTERNAL:
            assert public_url is not None
            return external_question(public_url, study_name=study_name, plan=plan)
        sites = self.worker_origins(target, endpoint_url)  # the page posts there only
        return html_question(instrument, plan, study_name=study_name, submit_origins=sites)

    def read_answers(self, document: str, plan: HitPlan) -> list[Answer]:
        from harness.render.answers import answers_from_xml

        return answers_from_xml(document, plan)

    def read_fields(self, document: str) -> list[tuple[str, str]]:
        from harness.render.answers import fields_from_xml

        return fields_from_xml(document)

    def dry_run(
        self, settings: WorkSettings, units: Sequence[WorkUnit], queue: str | None, study_key: str
    ) -> list[Request]:
        from harness.providers.mturk import requests

        exclude = "<exclusion qualification id>"
        hit_type = "<HIT type id>"
        calls = [
            Request("GetAccountBalance", {}),
            Request("CreateQualificationType", requests.exclusion_qualification(study_key)),
            Request("CreateHITType", requests.hit_type(settings, exclude)),
        ]
        if queue:
            calls.append(
                Request(
                    "UpdateNotificationSettings",
                    {
                        "HITTypeId": hit_type,
                        "Notification": requests.notification(queue),
                        "Active": True,
                    },
                )
            )
        calls += [Request("CreateHITWithHITType", requests.create_hit(hit_type, u)) for u in units]
        return calls

    # -- notifications ----------------------------------------------------------------------
    def queue_client(self, target: str, queue_url: str) -> Any:
        """boto3's SQS client for the queue: for ``local``, the queue's own loopback host (a
        moto server) with placeholder credentials; else AWS in the queue's region."""
        import boto3

        parts = urlsplit(queue_url)
        if target == "local":
            if not is_loopback(parts.hostname):
                raise InputError(
                    f"--from-queue {queue_url}: a study on the local service reads its "
                    "notifications only from a local SQS (http://127.0.0.1:PORT/...), never "
                    "from a real cloud"
                )
            return boto3.client(
                "sqs",
                endpoint_url=f"{parts.scheme}://{parts.netloc}",
                region_name="us-east-1",
                aws_access_key_id="local",
                aws_secret_access_key="local",
            )
        host = (parts.hostname or "").split(".")
        region = host[1] if len(host) >= 3 and host[0] == "sqs" else "us-east-1"
        return boto3.client("sqs", region_name=region)

    def events(self, body: str) -> list[PlatformEvent]:
        """MTurk's notification message (``{"Events": [...]}``) as events: submitted, approved
        and rejected assignments, HITs that became reviewable or expired, and every other event
        type as `EventTopic.OTHER`."""
        try:
            data: Any = json.loads(body)
        except ValueError:
            return []
        out = []
        for event in data.get("Events", []) if isinstance(data, dict) else []:
            if not isinstance(event, dict):
                continue
            unit = event.get("HITId")
            unit_id = unit if isinstance(unit, str) else None
            kind, assignment = event.get("EventType"), event.get("AssignmentId")
            if kind in ASSIGNMENT_EVENTS and isinstance(assignment, str) and assignment:
                out.append(PlatformEvent(EventTopic.SUBMISSION, unit_id, assignment))
            elif kind in HIT_EVENTS:
                out.append(PlatformEvent(EventTopic.UNIT, unit_id))
            else:
                out.append(PlatformEvent(EventTopic.OTHER, unit_id))
        return out


MTURK = MTurkPlatform()
