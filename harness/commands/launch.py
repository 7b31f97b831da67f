"""`harness launch SPEC`: plan, price and post a study's units of work, safely and resumably.

Everything is checked before money is spent: the spec, what the platform can run, the question
documents, the budget, the balance and (with real money) a typed confirmation of the cost.
Running the same command again after a crash finishes the launch (`harness.platform.launch`).
"""

from __future__ import annotations

import json
import os
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING

import click

from harness.commands.options import db_option
from harness.commands.output import progress_bar
from harness.errors import LaunchRefused
from harness.money import typed_amount
from harness.platform.registry import platforms

if TYPE_CHECKING:
    from harness.platform.launch import StudyDraft
    from harness.platform.launch_plan import LaunchPlan

PUBLIC_URL_ENV = "HARNESS_PUBLIC_URL"


def _decimal(_ctx: click.Context, _param: click.Parameter, value: str | None) -> Decimal | None:
    if value is None:
        return None
    try:
        amount = Decimal(typed_amount(value))
    except ArithmeticError as exc:
        raise click.BadParameter(f"expected an amount such as 123.45, got {value!r}") from exc
    if not amount.is_finite() or amount < 0:
        raise click.BadParameter(f"expected an amount such as 123.45, got {value!r}")
    return amount


_PLATFORMS = platforms()  # the --target help names every platform's targets


@click.command("launch")
@click.argument("spec_path", metavar="SPEC", type=click.Path(path_type=Path, dir_okay=False))
@click.option(
    "--target",
    help="Where to post: "
    + "; ".join(f"{', '.join(p.targets)} ({p.label})" for p in _PLATFORMS)
    + ". Default: the spec's platform.target; a target with real money ("
    + ", ".join(t for p in _PLATFORMS for t in p.targets if p.real_money(t))
    + ") must be given here.",
)
@click.option("--endpoint-url", help="Local target: the service's URL.")
@click.option("--start-local", is_flag=True, help="Local target: start the service if not up.")
@click.option("--public-url", help="External hosting: the task pages' base URL.")
@click.option(
    "--project",
    help="Prolific: the workspace's project the study goes into (made when missing); "
    "default: the spec's platform.project.",
)
@db_option
@click.option(
    "--budget",
    callback=_decimal,
    help="Refuse above this cost (in the spec's platform.currency).",
)
@click.option("--notify-queue", help="Send MTurk's events to this SQS queue URL.")
@click.option("--dry-run", is_flag=True, help="Print the plan and the requests; send nothing.")
@click.option("--yes", is_flag=True, help="Production: do not ask (needs --confirm-cost).")
@click.option("--confirm-cost", help="Production with --yes: the cost, repeated.")
@click.option(
    "--like",
    metavar="STUDY",
    help="Run the instrument of the stored STUDY again (e.g. an imported one): refused unless "
    "SPEC has STUDY's instrument hash.",
)
@click.option(
    "--qr",
    "qr_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="A study link: also write the study URL as a QR code (PNG) to this file.",
)
def launch(
    spec_path: Path,
    target: str | None,
    endpoint_url: str | None,
    start_local: bool,
    public_url: str | None,
    project: str | None,
    db: str | None,
    budget: Decimal | None,
    notify_queue: str | None,
    dry_run: bool,
    yes: bool,
    confirm_cost: str | None,
    like: str | None,
    qr_path: Path | None,
) -> None:
    """Post SPEC's study: freeze the instrument, plan the HITs, show the cost, then post.

    Refuses when the cost exceeds the spec's budget or --budget, or the account's balance.
    Production needs --target production and the cost typed back (or --yes --confirm-cost).
    Running it again resumes: no HIT is posted twice and none is missing. With --like
    STUDY, the study runs STUDY's instrument again (same hash) under a new name.
    """
    from harness.spec.arms import read_spec

    spec = read_spec(spec_path)  # a bad spec is refused before the heavy imports

    from harness.platform.launch import draft_study
    from harness.platform.launch import launch as post
    from harness.platform.launch_plan import check_budget

    public_url = public_url or os.environ.get(PUBLIC_URL_ENV)
    study = draft_study(spec, target, endpoint_url, public_url).in_project(project)
    plan, platform = study.plan, study.plan.platform
    if like is not None:
        click.echo(f"same instrument as {like}: {_like(like, study, db)[:12]}")
    if study.draft.note:
        click.echo(study.draft.note, err=True)
    for line in study.within(budget).lines():
        click.echo(line)
    if dry_run:
        if study.arms is not None:
            click.echo("(dry run: nothing sent)")
        else:
            _print_requests(plan, study.draft.documents, notify_queue, db)
        return
    check_budget(plan, budget)
    if platform.real_money(plan.target):
        _confirm(plan.cost.total, plan.settings.currency, yes, confirm_cost)
    if start_local and platform.is_local(plan.target):
        click.echo(platform.start_local(endpoint_url), err=True)
    from harness.store.database import database_url, opened_store
    from harness.store.migrations import upgrade

    upgrade(database_url(db))
    with opened_store(db) as engine:
        result = post(
            engine,
            study.within(budget),
            notification_queue=notify_queue,
            say=click.echo,
            progress=lambda total: progress_bar(total, f"Posting {platform.unit_noun}s"),
        )
    click.echo(study.summary(result))
    _print_entry(study.entry_url(), qr_path)
    if result.hooks:
        click.echo(result.hooks)


def _like(like: str, study: StudyDraft, db: str | None) -> str:
    """The instrument hash the new study shares with the stored study ``like``."""
    from harness.platform.launch_like import check_like
    from harness.store.database import opened_store

    with opened_store(db) as engine:
        return check_like(engine, like, study)


def _print_entry(url: str | None, qr: Path | None) -> None:
    """On a platform with places, where participants start (and, asked for, its QR code)."""
    if url is None:
        return
    click.echo(f"study URL: {url}")
    if qr is not None:
        import segno

        segno.make(url, error="m").save(str(qr), scale=8, border=4)
        click.echo(f"QR code of the study URL: {qr}")


def _print_requests(
    plan: LaunchPlan, documents: list[str], queue: str | None, db: str | None
) -> None:
    """The exact requests a launch would send, as JSON lines; what is not known before the
    launch (platform ids, a new study's launch id) is shown as <...>. Creates no store."""
    from harness.platform.launch import dry_run
    from harness.store.database import open_store, store_exists

    engine = open_store(db) if store_exists(db) else None
    try:
        calls = dry_run(engine, plan, documents, queue)
    finally:
        if engine is not None:
            engine.dispose()
    click.echo(f"Requests (dry run: nothing sent; {len(calls)} calls):")
    for call in calls:
        click.echo(json.dumps({"operation": call.operation, "params": call.params}, sort_keys=True))


def _confirm(expected: Decimal, currency: str, yes: bool, confirm_cost: str | None) -> None:
    """Real money: the cost typed back (or given with --yes --confirm-cost)."""
    from harness.money import money
    from harness.platform.launch_plan import check_confirmation

    if yes:
        if confirm_cost is None:
            raise LaunchRefused(
                f"--yes on production needs the cost repeated: --confirm-cost {expected}"
            )
        check_confirmation(expected, confirm_cost, currency)
        return
    typed = click.prompt(
        f"Posting to PRODUCTION spends real money. Type the cost ({money(expected, currency)}) "
        "to confirm",
        default="",
        show_default=False,
        err=True,
    )
    check_confirmation(expected, typed, currency)
