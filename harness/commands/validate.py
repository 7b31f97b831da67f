"""`harness validate SPEC...`: check task specs and show what each would launch and cost."""

from __future__ import annotations

from pathlib import Path

import click

from harness.errors import Problem, SpecError
from harness.platform.pricing import estimate_cost
from harness.spec import load_spec, short_hash, summary_counts


@click.command("validate")
@click.argument("specs", nargs=-1, required=True, type=click.Path(path_type=Path))
def validate(specs: tuple[Path, ...]) -> None:
    """Check task specs; print items, HITs, judgments, cost and the instrument hash of each.

    Every problem of every spec is reported at once, as FILE:LINE: field: message.
    """
    problems: list[Problem] = []
    for path in specs:
        try:
            loaded = load_spec(path)
        except SpecError as exc:
            problems += exc.problems
            continue
        spec = loaded.spec
        counts = summary_counts(loaded)
        cost = estimate_cost(spec.hit.reward, counts["hits"], spec.raters_per_item)
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
            f"  cost: ${cost.total} = ${cost.rewards} rewards + ${cost.fees} MTurk fees{budget}"
        )
        click.echo(f"  instrument: {short_hash(loaded.instrument_hash)} ({loaded.instrument_hash})")
        for warning in loaded.warnings:
            click.echo(f"  warning: {warning}")
    if problems:
        raise SpecError(problems)
