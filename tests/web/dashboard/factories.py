"""A study running live for the dashboard's tests: the local MTurk service, the task server
with the dashboard mounted (live screening acting at once), a launched small study with
external pages, and a simulated crowd to do it."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import requests
from sqlmodel import select

from harness.providers.mturk.crowd import SimulatedWorkers
from harness.simulate import Crowd
from harness.simulate.answering import DriverReport
from harness.spec import load_spec
from harness.store import make_engine, session_scope
from harness.store.models import Assignment, Event
from harness.web.dashboard import DashboardSettings
from harness.web.dashboard.access import derive_secret
from tests.factories import migrated_sqlite
from tests.platform.factories import harness_cli, launch_args, small_spec, truths_of
from tests.providers.mturk.local_service.factories import LocalMTurk
from tests.providers.prolific.conftest import PAY
from tests.serving import ServedApp, until_rechecked

PASSWORD = "correct horse battery staple"
SETTINGS = DashboardSettings(PASSWORD, derive_secret(PASSWORD))
STUDY = "small"
CSRF = re.compile(r'name="csrf-token" content="([^"]+)"')


@dataclass
class LiveStudy:
    """Everything a dashboard test drives: ``url`` is the task server (dashboard under
    ``/dashboard``), ``mturk`` the local service, ``db`` the store."""

    directory: Path
    crowd_mix: dict[str, int] = field(default_factory=lambda: {"careful": 4, "straight_liner": 2})
    items: int = 20
    raters: int = 3
    per_hit: int = 5
    apply_decisions: bool = True  # live screening carries out its decisions at once
    database: str | None = None  # the store (default: a SQLite file in ``directory``)
    screening: str = "{low_variance: {action: block}}"

    def start(self) -> LiveStudy:
        from harness.platform.submissions.after_submission import hook
        from harness.store.migrations import upgrade
        from harness.web import create_app

        self.mturk = LocalMTurk(self.directory / "mturk.sqlite").start()
        if self.database is None:
            self.db = migrated_sqlite(self.directory / "harness.db")
        else:
            self.db = self.database
            upgrade(self.db)
        self.app = create_app(
            self.db, after_submission=hook(self.apply_decisions), dashboard=SETTINGS
        )
        self.server = ServedApp(self.app).start()
        spec = small_spec(
            self.directory,
            items=self.items,
            per_hit=self.per_hit,
            raters=self.raters,
            hosting="external",
            controls="{identical: {per_hit: 1, seed: 3}}",
            screening=self.screening,
        )
        _give_items_a_truth(self.directory / "items.csv")
        launched = harness_cli(
            *launch_args(spec, self.mturk.url, self.db, "--public-url", self.server.url)
        )
        assert launched.exit_code == 0, launched.output
        self.loaded = load_spec(spec)
        self.http = requests.Session()
        return self

    @property
    def url(self) -> str:
        return self.server.url

    def workers(self, seed: int = 5) -> list[Any]:
        size = sum(self.crowd_mix.values())
        return Crowd(dict(self.crowd_mix), size=size, seed=seed).workers(self.loaded.scale)

    def crowd(
        self, workers: Sequence[Any] | None = None, rounds: int | None = None
    ) -> DriverReport:
        """Let the crowd work (through the local MTurk service and the task pages), then wait
        until the task server has verified, stored and screened every submission."""
        chosen = list(workers) if workers is not None else self.workers()
        driver = SimulatedWorkers(
            self.mturk.url, chosen, truths_of(self.loaded), self.loaded.scale, self.http
        )
        report = driver.run(rounds)
        self.settle(report.submitted)
        return report

    def settle(self, submitted: Sequence[str], seconds: float = 300.0) -> None:
        """Wait for the task server's rechecks: a page posts its answers before MTurk knows
        the assignment is completed, so they are quarantined and stored (and screened, and
        screening's decisions carried out) by a recheck a moment later."""
        until_rechecked(self.app, seconds)
        engine = make_engine(self.db)
        try:
            with session_scope(engine) as session:
                stored = set(session.exec(select(Assignment.platform_assignment_id)))
        finally:
            engine.dispose()
        missing = sorted(set(submitted) - stored)
        assert not missing, f"submitted but not stored after the rechecks: {missing}"

    def stop(self) -> None:
        self.server.stop()
        self.app.extensions["harness"].close()
        self.mturk.stop()
        self.http.close()


def events(db: str, kind: str) -> list[Event]:
    """The store's events of ``kind``, oldest first."""
    engine = make_engine(db)
    try:
        with session_scope(engine) as session:
            return list(session.exec(select(Event).where(Event.kind == kind).order_by(Event.id)))
    finally:
        engine.dispose()


def logged_in(base: str, password: str = PASSWORD) -> tuple[requests.Session, str]:
    """A requests session logged in to the dashboard at ``base``, and its CSRF token."""
    http = requests.Session()
    page = http.get(f"{base}/dashboard/login")
    token = CSRF.search(page.text)
    assert token, page.text
    done = http.post(
        f"{base}/dashboard/login", data={"password": password, "csrf_token": token.group(1)}
    )
    assert done.status_code == 200 and "Studies" in done.text, done.text
    return http, csrf_of(http, base)


TOTAL = re.compile(r'name="confirm_total" value="([^"]+)"')
FLASH = re.compile(r'<div class="msg (?:done|refused)" role="status">(.*?)</div>', re.S)


def flashed(page: str) -> str:
    """The message the page shows after an action (one line, quotes unescaped)."""
    found = FLASH.search(page)
    assert found, page[:2000]
    return re.sub(r"\s+", " ", found.group(1)).replace("&#39;", "'").strip()


SEEN = re.compile(r'name="seen" value="(\d+)"')


def bonus_asked_at_once(base: str, people: int, **fields: str) -> list[str]:
    """What each of ``people`` logged-in researchers is told when they all confirm the same
    bonus (``assignment``, ``amount``, ``reason``) at the same moment; the first asked shows
    the confirmation page, whose total each posts back."""
    http, token = logged_in(base)
    asked = http.post(f"{base}/dashboard/study/{STUDY}/bonus", data={"csrf_token": token, **fields})
    total = TOTAL.search(asked.text)
    assert asked.status_code == 200 and total, asked.text[:2000]
    return posted_at_once(base, "bonus", people, confirm_total=total.group(1), **fields)


def seen_on_page(http: requests.Session, base: str) -> str:
    """The ``seen`` the study page's forms post back (the newest event it was read at)."""
    found = SEEN.search(http.get(f"{base}/dashboard/study/{STUDY}").text)
    assert found
    return found.group(1)


def posted_at_once(base: str, action: str, people: int, **fields: str) -> list[str]:
    """What each of ``people`` logged-in researchers is told when they all post the same
    form of the study page at the same moment."""
    from concurrent.futures import ThreadPoolExecutor
    from threading import Barrier

    sessions = [logged_in(base) for _ in range(people)]
    url = f"{base}/dashboard/study/{STUDY}/{action}"
    barrier = Barrier(people)

    def post(person: tuple[requests.Session, str]) -> str:
        http, token = person
        barrier.wait()
        answer = http.post(url, data={"csrf_token": token, **fields}, timeout=120)
        assert answer.status_code == 200, answer.text[:2000]
        return flashed(answer.text)

    with ThreadPoolExecutor(people) as pool:
        return list(pool.map(post, sessions))


def csrf_of(http: requests.Session, base: str) -> str:
    found = CSRF.search(http.get(f"{base}/dashboard/").text)
    assert found
    return found.group(1)


def _give_items_a_truth(items: Path) -> None:
    """A ``mean`` per item (seeded, 0-10), so that careful workers agree on something."""
    import numpy as np

    lines = items.read_text(encoding="utf-8").splitlines()
    means = np.random.default_rng(7).uniform(0, 10, len(lines) - 1)
    rows = [lines[0] + ",mean"] + [
        f"{row},{m:.2f}" for row, m in zip(lines[1:], means, strict=True)
    ]
    items.write_text("\n".join(rows) + "\n", encoding="utf-8")


@dataclass
class LivePlacesStudy:
    """A small study on a platform with places, served with the dashboard: ``target`` is
    ``prolific-local`` (the local Prolific service, participants through its participant side)
    or ``link`` (participants straight to the task server). ``url`` is the task server."""

    directory: Path
    target: str
    database: str | None = None
    items: int = 8
    per_hit: int = 2
    raters: int = 2
    entries: dict[str, str] = field(default_factory=dict)  # a participant's way back in
    currency: str = "USD"  # the spec's platform.currency, and the local workspace's

    def start(self) -> LivePlacesStudy:
        from harness.platform.submissions.after_submission import hook
        from harness.providers.prolific.local_service import Settings
        from harness.providers.prolific.local_service import create_app as prolific_app
        from harness.store.migrations import upgrade
        from harness.web import create_app

        self.prolific: ServedApp | None = None
        endpoint: list[str] = []
        if self.target == "prolific-local":
            self.prolific_app = prolific_app(
                Settings(db_path=self.directory / "prolific.sqlite", currency=self.currency)
            )
            self.prolific = ServedApp(self.prolific_app).start()
            endpoint = ["--endpoint-url", self.prolific.url]
        if self.database is None:
            self.db = migrated_sqlite(self.directory / "harness.db")
        else:
            self.db = self.database
            upgrade(self.db)
        self.app = create_app(self.db, after_submission=hook(True), dashboard=SETTINGS)
        self.server = ServedApp(self.app).start()
        spec = small_spec(
            self.directory,
            items=self.items,
            per_hit=self.per_hit,
            raters=self.raters,
            hosting="external",
            **(PAY if self.target == "prolific-local" else {}),
            **({} if self.currency == "USD" else {"platform": f"{{currency: {self.currency}}}"}),
        )
        launched = harness_cli(
            "launch",
            str(spec),
            "--target",
            self.target,
            *endpoint,
            "--db",
            self.db,
            "--public-url",
            self.server.url,
        )
        assert launched.exit_code == 0, launched.output
        self.loaded = load_spec(spec)
        self.http = requests.Session()
        return self

    @property
    def url(self) -> str:
        return self.server.url

    @property
    def endpoint(self) -> str | None:
        return self.prolific.url if self.prolific is not None else None

    def crowd(self, size: int = 2) -> DriverReport:
        """``size`` careful participants do what they can (through the platform's door and
        the task pages); then the task server has verified and stored all of it."""
        from harness.platform.registry import platform_of_target
        from harness.simulate.crowds import run_crowd

        workers = Crowd({"careful": size}, size=size, seed=3).workers(self.loaded.scale)
        platform = platform_of_target(self.target)
        report = run_crowd(
            platform,
            self.endpoint,
            self.url,
            STUDY,
            workers,
            truths_of(self.loaded),
            self.loaded.scale,
            self.http,
        )
        until_rechecked(self.app, 30.0)
        assert not report.refused, report.refused
        return report

    def stop(self) -> None:
        self.server.stop()
        self.app.extensions["harness"].close()
        if self.prolific is not None:
            self.prolific.stop()
            self.prolific_app.extensions["prolific_local"].close()
        self.http.close()
