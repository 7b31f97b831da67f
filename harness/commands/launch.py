"""`harness launch SPEC`: plan, price and post a study's HITs, safely and resumably.

Everything is checked before money is spent: the spec, the question documents, the budget,
the balance and (on production) a typed confirmation of the cost. Running the same command
again after a crash finishes the launch (see `harness.platform.launch`).
"""

from __future__ import annotations

import json
import os
import sys
import time
from dataclasses import replace
from decimal import Decimal
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import click

from harness.commands._platform import db_option, echo_err, make_provider, open_engine
from harness.errors import InputError, LaunchRefused
from harness.platform.launch_plan import (
    LaunchPlan,
    assignment_warnings,
    check_balance,
    check_budget,
    check_confirmation,
)
from harness.platform.mturk.client import endpoint_for
from harness.platform.provider import WorkSettings
from harness.spec import Hosting, LoadedSpec, load_spec

PUBLIC_URL_ENV = "HARNESS_PUBLIC_URL"


def _decimal(_ctx: click.Context, _param: click.Parameter, value: str | None) -> Decimal | None:
    if value is None:
        return None
    try:
        amount = Decimal(value.lstrip("$"))
    except ArithmeticError as exc:
        raise click.BadParameter(f"expected an amount such as 123.45, got {value!r}") from exc
    if not amount.is_finite() or amount < 0:
        raise click.BadParameter(f"expected an amount such as 123.45, got {value!r}")
    return amount


@click.command("launch")
@click.argument("spec_path", metavar="SPEC", type=click.Path(path_type=Path, dir_okay=False))
@click.option(
    "--target",
    type=click.Choice(["local", "sandbox", "production"]),
    default=None,
    help="Where to post (default: the spec's platform.target; production must be given here).",
)
@click.option("--endpoint-url", default=None, help="Local target: the service's URL.")
@click.option("--start-local", is_flag=True, help="Local target: start the service if not up.")
@click.option("--public-url", default=None, help="External hosting: the task pages' base URL.")
@db_option
@click.option("--budget", callback=_decimal, default=None, help="Refuse above this cost ($).")
@click.option("--notify-queue", default=None, help="Send MTurk's events to this SQS queue URL.")
@click.option("--dry-run", is_flag=True, help="Print the plan and the requests; send nothing.")
@click.option("--yes", is_flag=True, help="Production: do not ask (needs --confirm-cost).")
@click.option("--confirm-cost", default=None, help="Production with --yes: the cost, repeated.")
def launch(
    spec_path: Path,
    target: str | None,
    endpoint_url: str | None,
    start_local: bool,
    public_url: str | None,
    db: str | None,
    budget: Decimal | None,
    notify_queue: str | None,
    dry_run: bool,
    yes: bool,
    confirm_cost: str | None,
) -> None:
    """Post SPEC's study: freeze the instrument, plan the HITs, show the cost, then post.

    Refuses when the cost exceeds the spec's budget or --budget, or the account's balance.
    Production needs --target production and the cost typed back (or --yes --confirm-cost).
    Running it again resumes: no HIT is posted twice and none is missing.
    """
    from harness.render.plan import plan_hits

    loaded = load_spec(spec_path)
    chosen = _target(loaded, target)
    hosting = loaded.spec.hosting.value
    public_url = public_url or os.environ.get(PUBLIC_URL_ENV)
    if hosting == Hosting.EXTERNAL.value and not public_url:
        raise InputError(
            "this spec's hosting is external: give --public-url (or $HARNESS_PUBLIC_URL), the "
            "base URL where the task server (harness serve) shows the pages"
        )
    if public_url and chosen != "local" and urlsplit(public_url).scheme != "https":
        raise InputError(
            f"--public-url {public_url}: MTurk shows external pages only over https; give the "
            "https address the task server is reachable at"
        )
    plan = launch_plan(loaded, chosen)
    hit_plans = plan_hits(loaded)
    questions = _questions(loaded, hit_plans, public_url)
    for line in plan.lines():
        click.echo(line)
    if dry_run:
        _print_requests(plan, questions, notify_queue, _known_launch(db, plan.study_name))
        return
    check_budget(plan, budget)
    if chosen == "production":
        _confirm_production(plan, yes, confirm_cost)
    if chosen == "local" and start_local:
        _start_local(endpoint_url)
    from harness.platform.launch import open_study, post_hits, work_units
    from harness.platform.studies import platform_of, posted_count
    from harness.store import database_url, session_scope
    from harness.store.migrations import upgrade

    limits = [b for b in (plan.budget, budget) if b is not None]
    plan = replace(plan, budget=min(limits) if limits else None)
    upgrade(database_url(db))
    engine = open_engine(db)
    try:
        provider = make_provider("mturk", chosen, endpoint_url)
        with session_scope(engine) as session:
            existing = posted_count(session, plan.study_name)
        remaining = plan.cost_of(plan.hits - existing)
        if remaining > 0:
            balance = provider.balance()
            click.echo(f"  balance on {chosen}: ${balance}; still to post: ${remaining}")
            check_balance(balance, remaining, chosen)
        with session_scope(engine) as session:
            study, created = open_study(
                session,
                loaded,
                plan,
                [p.showings for p in hit_plans],
                provider="mturk",
                endpoint_url=endpoint_for("local", endpoint_url) if chosen == "local" else None,
                public_url=public_url,
            )
            assert study.id is not None
            study_id = study.id
            launch_id = platform_of(session, study).launch_id
        units = work_units(plan, questions, launch_id)
        with click.progressbar(
            length=plan.hits - existing, label="Posting HITs", file=sys.stderr
        ) as bar:
            result = post_hits(
                engine,
                provider,
                study_id,
                plan,
                units,
                reconcile=not created,
                exclude_studies=loaded.spec.qualifications.exclude_studies,
                notification_queue=notify_queue,
                on_posted=bar.update,
            )
    finally:
        engine.dispose()
    click.echo(
        f"{plan.study_name}: {result.total} HITs on {chosen} ({result.posted} posted now, "
        f"{result.reconciled} found again, {result.already} posted before)"
    )


