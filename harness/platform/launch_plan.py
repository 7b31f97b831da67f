"""A launch's plan before anything is posted: HITs, assignments, cost, warnings, and the guards.

Pure: no platform calls, no database (the question documents are rendered here, before
anything is posted). The platform (`harness.platform.contract.Platform`)
prices the plan and names its limits; the guards raise `LaunchRefused` with what to do.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from decimal import Decimal
from urllib.parse import urlsplit

from harness.errors import InputError, LaunchRefused, Problem, SpecError
from harness.hosting import Hosting
from harness.money import money, typed_amount
from harness.platform.adaptive_range import AdaptiveRange, adaptive_range
from harness.platform.contract import CostEstimate, Platform, WorkSettings
from harness.platform.registry import resolve_target
from harness.render.plan import HitPlan, plan_hits
from harness.render.question import QuestionTooLarge
from harness.spec import LoadedSpec
from harness.spec.model import Action


@dataclass(frozen=True)
class LaunchPlan:
    """What a launch will post and what it costs."""

    study_name: str
    instrument_hash: str
    platform: Platform
    target: str
    hosting: Hosting
    hits: int
    assignments_per_hit: int
    settings: WorkSettings
    cost: CostEstimate
    budget: Decimal | None
    warnings: list[str] = field(default_factory=list)
    reward_text: str | None = None  # what each assignment pays, when not one reward (arms)
    adaptive: AdaptiveRange | None = None  # an adaptive study's floor (this plan) to its cap

    @property
    def assignments(self) -> int:
        return self.hits * self.assignments_per_hit

    def cost_of(self, hits: int) -> Decimal:
        """Rewards plus fees of ``hits`` of this plan's HITs."""
        return self.platform.estimate(self.settings.reward, hits, self.assignments_per_hit).total

    def lines(self) -> list[str]:
        """The plan as a person reads it before confirming."""
        s = self.settings
        units = f"{self.platform.unit_noun}s"
        cost, c = self.cost, s.currency
        out = [
            f"study {self.study_name} on {self.target} (instrument {self.instrument_hash[:12]},"
            f" hosting {self.hosting})",
            f"  {units}: {self.hits} x {self.assignments_per_hit} assignments = "
            f"{self.assignments} assignments at {self.reward_text or f'{money(s.reward, c)} each'}",
            f"  cost: {money(cost.total, c)} = {money(cost.rewards, c)} rewards + "
            f"{money(cost.fees, c)} fees"
            + (
                f" (budget {money(self.budget, c)})"
                if self.budget is not None
                else " (no budget set)"
            ),
            f"  lifetime {duration(s.lifetime)}, {duration(s.assignment_duration)} per "
            f"assignment, auto-approval after {duration(s.auto_approval_delay)}",
        ]
        who = []
        if s.countries:
            who.append("countries " + ", ".join(s.countries))
        if s.min_approval_rate is not None:
            who.append(f"approval rate >= {s.min_approval_rate}%")
        if s.min_approved is not None:
            who.append(f">= {s.min_approved} approved HITs")
        out.append("  workers: " + ("; ".join(who) if who else "anyone") + "; blocked excluded")
        out += self.adaptive.lines(self.budget) if self.adaptive is not None else []
        out += [f"  warning: {w}" for w in self.warnings]
        return out


def work_settings(loaded: LoadedSpec) -> WorkSettings:
    """What every unit of the spec's study shares: title, pay, times and who may take it."""
    spec = loaded.spec
    q = spec.qualifications
    return WorkSettings(
        title=spec.hit.title,
        description=spec.hit.description,
        keywords=list(spec.hit.keywords),
        reward=spec.hit.reward,
        assignment_duration=spec.hit.assignment_duration,
        lifetime=spec.hit.lifetime,
        auto_approval_delay=spec.hit.auto_approval_delay,
        countries=list(q.countries),
        min_approval_rate=q.min_approval_rate,
        min_approved=q.min_approved_hits,
        currency=spec.platform.currency,
        project=spec.platform.project,
    )


def plan_launch(loaded: LoadedSpec, platform: Platform, target: str) -> LaunchPlan:
    """The plan of ``loaded``'s study on ``platform``'s ``target``: HITs, assignments, cost,
    warnings. `SpecError`-style problems the platform has with the spec come from
    `platform_problems` (checked before this)."""
    spec = loaded.spec
    settings = work_settings(loaded)
    per_unit = spec.raters_per_item
    return LaunchPlan(
        study_name=spec.study.name,
        instrument_hash=loaded.instrument_hash,
        platform=platform,
        target=target,
        hosting=spec.hosting,
        hits=loaded.n_hits,
        assignments_per_hit=per_unit,
        settings=settings,
        cost=platform.estimate(spec.hit.reward, loaded.n_hits, per_unit),
        budget=spec.budget,
        warnings=platform.warnings(settings, per_unit),
        adaptive=adaptive_range(loaded, platform),
    )


def platform_problems(loaded: LoadedSpec, platform: Platform) -> list[Problem]:
    """What ``platform`` cannot run in the spec, each with the spec's file and line."""
    settings = work_settings(loaded)
    found = [
        Problem(str(loaded.path), loaded.line_of(field), field, message)
        for field, message in platform.problems(settings, loaded.spec.hosting)
    ]
    for name, policy in loaded.spec.screening.items():
        if policy.action is Action.REQUEST_RETURN and not platform.capabilities.asks_returns:
            field = f"screening.{name}.action"
            found.append(
                Problem(
                    str(loaded.path),
                    loaded.line_of(field),
                    field,
                    f"{platform.label} has no way to ask a participant to return "
                    "work: use request_return on Prolific only, or reject, block "
                    "or report here",
                )
            )
    return found


