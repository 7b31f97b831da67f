"""Prolific as a `Provider` (and `PlacesProvider`): one study with places per harness study.

Creating is never repeated blindly: the study and the exclusion group are looked up by name
before creating, and again after a failure that may have taken effect. Bonuses are two calls on
Prolific, set up then pay, and paying is not idempotent; `create_bonus` and `pay_bonus` are
separate so that `harness.platform.bonuses.pay_bonus` records each step before the next (a kill
between them cannot pay twice).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from decimal import Decimal
from typing import Any, TypeVar

from harness.platform.contract import (
    PlacesStudy,
    Prepared,
    PublishedUnit,
    Submission,
    SubmissionState,
    UnitState,
    WorkSettings,
    WorkUnit,
)
from harness.providers.prolific import pricing
from harness.providers.prolific.client import ProlificClient, ProlificError, Uncertain
from harness.providers.prolific.hooks import SUBMISSION_EVENT, loopback, public_https
from harness.providers.prolific.platform import PROLIFIC
from harness.providers.prolific.requests import (
    COUNTRY_NAMES,
    create_group,
    create_project,
    create_study,
)

_STATE = {
    "AWAITING REVIEW": SubmissionState.SUBMITTED,
    "APPROVED": SubmissionState.APPROVED,
    "REJECTED": SubmissionState.REJECTED,
    "RETURNED": SubmissionState.RETURNED,
    "TIMED-OUT": SubmissionState.TIMED_OUT,
}
_UNIT = {
    "UNPUBLISHED": UnitState.ASSIGNABLE,
    "ACTIVE": UnitState.ASSIGNABLE,
    "PAUSED": UnitState.UNASSIGNABLE,
    "AWAITING REVIEW": UnitState.REVIEWABLE,
    "COMPLETED": UnitState.REVIEWABLE,
}
_PAUSED = {"PAUSED": True, "ACTIVE": False}  # a study's status -> paused (others: neither)
REJECTION_CATEGORY = "FAILED_CHECK"
RETURN_REASON = "Your answers did not pass the study's checks; please return the submission."
MIN_MESSAGE = 100
PAD = (
    " Please contact us through Prolific's messages if you think this is a mistake; we "
    "will look again."
)
T = TypeVar("T")


class ProlificProvider:
    platform = PROLIFIC

    def __init__(self, client: ProlificClient, target: str) -> None:
        self.client = client
        self.target = target
        self._workspace: str | None = None
        self._currency: str | None = None

    def _get(self, path: str) -> Any:
        return self.client.call("GET", path, safe=True)

    def _listed(
        self, path: str, field: str, value: str, params: dict[str, Any] | None = None
    ) -> dict[str, Any] | None:
        """The first result of the list at ``path`` whose ``field`` is ``value``."""
        return next(
            (dict(r) for r in self.client.pages(path, params) if r.get(field) == value), None
        )

    def _look_then_create(self, look: Callable[[], T | None], create: Callable[[], T]) -> T:
        """What ``look`` finds, else what ``create`` makes; a create that may or may not have
        taken effect (`Uncertain`) is looked for again, never repeated blindly."""
        found = look()
        if found is not None:
            return found
        try:
            return create()
        except Uncertain:
            found = look()
            if found is None:
                raise
            return found

    def workspace(self) -> str:
        if self._workspace is None:
            me = self._get("users/me/")
            found = me.get("current_workspace_id") or next(
                iter(w["id"] for w in self.client.pages("workspaces/")), None
            )
            if not found:
                raise ProlificError("the Prolific account has no workspace")
            self._workspace = str(found)
        return self._workspace

    def balance(self) -> Decimal:
        """The workspace's available balance, in its currency (`currency`)."""
        answer = self._get(f"workspaces/{self.workspace()}/balance/")
        self._currency = str(answer["currency_code"])
        return pricing.from_cents(answer["available_balance"])

    def currency(self) -> str:
        """The workspace's currency: every amount harness sends is in it (read with the
        balance, once)."""
        if self._currency is None:
            self.balance()
        assert self._currency is not None
        return self._currency

    def quote(self, settings: WorkSettings, places: int) -> Decimal:
        """Prolific's own price of ``places`` places at the spec's reward (its cost
        calculator: rewards, fees and VAT, in the workspace's currency)."""
        body = {"reward": pricing.cents(settings.reward), "total_available_places": places}
        answer = self.client.call("POST", "study-cost-calculator/", safe=True, json=body)
        return pricing.from_cents(answer["total_cost"])

    def _same_currency(self, settings: WorkSettings) -> None:
        """Refuse a workspace whose currency is not the spec's: its 0.75 would be paid as 75
        of another currency's minor unit."""
        found = self.currency()
        if found != settings.currency:
            raise ProlificError(
                f"the Prolific workspace pays in {found}, but the spec's amounts are in "
                f"{settings.currency}: set platform.currency: {found} in the spec and give "
                f"hit.reward (and any budget) in {found}"
            )

    # -- the exclusion group and the study ---------------------------------------------------
    def prepare(self, study_key: str, settings: WorkSettings, exclude_ref: str | None) -> Prepared:
        self._same_currency(settings)
        if exclude_ref is not None:
            return Prepared(self.workspace(), exclude_ref)
        body = create_group(study_key, self.workspace())
        found = self._look_then_create(
            lambda: self._listed(
                "participant-groups/", "name", body["name"], {"workspace_id": self.workspace()}
            ),
            lambda: self.client.call("POST", "participant-groups/", safe=False, json=body),
        )
        group = str(found["id"])
        return Prepared(self.workspace(), group, [f"participant group {group}"])

    def watch(self, work_type_id: str, queue_url: str) -> None:
        raise ProlificError("Prolific sends hooks to an https URL, not a queue: see docs")

    def open_places(self, work_type_id: str, study: PlacesStudy) -> PublishedUnit:
        def create() -> dict[str, Any]:
            title = study.settings.project
            project = self._project(title) if title else None  # looked up before the filters
            body = create_study(
                study.settings,
                study.label,
                study.places,
                study.url,
                study.completion_code,
                study.exclude_ref,
                self._countries(),
                project,
            )
            return dict(self.client.call("POST", "studies/", safe=False, json=body))

        found = self._look_then_create(
            lambda: self._listed("studies/", "internal_name", study.label), create
        )
        if found["status"] == "UNPUBLISHED":
            found = self._transition(found["id"], "PUBLISH")
        return _unit(found)

    def _project(self, title: str) -> str:
        """The id of the workspace's project named ``title``, made when there is none."""
        path = f"workspaces/{self.workspace()}/projects/"
        found = self._look_then_create(
            lambda: self._listed(path, "title", title),
            lambda: self.client.call("POST", path, safe=False, json=create_project(title)),
        )
        return str(found["id"])

    def _transition(self, study_ref: str, action: str) -> Any:
        """Prolific's study transition ``action`` (safe to repeat); the study as it is after."""
        return self.client.call(
            "POST", f"studies/{study_ref}/transition/", safe=True, json={"action": action}
        )

    def _countries(self) -> dict[str, str]:
        """The spec's country codes as the choice ids of Prolific's country filter."""
        for f in self.client.pages("filters/"):
            if f.get("filter_id") == "current-country-of-residence":
                by_name = {name: key for key, name in (f.get("choices") or {}).items()}
                return {
                    code: by_name[name] for code, name in COUNTRY_NAMES.items() if name in by_name
                }
        return {}

    def set_places(self, study_ref: str, places: int) -> None:
        current = self._get(f"studies/{study_ref}/")
        if current["total_available_places"] < places:
            self.client.call(
                "PATCH", f"studies/{study_ref}/", safe=True, json={"total_available_places": places}
            )

    def study_submissions(self, study_ref: str) -> list[Submission]:
        listed = self.client.pages(f"studies/{study_ref}/submissions/")
        return [s for s in (_submission(found, study_ref) for found in listed) if s is not None]

    # -- hooks ----------------------------------------------------------------------------------
    def hook_refusal(self, target_url: str) -> str | None:
        """Why hooks cannot reach ``target_url`` (None: they can)."""
        if self.target == "prolific-local":
            if not loopback(target_url):
                return "the local Prolific service posts hooks to loopback addresses only"
        elif not public_https(target_url):
            return "Prolific posts hooks to a public https URL only"
        return None

    def subscribe(self, target_url: str) -> tuple[str, str]:
        """Subscribe ``target_url`` to submission status changes (once: a subscription found
        enabled is kept, one found not confirmed is replaced); the workspace and the secret
        its deliveries are signed with (the workspace's one secret, made if it has none:
        making one would replace a secret something else may use)."""
        workspace = self.workspace()
        secret = self._hook_secret(workspace)
        wanted = (SUBMISSION_EVENT, target_url)
        for found in self.client.pages("hooks/subscriptions/", {"workspace_id": workspace}):
            if (found.get("event_type"), found.get("target_url")) != wanted:
                continue
            if found.get("is_enabled"):
                return workspace, secret
            self._unsubscribe(str(found["id"]))
        body = {"workspace_id": workspace, "event_type": SUBMISSION_EVENT, "target_url": target_url}
        answer = self.client.response("POST", "hooks/subscriptions/", safe=False, json=body)
        listed = answer.json()
        made = next(
            (
                s
                for s in listed.get("results", [listed])
                if (s.get("event_type"), s.get("target_url")) == wanted
            ),
            None,
        )
        if made is None:
            raise ProlificError(
                f"Prolific's answer to subscribing {target_url} named no such "
                "subscription; run the launch again to subscribe"
            )
        confirm = {"secret": answer.headers.get("X-Hook-Secret", "")}
        self.client.call("POST", f"hooks/subscriptions/{made['id']}/", safe=True, json=confirm)
        return workspace, secret

    def _hook_secret(self, workspace: str) -> str:
        params = {"workspace_id": workspace}
        found = self._look_then_create(
            lambda: next(iter(self.client.pages("hooks/secrets/", params)), None),
            lambda: self.client.call("POST", "hooks/secrets/", safe=False, json=params),
        )
        return str(found["value"])

    def _unsubscribe(self, subscription_id: str) -> None:
        try:
            self.client.call("DELETE", f"hooks/subscriptions/{subscription_id}/", safe=True)
        except ProlificError as exc:
            if exc.status != 404:  # gone already (a repeated call)
                raise

    # -- the unit protocol, on one study --------------------------------------------------------
    def publish(self, work_type_id: str, unit: WorkUnit) -> PublishedUnit:
        raise NotImplementedError("Prolific publishes one study with places (open_places)")

    def published(self, label_prefix: str) -> list[PublishedUnit]:
        return [
            _unit(s)
            for s in self.client.pages("studies/")
            if str(s.get("internal_name", "")).startswith(label_prefix)
        ]

    def unit(self, platform_id: str) -> PublishedUnit:
        return _unit(self._get(f"studies/{_study_of(platform_id)}/"))

    def submissions(self, platform_id: str) -> list[Submission]:
        return self.study_submissions(_study_of(platform_id))

    def submission(self, assignment_id: str) -> Submission | None:
        found = self._submission_or_none(assignment_id)
        return None if found is None else _submission(found)

    def session_holder(self, session_id: str) -> tuple[str, str] | None:
        """(participant id, study id) of the session ``session_id`` in any state (a session
        just started is ACTIVE), or None when Prolific has no such session."""
        found = self._submission_or_none(session_id)
        if found is None:
            return None
        participant = found.get("participant_id") or found.get("participant")
        return str(participant), str(found.get("study_id", ""))

    def _submission_or_none(self, submission_id: str) -> dict[str, Any] | None:
        """The submission as Prolific answers it; None when Prolific has no such submission."""
        try:
            return dict(self._get(f"submissions/{submission_id}/"))
        except ProlificError as exc:
            if exc.status == 404:
                return None
            raise

    # -- review ---------------------------------------------------------------------------------
    def approve(self, assignment_id: str, feedback: str | None = None) -> None:
        path = f"submissions/{assignment_id}/transition/"
        self.client.call("POST", path, safe=True, json={"action": "APPROVE"})  # idempotent

    def approve_many(self, assignment_ids: list[str]) -> None:
        """Approve in one call (Prolific's bulk approve, by submission ids)."""
        if assignment_ids:
            body = {"submission_ids": assignment_ids}
            self.client.call("POST", "submissions/bulk-approve/", safe=True, json=body)

    def reject(self, assignment_id: str, feedback: str) -> None:
        message = feedback if len(feedback) >= MIN_MESSAGE else feedback + PAD
        body = {"action": "REJECT", "message": message, "rejection_category": REJECTION_CATEGORY}
        self.client.call("POST", f"submissions/{assignment_id}/transition/", safe=True, json=body)

    def request_return(self, assignment_id: str, reason: str = RETURN_REASON) -> None:
        path = f"submissions/{assignment_id}/request-return/"
        self.client.call("POST", path, safe=True, json={"request_return_reasons": [reason]})

    def create_bonus(self, assignment_id: str, amount: Decimal) -> str:
        """Set up a bonus (nothing is paid yet); the bulk bonus payment's id."""
        sub = self._get(f"submissions/{assignment_id}/")
        body = {"study_id": sub["study_id"], "csv_bonuses": f"{assignment_id},{amount:.2f}\n"}
        answer = self.client.call("POST", "submissions/bonus-payments/", safe=False, json=body)
        return str(answer["id"])

    def pay_bonus(self, bonus_id: str) -> None:
        """Pay a set-up bonus. NOT idempotent on Prolific: never repeated, even after an
        uncertain failure (`Uncertain` goes to the caller, who records it)."""
        self.client.call("POST", f"bulk-bonus-payments/{bonus_id}/pay/", safe=False)

    def bonuses_shown(self, assignment_id: str, amount: Decimal) -> int:
        """How many bonuses of ``amount`` the submission shows paid."""
        sub = self._get(f"submissions/{assignment_id}/")
        return [int(c) for c in sub.get("bonus_payments") or []].count(pricing.cents(amount))

    def bonus(
        self, worker_id: str, assignment_id: str, amount: Decimal, reason: str, token: str
    ) -> None:
        raise NotImplementedError("Prolific bonuses are two steps (create_bonus, pay_bonus)")

    def message(
        self, worker_id: str, subject: str | None, text: str, study_ref: str | None
    ) -> None:
        """Send the participant a message about the study (Prolific's messages have no
        subject; sending is not idempotent: never repeated)."""
        if study_ref is None:
            raise ProlificError("a message on Prolific is about a study: it has none yet")
        body = {"recipient_id": worker_id, "body": text, "study_id": study_ref}
        self.client.call("POST", "messages/", safe=False, json=body)

    def exclude(self, exclude_ref: str, worker_id: str) -> None:
        self._members("POST", exclude_ref, worker_id)

    def include(self, exclude_ref: str, worker_id: str) -> None:
        """Take the participant off the study's blocklist group (Prolific's "remove
        participants from a participant group"; one who is not a member is ignored, so a
        repeat changes nothing)."""
        self._members("DELETE", exclude_ref, worker_id)

    def _members(self, method: str, group: str, worker_id: str) -> None:
        """Add (POST) or remove (DELETE) the participant as a member of ``group``."""
        path = f"participant-groups/{group}/participants/"
        self.client.call(method, path, safe=True, json={"participant_ids": [worker_id]})

    # -- pausing: Prolific's study transitions PAUSE (ACTIVE -> PAUSED) and START (back) ----
    def pause(self, study_ref: str) -> None:
        """Nobody new can reserve a place; those working (or who reserved) may still submit."""
        self._move(study_ref, "PAUSE", "PAUSED", "ACTIVE")

    def resume(self, study_ref: str) -> None:
        self._move(study_ref, "START", "ACTIVE", "PAUSED")

    def paused_on_platform(self, study_ref: str) -> bool | None:
        """Whether Prolific's study is PAUSED (by `pause`, by Prolific itself, or on its
        website) or ACTIVE; None in any other state (`harness.platform.pause.ReportsPause`)."""
        return _PAUSED.get(str(self._get(f"studies/{study_ref}/")["status"]))

    def _move(self, study_ref: str, action: str, wanted: str, source: str) -> None:
        """Transition the study unless it is in ``wanted`` already (read first: Prolific does
        not document what a repeated transition answers); `ProlificError` naming the study's
        status when it is in neither state."""
        status = self._get(f"studies/{study_ref}/")["status"]
        if status == wanted:
            return
        if status != source:
            raise ProlificError(
                f"Prolific says study {study_ref} is {status}: only a study that is {source} "
                f"can be moved by {action}"
            )
        try:
            self._transition(study_ref, action)
        except ProlificError:
            if self._get(f"studies/{study_ref}/")["status"] != wanted:
                raise  # a retried call answered after the first one took effect is fine

    def excluded(self, exclude_ref: str, worker_id: str) -> bool:
        """Whether the participant is in the study's blocked group now."""
        members = self.client.pages(f"participant-groups/{exclude_ref}/participants/")
        return any(str(m.get("participant_id")) == worker_id for m in members)

    def add_raters(self, platform_id: str, count: int, token: str) -> None:
        raise NotImplementedError("places grow by set_places (a total, idempotent)")

    def expire(self, platform_id: str) -> None:
        study = _study_of(platform_id)
        if self._get(f"studies/{study}/")["status"] in ("ACTIVE", "PAUSED"):
            self._transition(study, "STOP")


def _study_of(platform_id: str) -> str:
    """The study of a unit's platform id (``<study id>#<n>``, or the study id alone)."""
    return platform_id.rsplit("#", 1)[0]


def _unit(study: dict[str, Any]) -> PublishedUnit:
    return PublishedUnit(
        str(study["id"]),
        study.get("internal_name"),
        _UNIT.get(str(study.get("status")), UnitState.ASSIGNABLE),
        int(study.get("total_available_places", 0)),
    )


def _submission(s: dict[str, Any], study_ref: str = "") -> Submission | None:
    """A submission Prolific reports (a listed one names no study: ``study_ref`` does)."""
    state = _STATE.get(str(s.get("status")))
    if state is None:
        return None  # reserved or active: nothing to store yet
    return Submission(
        str(s["id"]),
        str(s.get("study_id") or study_ref),
        str(s.get("participant_id") or s.get("participant")),
        state,
        "",
        _when(s.get("started_at")),
        _when(s.get("completed_at")),
    )


def _when(text: Any) -> datetime | None:
    return datetime.fromisoformat(text) if isinstance(text, str) and text else None
