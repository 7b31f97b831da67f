"""`harness validate SPEC...`: check task specs and show what each would launch and cost."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING

import click

from harness.errors import InputError, Problem, SpecError
from harness.money import money
from harness.spec import load_spec, short_hash, summary_counts

if TYPE_CHECKING:
    from harness.spec import LoadedSpec


@click.command("validate")
@click.argument("specs", nargs=-1, required=True, type=click.Path(path_type=Path))
def validate(specs: tuple[Path, ...]) -> None:
    """Check task specs; print items, HITs, judgments, cost and the instrument hash of each.

    Every problem of every spec is reported at once, as FILE:LINE: field: message, including
    what the spec's platform cannot run; the cost is priced with that platform's fees. An
    adaptive spec's figures are its floor's, followed by the range up to its cap and what
    its budget covers of it (collection stops when the budget is spent).
    """
    from harness.platform.adaptive_range import adaptive_range
    from harness.platform.launch_plan import choose_target, platform_problems, work_settings

    problems: list[Problem] = []
    for path in specs:
        if _declares_arms(path):
            problems += _validate_arms(path)
            continue
        try:
            loaded = load_spec(path)
            platform, _target, _note = choose_target(loaded, None)
        except SpecError as exc:
            problems += exc.problems
            continue
        except InputError as exc:  # an unknown platform or target
            problems.append(Problem(str(path), None, "platform", str(exc)))
            continue
        found = platform_problems(loaded, platform)
        if found:
            problems += found
            continue
        spec = loaded.spec
        counts = summary_counts(loaded)
        cost = platform.estimate(spec.hit.reward, counts["hits"], spec.raters_per_item)
        what = "the estimated cost {cost}"
        if spec.adaptive is not None:
            what = (
                f"the cost of the adaptive floor ({spec.raters_per_item} raters per item) {{cost}}"
            )
        problems += _over_budget(path, loaded, what, cost.total)
        click.echo(f"{path}: {spec.study.name} ({spec.type.value})")
        click.echo(f"  items: {counts['items']} + {counts['control_items']} control items")
        click.echo(
            f"  HITs: {counts['hits']} x {spec.raters_per_item} assignments = "
            f"{counts['assignments']} assignments, about {counts['items_per_assignment']} "
            f"items each"
        )
        click.echo(f"  judgments: {counts['judgments']:,}")
        c = spec.platform.currency
        budget = f" (budget {money(spec.budget, c)})" if spec.budget is not None else ""
        click.echo(
            f"  cost: {money(cost.total, c)} = {money(cost.rewards, c)} rewards + "
            f"{money(cost.fees, c)} {platform.label} fees{budget}"
        )
        adaptive = adaptive_range(loaded, platform)
        for line in adaptive.lines(spec.budget) if adaptive is not None else []:
            click.echo(line)
        click.echo(f"  instrument: {short_hash(loaded.instrument_hash)} ({loaded.instrument_hash})")
        settings = work_settings(loaded)
        for warning in platform.warnings(settings, spec.raters_per_item):
            click.echo(f"  warning: {warning}")
    if problems:
        raise SpecError(problems)


def _declares_arms(path: Path) -> bool:
    from harness.spec.arms import has_arms

    try:
        return has_arms(path)
    except SpecError:
        return False  # load_spec reports the unreadable file


def _validate_arms(path: Path) -> list[Problem]:
    """Check a spec with arms (docs/arms.md): every arm's problems; print each arm's plan,
    instrument and cost, and the study's cost (every item reaches its raters in every arm)."""
    from harness.platform.launch_plan import choose_target, platform_problems
    from harness.spec.arms import load_arms

    try:
        armed = load_arms(path)
        platform, _target, _note = choose_target(armed.arms[0].loaded, None)
    except SpecError as exc:
        return exc.problems
    except InputError as exc:
        return [Problem(str(path), None, "platform", str(exc))]
    problems: list[Problem] = []
    for arm in armed.arms:
        problems += platform_problems(arm.loaded, platform)
    if problems:
        return problems
    first = armed.arms[0].loaded
    spec = first.spec
    costs = []
    c = spec.platform.currency
    click.echo(f"{path}: {spec.study.name} ({spec.type.value}), {len(armed.arms)} arms")
    click.echo(f"  items: {first.n_content_items} + {first.n_control_items} control items")
    for arm in armed.arms:
        counts = summary_counts(arm.loaded)
        a = arm.loaded.spec
        cost = platform.estimate(a.hit.reward, counts["hits"], a.raters_per_item)
        costs.append(cost.total)
        click.echo(
            f"  arm {arm.name}: {counts['hits']} HITs x {a.raters_per_item} assignments at "
            f"{money(a.hit.reward, c)}, {money(cost.total, c)}; instrument "
            f"{short_hash(arm.instrument_hash)}"
        )
    total = sum(costs, start=Decimal(0))
    budget = f" (budget {money(spec.budget, c)})" if spec.budget is not None else ""
    fees = f"{platform.label} fees included{budget}"
    click.echo(f"  cost: {money(total, c)} for all {len(armed.arms)} arms, {fees}")
    what = f"the estimated cost {{cost}} of all {len(armed.arms)} arms"
    return _over_budget(path, first, what, total)


def _over_budget(path: Path, loaded: LoadedSpec, what: str, cost: Decimal) -> list[Problem]:
    """The spec's budget problem when ``cost`` exceeds its budget (``what``: the cost's
    description, with ``{cost}`` where its amount goes); none otherwise."""
    budget, c = loaded.spec.budget, loaded.spec.platform.currency
    if budget is None or cost <= budget:
        return []
    message = f"{what.format(cost=money(cost, c))} exceeds the budget {money(budget, c)}"
    return [Problem(str(path), loaded.line_of("budget"), "budget", message)]
