"""A launch's plan before anything is posted: HITs, assignments, cost, warnings, and the guards.

Pure: no platform calls, no database. The guards raise `LaunchRefused` with what to do.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass, field
from decimal import Decimal

from harness.errors import LaunchRefused
from harness.platform.pricing import LARGE_HIT_ASSIGNMENTS, CostEstimate, estimate_cost
from harness.platform.provider import WorkSettings

APPROVAL_RATE_FLOOR = 100
"""Below this many decided HITs MTurk reports a worker's approval rate as 100%."""


@dataclass(frozen=True)
class LaunchPlan:
    """What a launch will post and what it costs."""

    study_name: str
    instrument_hash: str
    target: str
    hosting: str
    hits: int
    assignments_per_hit: int
    settings: WorkSettings
    cost: CostEstimate
    budget: Decimal | None
    warnings: list[str] = field(default_factory=list)

    @property
    def assignments(self) -> int:
        return self.hits * self.assignments_per_hit

    def cost_of(self, hits: int) -> Decimal:
        """Rewards plus fees of ``hits`` of this plan's HITs."""
        return estimate_cost(self.settings.reward, hits, self.assignments_per_hit).total

    def lines(self) -> list[str]:
        """The plan as a person reads it before confirming."""
        s = self.settings
        out = [
            f"study {self.study_name} on {self.target} (instrument {self.instrument_hash[:12]},"
            f" hosting {self.hosting})",
            f"  HITs: {self.hits} x {self.assignments_per_hit} assignments = "
            f"{self.assignments} assignments at ${s.reward} each",
            f"  cost: ${self.cost.total} = ${self.cost.rewards} rewards + ${self.cost.fees} fees"
            + (f" (budget ${self.budget})" if self.budget is not None else " (no budget set)"),
            f"  lifetime {s.lifetime} s, {s.assignment_duration} s per assignment, "
            f"auto-approval after {s.auto_approval_delay} s",
        ]
        who = []
        if s.countries:
            who.append("countries " + ", ".join(s.countries))
        if s.min_approval_rate is not None:
            who.append(f"approval rate >= {s.min_approval_rate}%")
        if s.min_approved is not None:
            who.append(f">= {s.min_approved} approved HITs")
        out.append("  workers: " + ("; ".join(who) if who else "anyone") + "; blocked excluded")
        out += [f"  warning: {w}" for w in self.warnings]
        return out


def assignment_warnings(settings: WorkSettings, assignments_per_hit: int) -> list[str]:
    """MTurk's limits a researcher must know before posting (they cannot be undone later)."""
    out = []
    if assignments_per_hit >= LARGE_HIT_ASSIGNMENTS:
        out.append(
            f"{assignments_per_hit} assignments per HIT: HITs with {LARGE_HIT_ASSIGNMENTS} or "
            "more assignments pay MTurk 20% more in fees (40% instead of 20%)"
        )
    elif assignments_per_hit == LARGE_HIT_ASSIGNMENTS - 1:
        out.append(
            f"{assignments_per_hit} assignments per HIT: MTurk cannot raise a HIT from fewer "
            f"than {LARGE_HIT_ASSIGNMENTS} to {LARGE_HIT_ASSIGNMENTS} or more assignments, so "
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


def check_budget(plan: LaunchPlan, budget: Decimal | None = None) -> None:
    """Refuse a plan whose full cost exceeds the spec's budget or the command line's."""
    for limit, source in ((plan.budget, "the spec's budget"), (budget, "--budget")):
        if limit is not None and plan.cost.total > limit:
            raise LaunchRefused(
                f"the study costs ${plan.cost.total} (rewards and fees), more than {source} "
                f"${limit}; raise the budget, or plan fewer HITs or raters"
            )


def check_balance(balance: Decimal, needed: Decimal, target: str) -> None:
    """Refuse to post when the account cannot pay for the HITs still to post."""
    if balance < needed:
        raise LaunchRefused(
            f"the {target} account's balance is ${balance}; posting the remaining HITs needs "
            f"${needed}; add funds (or lower the cost) and run the same command again"
        )


def check_confirmation(expected: Decimal, typed: str) -> None:
    """Refuse unless the person repeated the cost exactly (production only)."""
    try:
        same = Decimal(typed.strip().lstrip("$")) == expected
    except ArithmeticError:
        same = False
    if not same:
        raise LaunchRefused(
            f"not confirmed: the cost is ${expected}, and {typed.strip()!r} was given; "
            f"nothing was posted"
        )


def new_launch_id() -> str:
    """A fresh id for a study's launch, stored with the study: it keeps the HITs, tokens and
    exclusion group of two studies of the same name (e.g. in two stores) apart."""
    return secrets.token_hex(6)


def label_prefix(study_name: str, launch_id: str) -> str:
    """What every label of a study's HITs (and no other study's) starts with."""
    return f"harness study={study_name} launch={launch_id} hit="


def hit_label(study_name: str, launch_id: str, index: int) -> str:
    """The RequesterAnnotation of a study's HIT: the study, its launch and the HIT's index."""
    return f"{label_prefix(study_name, launch_id)}{index}"


def hit_token(study_name: str, launch_id: str, index: int) -> str:
    """The UniqueRequestToken of a study's HIT: the same study and index, the same token."""
    digest = hashlib.sha256(f"{study_name}\x1f{launch_id}\x1f{index}".encode()).hexdigest()
    return f"harness-{digest[:40]}-{index}"


def action_token(*parts: object) -> str:
    """A UniqueRequestToken for a review action (e.g. a bonus: assignment and reason)."""
    digest = hashlib.sha256("\x1f".join(str(p) for p in parts).encode()).hexdigest()
    return f"harness-{digest[:48]}"