def launch_plan(loaded: LoadedSpec, target: str) -> LaunchPlan:
    """The plan of ``loaded``'s study on ``target``: HITs, assignments, cost, warnings."""
    from harness.platform.pricing import estimate_cost

    spec = loaded.spec
    q = spec.qualifications
    settings = WorkSettings(
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
    )
    per_hit = spec.raters_per_item
    return LaunchPlan(
        study_name=spec.study.name,
        instrument_hash=loaded.instrument_hash,
        target=target,
        hosting=spec.hosting.value,
        hits=loaded.n_hits,
        assignments_per_hit=per_hit,
        settings=settings,
        cost=estimate_cost(spec.hit.reward, loaded.n_hits, per_hit),
        budget=spec.budget,
        warnings=assignment_warnings(settings, per_hit),
    )


def _target(loaded: LoadedSpec, given: str | None) -> str:
    """The target: given, else the spec's, except that production must be given explicitly."""
    if given is not None:
        return given
    spec_target = loaded.spec.platform.target.value
    if spec_target == "production":
        echo_err(
            "note: the spec says production, which needs --target production; "
            "launching on the sandbox"
        )
        return "sandbox"
    return spec_target


def _questions(loaded: LoadedSpec, hit_plans: list[Any], public_url: str | None) -> list[str]:
    """Every HIT's question document, built (and size-checked) before anything is posted."""
    from harness.render.pages import external_question, html_question
    from harness.render.question import QuestionTooLarge

    name = loaded.spec.study.name
    try:
        if loaded.spec.hosting is Hosting.EXTERNAL:
            assert public_url is not None
            return [external_question(public_url, study_name=name, plan=p) for p in hit_plans]
        from harness.render.instrument import Instrument

        instrument = Instrument.from_loaded(loaded)
        return [html_question(instrument, p, study_name=name) for p in hit_plans]
    except QuestionTooLarge as exc:
        raise InputError(f"{loaded.path}: items_per_hit: {exc}") from exc


