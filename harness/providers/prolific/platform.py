"""Prolific as harness knows it before connecting: targets, fees, limits, participants' URLs.

One Prolific study per harness study; its places are the study's slots (HITs x raters per item),
allocated by harness's task server to each participant who arrives with ``PROLIFIC_PID``,
``STUDY_ID`` and ``SESSION_ID``. Submissions complete with the study's code and are reviewed
in harness (the code's action is manual review: never approved automatically). Imports nothing
heavy (no HTTP client).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import timedelta
from decimal import Decimal
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from harness.errors import InputError
from harness.hosting import Hosting
from harness.platform.contract import (
    Arrival,
    Capabilities,
    CostEstimate,
    DemoEntry,
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
from harness.platform.task_page_question import task_page_question
from harness.providers.prolific import pricing

if TYPE_CHECKING:
    from harness.answer import Answer
    from harness.render.plan import HitPlan

LOCAL_URL = "http://127.0.0.1:8766"
COMPLETE_URL = "https://app.prolific.com/submissions/complete?cc="
PARAMS = ("PROLIFIC_PID", "STUDY_ID", "SESSION_ID")


class ProlificPlatform:
    name = "prolific"
    label = "Prolific"
    unit_noun = "HIT"
    targets: tuple[str, ...] = ("prolific-local", "prolific")
    hostings: tuple[Hosting, ...] = (Hosting.EXTERNAL,)
    capabilities = Capabilities(
        # a message has no subject; its API documents no length: harness's bound
        messaging=Messaging(True, "Prolific shows it in the participant's messages", text=10_000),
        asks_returns=True,  # screening's request_return: the provider's request_return
        one_submission_per_study=True,  # a participant takes part in a Prolific study once
        # "Submissions that are awaiting review are automatically approved after 21 days"
        # (docs.prolific.com, API reference, submissions guide); the local service never does
        auto_approval_window=timedelta(days=21),
        crowd_door="harness.providers.prolific.crowd:prolific_door",  # the local service's side
        demo=DemoEntry(  # participants take one part each: more of them
            "prolific-local", "prolific-local", "the local Prolific service", crowd_size=200, rank=1
        ),
        local_command=LocalCommand(
            "prolific-local",
            "harness.providers.prolific.local_service.command:prolific_local_command",
            "Run the local Prolific service: Prolific's API v1 (what harness uses) at "
            "http://HOST:PORT/api/v1/, participants at /participant/...",
        ),
        blueprints=("harness.providers.prolific.webhooks:bp",),  # Prolific's hooks
        pausing=Pausing(
            True,
            "Prolific stops showing the study: nobody new can reserve a place. Participants who "
            "reserved one before may still start, and everyone working can finish and submit.",
        ),
    )

    def is_local(self, target: str) -> bool:
        return target == "prolific-local"

    def real_money(self, target: str) -> bool:
        return target == "prolific"

    def stand_in(self, target: str) -> str:
        return "prolific-local"

    def endpoint(self, target: str, endpoint_url: str | None) -> str | None:
        if target == "prolific-local":
            return _local_url(endpoint_url)
        if endpoint_url:
            raise InputError(
                "--endpoint-url is for the local Prolific service (prolific-local) only"
            )
        return None

    def connect(self, target: str, endpoint_url: str | None) -> Provider:
        from harness.providers.prolific.client import make_client
        from harness.providers.prolific.provider import ProlificProvider

        return ProlificProvider(make_client(self.endpoint(target, endpoint_url)), target)

    def start_local(self, endpoint_url: str | None) -> str:
        from harness.platform.local_service import start_service

        return start_service(self.local_service, _local_url(endpoint_url), "prolific-local")

    def local_service(self, port: int, state: str) -> LocalService:
        return LocalService(
            ["prolific-local", "--port", str(port), "--db", state],
            "/health",
            "the local Prolific service",
        )

    # -- money and limits -------------------------------------------------------------------
    def estimate(self, reward: Decimal, units: int, assignments_per_unit: int) -> CostEstimate:
        places = units * assignments_per_unit
        fees = pricing.fees_on(pricing.to_cents(reward), pricing.vat_regime())
        return CostEstimate(places, pricing.to_cents(reward) * places, fees * places)

    def bonus_cost(self, amount: Decimal) -> Decimal:
        return amount + pricing.fees_on(amount, pricing.vat_regime())

    def problems(self, settings: WorkSettings, hosting: Hosting) -> list[tuple[str, str]]:
        out = []
        if hosting not in self.hostings:
            out.append(
                ("hosting", "Prolific sends participants to harness's pages: use hosting: external")
            )
        if settings.reward <= 0:
            out.append(("hit.reward", "Prolific needs a reward above 0"))
            return out
        currency = settings.currency
        if currency not in pricing.MINIMUM_PER_HOUR:
            known = ", ".join(pricing.MINIMUM_PER_HOUR)
            out.append(
                ("platform.currency", f"a Prolific workspace pays in {known}, not {currency}")
            )
            return out
        least = pricing.MINIMUM_PER_HOUR[currency]
        if _per_hour(settings) < least:
            out.append(
                (
                    "hit.reward",
                    f"{_pay_line(settings)}, below Prolific's minimum of "
                    f"{pricing.money(least, currency)} per hour: Prolific refuses to publish "
                    "it; raise hit.reward, or shorten hit.assignment_duration (Prolific is "
                    "told a third of it as the estimated time)",
                )
            )
        return out

    def warnings(self, settings: WorkSettings, assignments_per_unit: int) -> list[str]:
        currency = settings.currency
        if currency not in pricing.RECOMMENDED_PER_HOUR:
            return []  # a problem already
        best = pricing.RECOMMENDED_PER_HOUR[currency]
        if _per_hour(settings) < best:
            return [
                f"{_pay_line(settings)}, below Prolific's recommended "
                f"{pricing.money(best, currency)} per hour"
            ]
        return []

    def raters_refusal(self, unit_id: str, current: int, new: int) -> str | None:
        return None

    # -- documents ----------------------------------------------------------------------------
    question = task_page_question  # the HIT's task page on harness's server

    def read_answers(self, document: str, plan: HitPlan) -> list[Answer]:
        raise ValueError("Prolific keeps no answers: harness's task server stored them")

    def read_fields(self, document: str) -> list[tuple[str, str]]:
        raise ValueError("Prolific keeps no answers: harness's task server stored them")

    def dry_run(
        self, settings: WorkSettings, units: Sequence[WorkUnit], queue: str | None, study_key: str
    ) -> list[Request]:
        """Every call a first launch makes, in order, with its whole body; what only Prolific
        can tell (its ids) as <...>. Hooks are subscribed after, when the task server can be
        reached (see docs/platforms.md)."""
        from harness.platform.places import completion_code, entry_url, study_label
        from harness.providers.prolific import requests

        name, launch_id = study_key.split(" ", 1)
        places = sum(u.assignments for u in units)
        # the units' questions are their task pages on harness's public URL
        public = units[0].question.rsplit("/hit/", 1)[0] if units else ""
        workspace, group, study = "<workspace id>", "<participant group id>", "<study id>"
        body = requests.create_study(
            settings,
            study_label(name, launch_id),
            places,
            entry_url(public or "<public url>", name),
            completion_code(name, launch_id) if launch_id != "<launch id>" else "<completion code>",
            group,
            {c: f"<country id of {c}>" for c in settings.countries},
            "<project id>" if settings.project else None,
        )
        api, pages = "/api/v1", "page_size=100"
        calls = [
            Request(f"GET {api}/users/me/", {}),
            Request(f"GET {api}/workspaces/{workspace}/balance/", {}),
            Request(f"POST {api}/study-cost-calculator/", requests.cost_quote(body)),
            Request(f"GET {api}/participant-groups/?workspace_id={workspace}&{pages}", {}),
            Request(f"POST {api}/participant-groups/", requests.create_group(study_key, workspace)),
            Request(f"GET {api}/studies/?{pages}", {}),
        ]
        if settings.project:
            projects = f"{api}/workspaces/{workspace}/projects/"
            calls += [
                Request(f"GET {projects}?{pages}", {}),
                Request(f"POST {projects}", requests.create_project(settings.project)),
            ]
        return [
            *calls,
            Request(f"GET {api}/filters/?{pages}", {}),
            Request(f"POST {api}/studies/", body),
            Request(f"POST {api}/studies/{study}/transition/", {"action": "PUBLISH"}),
        ]

    def events(self, body: str) -> list[PlatformEvent]:
        from harness.providers.prolific.hooks import events

        return events(body)

    def queue_client(self, target: str, queue_url: str) -> Any:
        raise InputError(
            "Prolific sends its notifications as hooks, not to a queue: sync without --from-queue"
        )

    # -- participants ---------------------------------------------------------------------------
    def arrival(self, args: Mapping[str, str]) -> Arrival:
        missing = [p for p in PARAMS if not (args.get(p) or "").strip()]
        if missing:
            raise InputError(f"the link from Prolific lacks {', '.join(missing)}")
        return Arrival(
            args["PROLIFIC_PID"].strip(), args["SESSION_ID"].strip(), args["STUDY_ID"].strip()
        )

    def worker_origins(self, target: str, endpoint_url: str | None) -> tuple[str, ...]:
        """Where Prolific's participant site is: the only origin a participant is sent on to
        after submitting (the completion URL)."""
        return (
            urlsplit(self.completion_url(target, endpoint_url, "x") or "")
            ._replace(path="", query="", fragment="")
            .geturl(),
        )

    def completion_url(self, target: str, endpoint_url: str | None, code: str) -> str | None:
        if target == "prolific-local":
            return f"{_local_url(endpoint_url)}/submissions/complete?cc={code}"
        return COMPLETE_URL + code


def _local_url(endpoint_url: str | None) -> str:
    """The local service's base URL: ``endpoint_url``, else its default address."""
    return (endpoint_url or LOCAL_URL).rstrip("/")


def _per_hour(settings: WorkSettings) -> Decimal:
    """What a place pays an hour, on the completion time Prolific is told."""
    minutes = pricing.estimated_minutes(settings.assignment_duration)
    return pricing.per_hour(settings.reward, minutes)


def _pay_line(settings: WorkSettings) -> str:
    """What a place pays an hour: "$0.75 for an estimated 15 min is $3.00 per hour"."""
    minutes = pricing.estimated_minutes(settings.assignment_duration)
    money = settings.currency
    return (
        f"{pricing.money(settings.reward, money)} for an estimated {minutes} min is "
        f"{pricing.money(_per_hour(settings), money)} per hour"
    )


PROLIFIC = ProlificPlatform()