def choose_target(loaded: LoadedSpec, given: str | None) -> tuple[Platform, str, str | None]:
    """The platform and target of a launch, and a note for the person when the spec's target
    was replaced: a target that spends real money must be named on the command line, so a
    spec saying it launches on the platform's stand-in (MTurk: production -> sandbox)."""
    spec = loaded.spec.platform
    platform, target = resolve_target(spec.name, spec.target, given)
    if given is None and platform.real_money(target):
        stand_in = platform.stand_in(target)
        note = (
            f"note: the spec says {target}, which needs --target {target}; "
            f"launching on the {stand_in}"
        )
        return platform, stand_in, note
    return platform, target, None


def check_public_url(
    platform: Platform, target: str, hosting: Hosting, public_url: str | None
) -> None:
    """Pages harness hosts need the address workers reach them at, over https off loopback."""
    if hosting == Hosting.EXTERNAL and not public_url:
        raise InputError(
            "this spec's hosting is external: give --public-url (or $HARNESS_PUBLIC_URL), the "
            "base URL where the task server (harness serve) shows the pages"
        )
    if public_url and not platform.is_local(target) and urlsplit(public_url).scheme != "https":
        raise InputError(
            f"--public-url {public_url}: {platform.label} shows external pages only over https; "
            "give the https address the task server is reachable at"
        )


def unit_documents(
    platform: Platform,
    loaded: LoadedSpec,
    plans: Sequence[HitPlan],
    public_url: str | None,
    target: str,
    endpoint_url: str | None,
) -> list[str]:
    """Every unit's question document on ``target``, built (and size-checked) before anything
    is posted."""
    from harness.render.instrument import Instrument  # pandas: not for `harness validate`

    instrument = Instrument.from_loaded(loaded)
    try:
        return [
            platform.question(
                instrument,
                plan,
                hosting=loaded.spec.hosting,
                public_url=public_url,
                study_name=loaded.spec.study.name,
                target=target,
                endpoint_url=endpoint_url,
            )
            for plan in plans
        ]
    except QuestionTooLarge as exc:
        raise InputError(f"{loaded.path}: items_per_hit: {exc}") from exc


@dataclass(frozen=True)
class LaunchDraft:
    """Everything a launch decided before touching a platform or a store: the plan, each
    unit's plan and question document, where it goes, and a note for the person (if any)."""

    plan: LaunchPlan
    hit_plans: list[HitPlan]
    documents: list[str]
    endpoint_url: str | None
    public_url: str | None
    note: str | None


def draft_launch(
    loaded: LoadedSpec,
    target: str | None,
    endpoint_url: str | None,
    public_url: str | None,
    *,
    first_index: int = 0,
) -> LaunchDraft:
    """Plan ``loaded``'s launch on ``target`` (None: the spec's): refused with every problem
    the platform has with the spec, or without the page address external hosting needs. The
    HITs are numbered from ``first_index`` (an arm's HITs follow the earlier arms')."""
    platform, chosen, note = choose_target(loaded, target)
    problems = platform_problems(loaded, platform)
    if problems:
        raise SpecError(problems)
    check_public_url(platform, chosen, loaded.spec.hosting, public_url)
    endpoint = platform.endpoint(chosen, endpoint_url)
    hit_plans = [replace(p, index=first_index + i) for i, p in enumerate(plan_hits(loaded))]
    documents = unit_documents(platform, loaded, hit_plans, public_url, chosen, endpoint)
    plan = plan_launch(loaded, platform, chosen)
    return LaunchDraft(plan, hit_plans, documents, endpoint, public_url, note)


def check_budget(plan: LaunchPlan, budget: Decimal | None = None) -> None:
    """Refuse a plan whose full cost exceeds the spec's budget or the command line's (of an
    adaptive study, its floor's: past it the budget stops the collection, `adaptive_range`)."""
    what = "the study costs" if plan.adaptive is None else "the adaptive floor costs"
    for limit, source in ((plan.budget, "the spec's budget"), (budget, "--budget")):
        if limit is not None and plan.cost.total > limit:
            c = plan.settings.currency
            raise LaunchRefused(
                f"{what} {money(plan.cost.total, c)} (rewards and fees), more than "
                f"{source} {money(limit, c)}; raise the budget, or plan fewer HITs or raters"
            )


def check_balance(balance: Decimal, needed: Decimal, target: str, currency: str = "USD") -> None:
    """Refuse to post when the account cannot pay for the HITs still to post."""
    if balance < needed:
        raise LaunchRefused(
            f"the {target} account's balance is {money(balance, currency)}; posting the "
            f"remaining HITs needs {money(needed, currency)}; add funds (or lower the cost) "
            "and run the same command again"
        )


def check_confirmation(expected: Decimal, typed: str, currency: str = "USD") -> None:
    """Refuse unless the person repeated the cost exactly (production only)."""
    try:
        same = Decimal(typed_amount(typed)) == expected
    except ArithmeticError:
        same = False
    if not same:
        raise LaunchRefused(
            f"not confirmed: the cost is {money(expected, currency)}, and {typed.strip()!r} "
            "was given; nothing was posted"
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


def duration(seconds: int) -> str:
    """``seconds`` in the largest whole unit that fits, for a person: "7 days", "45 min",
    "90 s" (what does not divide evenly keeps the smaller unit: "36 h")."""
    for unit, size in (("day", 86400), ("h", 3600), ("min", 60)):
        if seconds >= size and seconds % size == 0:
            n = seconds // size
            return f"{n} {unit}{'s' if unit == 'day' and n != 1 else ''}"
    return f"{seconds} s"
