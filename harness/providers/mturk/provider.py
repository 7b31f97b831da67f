"""MTurk as a `Provider`: boto3 calls, MTurk's error codes, and its pagination.

Calls that are safe to repeat (reads, token-protected creates, calls that set a state) go
through `Backoff.call(safe=True)`. Approve and reject are not safe to repeat blindly: after an
uncertain failure the assignment is read back, and the call is repeated only if it did not
take effect.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from datetime import datetime
from decimal import Decimal
from typing import Any

from botocore.exceptions import ClientError

from harness.errors import PlatformError
from harness.platform.contract import (
    Prepared,
    PublishedUnit,
    Submission,
    SubmissionState,
    UnitState,
    WorkSettings,
    WorkUnit,
)
from harness.providers.mturk import pricing, requests
from harness.providers.mturk.platform import MTURK
from harness.providers.mturk.retry import (
    LOST,
    THROTTLED,
    UNCERTAIN,
    Backoff,
    aws_code,
    error_code,
)

HIT_EXISTS = "AWS.MechanicalTurk.HitAlreadyExists"
DUPLICATE = "AWS.MechanicalTurk.DuplicateRequest"
QUAL_EXISTS = "AWS.MechanicalTurk.QualificationTypeAlreadyExists"
PAGE = 100
"""Items asked for per page of a listing (MaxResults; MTurk's largest)."""
_HIT_ID_IN_MESSAGE = re.compile(r"\(([A-Z0-9]{20,})\)")
_ASSIGNMENT_STATE = {
    "Submitted": SubmissionState.SUBMITTED,
    "Approved": SubmissionState.APPROVED,
    "Rejected": SubmissionState.REJECTED,
}


def _platform_error(exc: ClientError, doing: str) -> PlatformError:
    message = exc.response.get("Error", {}).get("Message", str(exc))
    return PlatformError(f"MTurk refused to {doing}: {message}", error_code(exc))


class MTurkProvider:
    """MTurk (or the local MTurk service) through one boto3 client."""

    platform = MTURK

    def __init__(self, client: Any, target: str, backoff: Backoff | None = None) -> None:
        self.client = client
        self.target = target
        self.backoff = backoff or Backoff()

    # -- calls ---------------------------------------------------------------------------
    def _call(self, operation: str, doing: str, *, safe: bool, **params: Any) -> Any:
        try:
            return self.backoff.call(getattr(self.client, operation), safe=safe, **params)
        except ClientError as exc:
            raise _platform_error(exc, doing) from exc
        except LOST as exc:
            raise PlatformError(f"could not reach MTurk to {doing}: {exc}") from exc

    def _pages(
        self, operation: str, key: str, *, short_is_last: bool = False, **params: Any
    ) -> Iterator[dict[str, Any]]:
        """Every item of a listing, page by page (MTurk gives a NextToken with its last page
        too, so a page without items ends it); with ``short_is_last``, a page of fewer than
        `PAGE` items ends it too (one call for a short listing)."""
        token: str | None = None
        while True:
            extra = {"NextToken": token} if token else {}
            page = self._call(
                operation, f"list ({operation})", safe=True, MaxResults=PAGE, **params, **extra
            )
            items = page.get(key, [])
            yield from items
            token = page.get("NextToken")
            if not token or not items or (short_is_last and len(items) < PAGE):
                return

    # -- money ---------------------------------------------------------------------------
    def balance(self) -> Decimal:
        answer = self._call("get_account_balance", "read the balance", safe=True)
        return Decimal(answer["AvailableBalance"])

    # -- publishing ----------------------------------------------------------------------
    def prepare(self, study_key: str, settings: WorkSettings, exclude_ref: str | None) -> Prepared:
        created = []
        if exclude_ref is None:
            exclude_ref = self._qualification_type(
                requests.exclusion_qualification(study_key), "the exclusion qualification"
            )
            created.append(f"qualification type {exclude_ref}")
        answer = self._call(
            "create_hit_type",
            "create the HIT type",
            safe=True,  # equal properties give the same HIT type
            **requests.hit_type(settings, exclude_ref),
        )
        return Prepared(answer["HITTypeId"], exclude_ref, created)

    def make_group(self, study_key: str, group: str) -> str:
        """The qualification type of one group of the study's workers (an arm)."""
        return self._qualification_type(
            requests.group_qualification(study_key, group), f"the qualification of group {group}"
        )

    def join_group(self, group_ref: str, worker_id: str, *, once: bool = False) -> None:
        params = {
            "QualificationTypeId": group_ref,
            "WorkerId": worker_id,
            "IntegerValue": 1,
            "SendNotification": False,
        }
        doing = f"give worker {worker_id} the qualification {group_ref}"
        if not once:  # sets a value: repeating sets the same value
            self._call("associate_qualification_with_worker", doing, safe=True, **params)
            return
        try:
            self.client.associate_qualification_with_worker(**params)
        except ClientError as exc:
            raise _platform_error(exc, doing) from exc
        except LOST as exc:
            raise PlatformError(f"could not reach MTurk to {doing}: {exc}") from exc

    def _qualification_type(self, params: dict[str, Any], what: str) -> str:
        """Create a qualification type of the study (the exclusion group, an arm's group), or
        find it when it exists already.

        Creating is not safe to repeat (names are unique), so after an uncertain failure the
        type is looked up by name before trying again.
        """
        for attempt in range(self.backoff.attempts):
            if attempt:
                self.backoff.sleep(self.backoff.delay(attempt))
            try:
                answer = self.client.create_qualification_type(**params)
                return str(answer["QualificationType"]["QualificationTypeId"])
            except ClientError as exc:
                code = aws_code(exc)
                if error_code(exc) == QUAL_EXISTS:
                    found = self._find_qualification_type(params["Name"], strict=True)
                    if found is not None:
                        return found
                    raise _platform_error(exc, f"create {what}") from exc
                if code in THROTTLED:
                    continue
                if code not in UNCERTAIN:
                    raise _platform_error(exc, f"create {what}") from exc
            except LOST:
                pass
            found = self._find_qualification_type(params["Name"], strict=False)
            if found is not None:
                return found
        raise PlatformError(f"could not create {what}: MTurk kept failing")

    def _find_qualification_type(self, name: str, *, strict: bool) -> str | None:
        """The id of the caller's qualification type named ``name``; None if there is none (or,
        unless ``strict``, if the platform cannot list them)."""
        try:
            for qt in self._pages(
                "list_qualification_types",
                "QualificationTypes",
                Query=name,
                MustBeRequestable=False,
                MustBeOwnedByCaller=True,
            ):
                if qt.get("Name") == name:
                    return str(qt["QualificationTypeId"])
        except PlatformError as exc:
            if not strict:
                return None
            raise PlatformError(
                f"a qualification type named {name!r} already exists and this platform cannot "
                f"list qualification types to find it ({exc})"
            ) from exc
        return None

    def watch(self, work_type_id: str, queue_url: str) -> None:
        self._call(
            "update_notification_settings",
            "send notifications to the queue",
            safe=True,
            HITTypeId=work_type_id,
            Notification=requests.notification(queue_url),
            Active=True,
        )

    def publish(self, work_type_id: str, unit: WorkUnit) -> PublishedUnit:
        try:
            answer = self.backoff.call(
                self.client.create_hit_with_hit_type,
                safe=True,  # the UniqueRequestToken makes a repeat harmless
                **requests.create_hit(work_type_id, unit),
            )
        except ClientError as exc:
            if error_code(exc) != HIT_EXISTS:
                raise _platform_error(exc, f"create HIT {unit.label}") from exc
            # Already created with this token (a repeat, or a run that died before recording).
            message = exc.response.get("Error", {}).get("Message", "")
            match = _HIT_ID_IN_MESSAGE.search(message)
            if match is not None:
                return self.unit(match.group(1))
            found = [u for u in self.published(unit.label) if u.label == unit.label]
            if not found:
                raise _platform_error(exc, f"create HIT {unit.label}") from exc
            return found[0]
        except LOST as exc:
            raise PlatformError(f"could not reach MTurk to create HIT {unit.label}: {exc}") from exc
        return _unit(answer["HIT"])

    def published(self, label_prefix: str) -> list[PublishedUnit]:
        return [
            _unit(hit)
            for hit in self._pages("list_hits", "HITs")
            if str(hit.get("RequesterAnnotation") or "").startswith(label_prefix)
        ]

    def unit(self, platform_id: str) -> PublishedUnit:
        return _unit(
            self._call("get_hit", f"read HIT {platform_id}", safe=True, HITId=platform_id)["HIT"]
        )

    # -- submissions ---------------------------------------------------------------------
    def submissions(self, platform_id: str) -> list[Submission]:
        return [
            _submission(a)
            for a in self._pages(
                "list_assignments_for_hit",
                "Assignments",
                HITId=platform_id,
                AssignmentStatuses=["Submitted", "Approved", "Rejected"],
            )
        ]

    def listed_submissions(self, platform_id: str) -> list[Submission]:
        """A HIT's submissions as verification lists them (`verify_many`): a page shorter than
        `PAGE` is taken as the last, so a HIT of up to `PAGE` assignments is one call, not
        two. Not for sync: an assignment a listing lacks is only asked about on its own."""
        return [
            _submission(a)
            for a in self._pages(
                "list_assignments_for_hit",
                "Assignments",
                short_is_last=True,
                HITId=platform_id,
                AssignmentStatuses=["Submitted", "Approved", "Rejected"],
            )
        ]

    def submission(self, assignment_id: str) -> Submission | None:
        try:
            answer = self.backoff.call(
                self.client.get_assignment, safe=True, AssignmentId=assignment_id
            )
        except ClientError as exc:
            if aws_code(exc) == "RequestError":
                return None  # accepted but not submitted, or unknown
            raise _platform_error(exc, f"read assignment {assignment_id}") from exc
        return _submission(answer["Assignment"])

    # -- review --------------------------------------------------------------------------
    def approve(self, assignment_id: str, feedback: str | None = None) -> None:
        params: dict[str, Any] = {"AssignmentId": assignment_id}
        if feedback:
            params["RequesterFeedback"] = feedback
        self._decide(
            "approve_assignment", params, SubmissionState.APPROVED, f"approve {assignment_id}"
        )

    def reject(self, assignment_id: str, feedback: str) -> None:
        params = {"AssignmentId": assignment_id, "RequesterFeedback": feedback}
        self._decide(
            "reject_assignment", params, SubmissionState.REJECTED, f"reject {assignment_id}"
        )

    def _decide(
        self, operation: str, params: dict[str, Any], done: SubmissionState, doing: str
    ) -> None:
        """Approve or reject; after an uncertain failure, read the state before repeating."""
        call: Callable[..., Any] = getattr(self.client, operation)
        for attempt in range(self.backoff.attempts):
            if attempt:
                self.backoff.sleep(self.backoff.delay(attempt))
            try:
                self.backoff.call(call, safe=False, **params)
                return
            except ClientError as exc:
                if aws_code(exc) not in UNCERTAIN:
                    current = self.submission(params["AssignmentId"])
                    if current is not None and current.state is done:
                        return  # an earlier attempt took effect
                    raise _platform_error(exc, doing) from exc
            except LOST:
                pass
            current = self.submission(params["AssignmentId"])
            if current is not None and current.state is done:
                return
        raise PlatformError(f"could not {doing}: MTurk kept failing; run the command again")

    def bonus(
        self, worker_id: str, assignment_id: str, amount: Decimal, reason: str, token: str
    ) -> None:
        try:
            self.backoff.call(
                self.client.send_bonus,
                safe=True,
                WorkerId=worker_id,
                AssignmentId=assignment_id,
                BonusAmount=pricing.format_amount(amount),
                Reason=reason,
                UniqueRequestToken=token,
            )
        except ClientError as exc:
            if error_code(exc) != DUPLICATE:
                raise _platform_error(exc, f"pay a bonus on {assignment_id}") from exc

    def message(
        self, worker_id: str, subject: str | None, text: str, study_ref: str | None
    ) -> None:
        """E-mail the worker (NotifyWorkers; sent once, never retried: MTurk has no token for
        it); `PlatformError` with MTurk's reason when it could not be sent to them."""
        answer = self._call(
            "notify_workers",
            f"message worker {worker_id}",
            safe=False,
            Subject=subject or "",
            MessageText=text,
            WorkerIds=[worker_id],
        )
        for failed in answer.get("NotifyWorkersFailureStatuses", []):
            why = failed.get("NotifyWorkersFailureMessage") or failed.get(
                "NotifyWorkersFailureCode"
            )
            raise PlatformError(f"MTurk did not message worker {worker_id}: {why}")

    def exclude(self, exclude_ref: str, worker_id: str) -> None:
        self._call(
            "associate_qualification_with_worker",
            f"block worker {worker_id}",
            safe=True,  # sets a value: repeating sets the same value
            QualificationTypeId=exclude_ref,
            WorkerId=worker_id,
            IntegerValue=1,
            SendNotification=False,
        )

    def include(self, exclude_ref: str, worker_id: str) -> None:
        """Undo `exclude`: revoke the exclusion qualification (the worker is not told). MTurk
        refuses to revoke a revoked one, so a refusal counts as done when the worker no longer
        holds it (a repeat after a lost answer)."""
        try:
            self._call(
                "disassociate_qualification_from_worker",
                f"unblock worker {worker_id}",
                safe=False,
                QualificationTypeId=exclude_ref,
                WorkerId=worker_id,
            )
        except PlatformError:
            if self._holds(exclude_ref, worker_id):
                raise

    def excluded(self, exclude_ref: str, worker_id: str) -> bool:
        """Whether the worker holds the exclusion qualification now (`exclude` granted it and
        nothing revoked it); a `PlatformError` when MTurk cannot be asked."""
        try:
            found = self.backoff.call(
                self.client.get_qualification_score,
                safe=True,
                QualificationTypeId=exclude_ref,
                WorkerId=worker_id,
            )
        except ClientError as exc:
            if aws_code(exc) == "RequestError":  # never granted, or revoked
                return False
            raise _platform_error(exc, f"read {worker_id}'s qualification") from exc
        except LOST as exc:
            raise PlatformError(f"could not reach MTurk to read a qualification: {exc}") from exc
        return bool(found.get("Qualification", {}).get("Status") == "Granted")

    def _holds(self, type_id: str, worker_id: str) -> bool:
        try:
            found = self._call(
                "get_qualification_score",
                f"read {worker_id}'s qualification",
                safe=True,
                QualificationTypeId=type_id,
                WorkerId=worker_id,
            )
        except PlatformError:
            return False
        return bool(found.get("Qualification", {}).get("Status") == "Granted")

    def add_raters(self, platform_id: str, count: int, token: str) -> None:
        try:
            self.backoff.call(
                self.client.create_additional_assignments_for_hit,
                safe=True,
                HITId=platform_id,
                NumberOfAdditionalAssignments=count,
                UniqueRequestToken=token,
            )
        except ClientError as exc:
            if error_code(exc) != DUPLICATE:
                raise _platform_error(exc, f"add assignments to HIT {platform_id}") from exc

    def expire(self, platform_id: str) -> None:
        self._call(
            "update_expiration_for_hit",
            f"expire HIT {platform_id}",
            safe=True,  # setting the expiry to the past again changes nothing
            HITId=platform_id,
            ExpireAt=datetime(2015, 1, 1),
        )


def _unit(hit: dict[str, Any]) -> PublishedUnit:
    return PublishedUnit(
        platform_id=str(hit["HITId"]),
        label=hit.get("RequesterAnnotation"),
        state=UnitState(str(hit.get("HITStatus", "Assignable")).lower()),
        assignments=int(hit.get("MaxAssignments", 1)),
        expires_at=hit.get("Expiration"),
    )


def _submission(a: dict[str, Any]) -> Submission:
    return Submission(
        assignment_id=str(a["AssignmentId"]),
        unit_id=str(a["HITId"]),
        worker_id=str(a["WorkerId"]),
        state=_ASSIGNMENT_STATE[str(a["AssignmentStatus"])],
        answer=str(a.get("Answer") or ""),
        accepted_at=a.get("AcceptTime"),
        submitted_at=a.get("SubmitTime"),
    )
