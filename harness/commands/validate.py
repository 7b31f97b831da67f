"""`harness validate SPEC...`: check task specs and show what each would launch and cost."""

from __future__ import annotations

from pathlib import Path

import click

from harness.errors import InputError, Problem, SpecError
from harness.spec import load_spec, short_hash, summary_counts


@click.command("validate")
@click.argument("specs", nargs=-1, required=True, type=click.Path(path_type=Path))
def validate(specs: tuple[Path, ...]) -> None:
    """Check task specs; print items, HITs, judgments, cost and the instrument hash of each.

    Every problem of every spec is reported at once, as FILE:LINE: field: message, including
    what the spec's platform cannot run; the cost is priced with that platform's fees.
    """
    from harness.platform.launch_plan import choose_target, platform_problems, work_settings

    problems: list[Problem] = []
    for path in specs:
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
        if spec.budget is not None and cost.total > spec.budget:
            problems.append(
                Problem(
                    str(path),
                    None,
                    "budget",
                    f"the estimated cost ${cost.total} exceeds the budget ${spec.budget}",
                )
            )
        click.echo(f"{path}: {spec.study.name} ({spec.type.value})")
        click.echo(f"  items: {counts['items']} + {counts['control_items']} control items")
        click.echo(
            f"  HITs: {counts['hits']} x {spec.raters_per_item} assignments = "
            f"{counts['assignments']} assignments, about {counts['items_per_assignment']} "
            f"items each"
        )
        click.echo(f"  judgments: {counts['judgments']:,}")
        budget = f" (budget ${spec.budget})" if spec.budget is not None else ""
        click.echo(
            f"  cost: ${cost.total} = ${cost.rewards} rewards + ${cost.fees} {platform.label} "
            f"fees{budget}"
        )
        click.echo(f"  instrument: {short_hash(loaded.instrument_hash)} ({loaded.instrument_hash})")
        settings = work_settings(loaded)
        for warning in platform.warnings(settings, spec.raters_per_item):
            click.echo(f"  warning: {warning}")
    if problems:
        raise SpecError(problems)
