"""Build what launch tests need: a task server on a thread, specs, simulated crowds, counts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
from click.testing import CliRunner, Result

from harness.cli import main
from harness.simulate import Crowd, control_truths
from harness.spec import LoadedSpec
from tests.serving import ServedApp

WORKER_PROFILE = {"country": "US", "numberApproved": 5000, "percentApproved": 99}
"""What simulated workers tell the worker side: they meet the WS353 spec's requirements."""


def task_server(database_url: str) -> tuple[ServedApp, Any]:
    from harness.web import create_app

    app = create_app(database_url)
    return ServedApp(app).start(), app


def harness_cli(*args: str, input: str | None = None) -> Result:
    return CliRunner().invoke(main, list(args), input=input, catch_exceptions=False)


def small_spec(
    directory: Path,
    *,
    items: int = 8,
    per_hit: int = 2,
    raters: int = 2,
    reward: str = "0.10",
    duration: str = "1h",
    **extra: str,
) -> Path:
    """A small rating spec (``items`` word pairs) with its items CSV; extra top-level YAML keys.
    ``reward`` and ``duration`` (the time allowed) are the HIT's."""
    rows = ["item_id,left,right"] + [f"p{i:02d},word{i},other{i}" for i in range(items)]
    (directory / "items.csv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    lines = [
        "study:",
        f"  name: {extra.pop('name', 'small')}",
        "type: rating",
        "items:",
        "  csv: items.csv",
        "  display: [left, right]",
        "guidelines:",
        "  text: Rate how similar the two words are.",
        "scale: {min: 0, max: 10}",
        f"raters_per_item: {raters}",
        f"items_per_hit: {per_hit}",
        f"hosting: {extra.pop('hosting', 'mturk')}",
        "hit:",
        "  title: Rate word pairs",
        "  description: Rate how similar two words are.",
        f"  reward: '{reward}'",
        f"  assignment_duration: {duration}",
        "  auto_approval_delay: 1d",
    ]
    lines += [f"{key}: {value}" for key, value in extra.items()]
    path = directory / "spec.yaml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def truths_of(loaded: LoadedSpec) -> dict[str, float]:
    """Latent truths: the item's mean where the items have one (WS353), else the midpoint;
    control items from `control_truths`."""
    items = loaded.items
    means = items["mean"] if "mean" in items.columns else pd.Series(5.0, index=items.index)
    truths = {str(k): float(v) for k, v in zip(items["item_id"], means, strict=True)}
    truths.update({str(k): float(v) for k, v in control_truths(items, loaded.scale).items()})
    return truths


def crowd_workers(loaded: LoadedSpec, size: int, seed: int = 0) -> list[Any]:
    mix = {"careful": 0.8, "spammer": 0.1, "straight_liner": 0.1}
    return Crowd(mix, size=size, seed=seed).workers(loaded.scale)


def launch_args(spec: Path, endpoint_url: str, db: str, *extra: str) -> list[str]:
    """`harness launch` arguments for ``spec`` on the local service at ``endpoint_url``."""
    return [
        "launch",
        str(spec),
        "--target",
        "local",
        "--endpoint-url",
        endpoint_url,
        "--db",
        db,
        *extra,
    ]


def hits_on_platform(client: Any) -> list[dict[str, Any]]:
    """Every HIT the requester has (all pages of ListHITs)."""
    hits: list[dict[str, Any]] = []
    token = None
    while True:
        page = client.list_hits(MaxResults=100, **({"NextToken": token} if token else {}))
        hits += page["HITs"]
        token = page.get("NextToken")
        if not token:
            return hits


def until_verified(database_url: str, seconds: float = 300.0) -> int:
    """Wait until the task server's rechecks have settled every quarantined submission (MTurk
    vouches for an assignment only once the worker completed it there); the number still
    pending when the time ran out."""
    import time

    from sqlmodel import func, select

    from harness.store import make_engine, session_scope
    from harness.store.models import QuarantinedSubmission, QuarantineState

    engine = make_engine(database_url)
    deadline = time.monotonic() + seconds
    try:
        while True:
            with session_scope(engine) as session:
                left = session.exec(
                    select(func.count())
                    .select_from(QuarantinedSubmission)
                    .where(QuarantinedSubmission.state == QuarantineState.PENDING)
                ).one()
            if left == 0 or time.monotonic() > deadline:
                return int(left)
            time.sleep(0.2)
    finally:
        engine.dispose()


ADAPTIVE = "{half_width: 2.5, floor: 3, cap: 10}"
"""An adaptive section small enough for a test crowd to finish."""


def adaptive_link_study(
    tmp_path: Path, **app_options: Any
) -> tuple[LoadedSpec, str, Any, ServedApp]:
    """A served task server (``app_options`` to `create_app`) and an adaptive study `small` of 6
    items, 2 to a HIT, launched on it as a study link: the spec, the store, the app, the server."""
    from harness.spec import load_spec
    from harness.web import create_app
    from tests.factories import migrated_sqlite

    db = migrated_sqlite(tmp_path / "h.db")
    app = create_app(db, **app_options)
    server = ServedApp(app).start()
    spec = small_spec(tmp_path, items=6, per_hit=2, raters=3, hosting="external", adaptive=ADAPTIVE)
    launched = harness_cli(
        "launch", str(spec), "--target", "link", "--db", db, "--public-url", server.url
    )
    assert launched.exit_code == 0, launched.output
    return load_spec(spec), db, app, server


def adaptive_mturk_study(tmp_path: Path, mturk_url: str) -> tuple[LoadedSpec, str, ServedApp, Any]:
    """The same adaptive study `small` launched on the local MTurk service at ``mturk_url``,
    its pages served by a task server: the spec, the store, the server, the app."""
    from harness.spec import load_spec
    from tests.factories import migrated_sqlite

    db = migrated_sqlite(tmp_path / "h.db")
    server, app = task_server(db)
    spec = small_spec(tmp_path, items=6, per_hit=2, raters=3, hosting="external", adaptive=ADAPTIVE)
    launched = harness_cli(*launch_args(spec, mturk_url, db, "--public-url", server.url))
    assert launched.exit_code == 0, launched.output
    return load_spec(spec), db, server, app


def link_crowd(
    loaded: LoadedSpec, url: str, http: Any, mix: dict[str, float], size: int = 24
) -> Any:
    """What a seeded crowd of ``size`` (archetype shares ``mix``) did on study `small`'s link."""
    from harness.platform.registry import platform_of_target
    from harness.simulate.crowds import run_crowd

    workers = Crowd(mix, size=size, seed=4).workers(loaded.scale)
    return run_crowd(
        platform_of_target("link"),
        None,
        url,
        "small",
        workers,
        truths_of(loaded),
        loaded.scale,
        http,
    )