def _known_launch(db: str | None, study_name: str) -> str | None:
    """The launch id of a study already in the store (a dry run of a resume), else None.

    Reads only: a store that does not exist is not created.
    """
    import sqlalchemy as sa
    from sqlmodel import select

    from harness.platform.studies import platform_of
    from harness.store import database_url, session_scope
    from harness.store.models import Study

    url = database_url(db)
    if url.startswith("sqlite:///") and not Path(url.removeprefix("sqlite:///")).exists():
        return None
    engine = open_engine(db)
    try:
        with session_scope(engine) as session:
            study = session.exec(select(Study).where(Study.name == study_name)).first()
            return None if study is None else platform_of(session, study).launch_id
    except sa.exc.SQLAlchemyError:
        return None  # no store there (or not migrated): a new study
    finally:
        engine.dispose()


def _print_requests(
    plan: LaunchPlan, questions: list[str], queue: str | None, launch_id: str | None
) -> None:
    """The exact requests a launch would send, as JSON lines; what is not known before the
    launch (platform ids, a new study's launch id) is shown as <...>."""
    from harness.platform.launch import work_units
    from harness.platform.mturk import requests

    exclude = "<exclusion qualification id>"
    hit_type = "<HIT type id>"
    launch_id = launch_id or "<launch id>"
    calls: list[tuple[str, dict[str, Any]]] = [
        ("GetAccountBalance", {}),
        (
            "CreateQualificationType",
            requests.exclusion_qualification(f"{plan.study_name} {launch_id}"),
        ),
        ("CreateHITType", requests.hit_type(plan.settings, exclude)),
    ]
    if queue:
        calls.append(
            (
                "UpdateNotificationSettings",
                {
                    "HITTypeId": hit_type,
                    "Notification": requests.notification(queue),
                    "Active": True,
                },
            )
        )
    calls += [
        ("CreateHITWithHITType", requests.create_hit(hit_type, u))
        for u in work_units(plan, questions, launch_id)
    ]
    click.echo(f"Requests (dry run: nothing sent; {len(calls)} calls):")
    for operation, params in calls:
        click.echo(json.dumps({"operation": operation, "params": params}, sort_keys=True))


def _confirm_production(plan: LaunchPlan, yes: bool, confirm_cost: str | None) -> None:
    expected = plan.cost.total
    if yes:
        if confirm_cost is None:
            raise LaunchRefused(
                f"--yes on production needs the cost repeated: --confirm-cost {expected}"
            )
        check_confirmation(expected, confirm_cost)
        return
    typed = click.prompt(
        f"Posting to PRODUCTION spends real money. Type the cost ({expected}) to confirm",
        default="",
        show_default=False,
        err=True,
    )
    check_confirmation(expected, typed)


def _start_local(endpoint_url: str | None) -> None:
    """Start the local MTurk service in the background unless one answers already."""
    import requests as http

    url = endpoint_for("local", endpoint_url)
    if _answers(http, url):
        echo_err(f"local MTurk service already running at {url}")
        return
    parts = urlsplit(url)
    log = os.open("mturk-local.log", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    argv = [
        sys.executable,
        "-m",
        "harness",
        "mturk-local",
        "--host",
        parts.hostname or "127.0.0.1",
        "--port",
        str(parts.port or 80),
        "--db",
        "mturk-local.sqlite",
    ]
    # A session of its own, so it outlives this command (and a Ctrl-C of it).
    pid = os.posix_spawn(
        sys.executable,
        argv,
        os.environ,
        file_actions=[
            (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
            (os.POSIX_SPAWN_DUP2, log, 1),
            (os.POSIX_SPAWN_DUP2, log, 2),
        ],
        setsid=True,
    )
    os.close(log)
    for _ in range(100):
        if _answers(http, url):
            echo_err(
                f"started the local MTurk service at {url} (pid {pid}, state in "
                f"mturk-local.sqlite, log in mturk-local.log; stop it with kill {pid})"
            )
            return
        if os.waitpid(pid, os.WNOHANG) != (0, 0):
            break  # it exited
        time.sleep(0.1)
    raise InputError(f"could not start the local MTurk service at {url}: see mturk-local.log")


def _answers(http: Any, url: str) -> bool:
    try:
        return bool(http.get(f"{url}/_control/clock", timeout=1).ok)
    except http.RequestException:
        return False
