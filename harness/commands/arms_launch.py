"""`harness launch SPEC` for a spec with arms (docs/arms.md): the same guards, every arm."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import replace
from decimal import Decimal
from pathlib import Path

import click

from harness.commands.progress import progress_bar


def launch_with_arms(
    spec_path: Path,
    *,
    target: str | None,
    endpoint_url: str | None,
    start_local: bool,
    public_url: str | None,
    db: str | None,
    budget: Decimal | None,
    notify_queue: str | None = None,
    dry_run: bool,
    confirm: Callable[[Decimal], None],
    public_url_env: str,
) -> tuple[object, str, str | None] | None:
    """Plan, guard and launch every arm of ``spec_path`` as one study; the platform, study
    name and public URL for the caller's closing lines (None after a dry run)."""
    from harness.platform.launch_arms import draft_arms_launch, launch_arms
    from harness.platform.launch_plan import check_budget
    from harness.spec.arms import load_arms

    armed = load_arms(spec_path)
    arms_draft = draft_arms_launch(
        armed, target, endpoint_url, public_url or os.environ.get(public_url_env)
    )
    draft = arms_draft.draft
    plan, platform = draft.plan, draft.plan.platform
    if draft.note:
        click.echo(draft.note, err=True)
    for line in plan.lines():
        click.echo(line)
    click.echo(arms_draft.arms_line())
    if dry_run:
        click.echo("(dry run: nothing sent)")
        return None
    check_budget(plan, budget)
    if platform.real_money(plan.target):
        confirm(plan.cost.total)
    if start_local and platform.is_local(plan.target):
        click.echo(platform.start_local(endpoint_url), err=True)
    limits = [b for b in (plan.budget, budget) if b is not None]
    arms_draft = replace(
        arms_draft, draft=replace(draft, plan=replace(plan, budget=min(limits) if limits else None))
    )
    from harness.store.database import database_url, open_store
    from harness.store.migrations import upgrade

    upgrade(database_url(db))
    engine = open_store(db)
    try:
        result = launch_arms(
            engine,
            arms_draft,
            armed,
            notification_queue=notify_queue,
            say=click.echo,
            progress=lambda total: progress_bar(total, f"Posting {platform.unit_noun}s"),
        )
    finally:
        engine.dispose()
    click.echo(
        f"{plan.study_name}: {result.total} {platform.unit_noun}s on {plan.target} in "
        f"{len(armed.arms)} arms ({result.posted} posted now, {result.already} posted before)"
    )
    return platform, plan.study_name, draft.public_url
