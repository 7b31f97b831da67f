"""The whole loop on a local platform with a simulated crowd: what `harness demo` runs.

Starts what the run needs on free loopback ports (the platform's local service, if it has
one, and the task server), launches a shipped study, lets a simulated crowd (careful, sloppy
and spamming workers) do it through the worker pages while screening acts live,
syncs, reviews, screens, characterizes the result against WS353 and three systems, and stops
everything it started, also on Ctrl-C or a failure. Every step calls what the command of the
same name calls (`harness launch`, `simulate-workers`, `sync`, ...), on a store of its own in
the run folder; the services are the real `harness serve` and local-service commands.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness.errors import InputError
from harness.platform.contract import DemoEntry
from harness.platform.local_service import START_WAIT
from harness.platform.registry import demos
from harness.resources import project_task_specs

if TYPE_CHECKING:
    import pandas as pd

KINDS = ("reproduction", "resolution")
# Careful simulated workers alone agree more than WS353's own raters; a quarter of sloppy ones
# brings the crowd to WS353's alpha with few bad workers (docs/characterize.md).
CROWD_MIX = {"careful": 0.7, "sloppy": 0.25, "spammer": 0.05}
"""The simulated people; how many come each platform's `DemoEntry` says."""


def _default_platform() -> str:
    return demos()[0].name


@dataclass(frozen=True)
class Demo:
    """What to run: the study (``reproduction`` of WS353, or the ``resolution`` experiment) on
    which platform's demo (its `DemoEntry` name; default the first), in which folder, with
    which seed."""

    kind: str = "reproduction"
    platform: str = field(default_factory=_default_platform)
    run_dir: Path = Path("demo-run")
    seed: int = 1

    @property
    def spec(self) -> Path:
        return project_task_specs() / f"ws353_{self.kind}.yaml"

    @property
    def study(self) -> str:
        return f"ws353-{self.kind}"

    @property
    def entry(self) -> DemoEntry:
        """The platform's demo entry ``platform`` names; `InputError` if none does."""
        for entry in demos():
            if entry.name == self.platform:
                return entry
        raise InputError(self.refusal)

    @property
    def refusal(self) -> str:
        names = ", ".join(entry.name for entry in demos())
        return f"demo: expected one of {', '.join(KINDS)} on one of {names}"


@dataclass
class DemoResult:
    report_dir: Path
    seconds: float = 0.0
    service: list[str] | None = None  # the `harness` command that runs its platform's service


Progress = Callable[[int], Callable[[int], None]]
"""``progress(total)`` gives the callback told of each step done (a progress bar)."""


def run_demo(
    demo: Demo, say: Callable[[str], None], progress: Progress | None = None
) -> DemoResult:
    """Run ``demo``; ``say`` gets the progress lines a person watches, ``progress`` the
    crowd's submissions as they land."""
    if demo.kind not in KINDS:
        raise InputError(demo.refusal)
    entry = demo.entry  # an unknown platform is refused before anything starts
    start = time.perf_counter()
    run = demo.run_dir.resolve()
    _empty(run)
    db = f"sqlite:///{run / 'harness.db'}"
    result = DemoResult(report_dir=run / "report")
    with _services(demo, entry, run, db, say, result) as (endpoint, pages):
        _crowd_loop(demo, entry, db, endpoint, pages, say, progress)
    say("== characterize")
    from harness.report.run import characterize_refs

    new, resolution = (demo.study, None) if demo.kind == "reproduction" else ("ws353", demo.study)
    screen_spec = demo.spec if demo.kind == "reproduction" else None
    lines = characterize_refs(
        new,
        "ws353",
        result.report_dir,
        db=db,
        system_refs=["ws353"],
        resolution_ref=resolution,
        screen_spec=screen_spec,
        say=lambda message: say(f"  {message}"),
    )
    for line in lines:
        say(line)
    result.seconds = time.perf_counter() - start
    return result


def _crowd_loop(
    demo: Demo,
    entry: DemoEntry,
    db: str,
    endpoint: str | None,
    pages: str,
    say: Callable[[str], None],
    progress: Progress | None = None,
) -> None:
    """Launch, let the crowd work, sync, review, show the status and screen, on ``db``."""
    from harness.platform.launch import draft_study, launch
    from harness.platform.review import review_stored_study, review_summary
    from harness.platform.status import stored_study_status
    from harness.platform.sync_run import sync_stored_study
    from harness.screening import screen_workers
    from harness.screening.inputs import stored_inputs
    from harness.simulate.crowds import simulate_study
    from harness.spec.arms import read_spec
    from harness.store.database import opened_store
    from harness.store.studies import read_launched

    study = demo.study
    with opened_store(db) as engine:
        say("== launch")
        drafted = draft_study(read_spec(demo.spec), entry.target, endpoint, pages)
        plan = drafted.plan.lines()
        say(plan[0])  # the study
        say(plan[2])  # its cost
        say(drafted.summary(launch(engine, drafted)))
        study_url = drafted.entry_url()
        if study_url is not None:
            say(f"study URL: {study_url}")
        told = "$HARNESS_DASHBOARD_PASSWORD"
        if not os.environ.get("HARNESS_DASHBOARD_PASSWORD"):
            told = _dashboard_password()
        say(
            f"== a simulated crowd does the work; watch it live at {pages}/dashboard/ "
            f"(password: {told})"
        )
        say("== crowd")
        crowd = simulate_study(
            engine, study, CROWD_MIX, size=entry.crowd_size, seed=demo.seed, progress=progress
        )
        say(crowd.line(study))
        say("== sync")
        running = read_launched(engine, study)
        synced = sync_stored_study(engine, running)
        for line in [*synced.lines(study), *synced.warnings(study)]:
            say(line)
        say("== review")
        say(review_summary(study, review_stored_study(engine, running)))
        say("== status")
        for line in stored_study_status(engine, running.study.name):
            say(line)
        say("== screen")
        judgments, context = stored_inputs(study, db)
        screened = screen_workers(judgments, context)
        say(screened.summary())
        for line in flagged_work(judgments, screened.flagged):
            say(line)


def flagged_work(judgments: pd.DataFrame, flagged: pd.Series) -> list[str]:
    """How much of the study the flagged workers did, and why that differs by platform: what
    makes the same crowd's alpha of all judgments differ from one platform to another."""
    workers = set(flagged[flagged].index)
    assignments = judgments.groupby("assignment_id")["worker_id"].first()
    mine = int(assignments.isin(workers).sum())
    return [
        f"  their work: {mine} of {len(assignments)} assignments ({mine / len(assignments):.0%}), "
        "counted in the alpha of all judgments, not in the screened one.",
        "  How much there is depends on the platform, not the crowd: live screening blocks a "
        "worker after the",
        "  first work it flags, which stops one who comes back for more (MTurk, a study link) "
        "early, but not a",
        "  participant who takes one place (Prolific). Compare platforms on the screened alpha.",
    ]


@contextmanager
def _services(
    demo: Demo,
    entry: DemoEntry,
    run: Path,
    db: str,
    say: Callable[[str], None],
    result: DemoResult,
) -> Iterator[tuple[str | None, str]]:
    """The platform's local service (if any) and the task server, on free loopback ports,
    stopped when the block ends (on Ctrl-C and SIGTERM too). The two start (and stop) side by
    side: the task server needs nothing of the platform's service until the crowd comes."""
    from harness.platform.registry import platform_of_target
    from harness.store.migrations import upgrade

    platform = platform_of_target(entry.target)
    children: list[subprocess.Popen[bytes]] = []
    previous = signal.signal(signal.SIGTERM, _raise_interrupt)
    try:
        endpoint = None
        service = platform.local_service(_free_port(), str(run / f"{entry.name}.sqlite"))
        if service is not None:
            state = demo.run_dir / f"{entry.name}.sqlite"  # as the person named the folder
            result.service = [*service.command[:-1], str(state)]
            port = service.command[service.command.index("--port") + 1]
            endpoint = f"http://127.0.0.1:{port}"
            children.append(_start(service.command, run / f"{entry.name}.log", run))
        upgrade(db)  # while the platform's service starts
        pages = f"http://127.0.0.1:{_free_port()}"
        # screening in the request that stores a submission, before the next one is sent: the
        # same seed blocks the same workers after the same work, however fast the machine
        serve = ["serve", "--port", pages.rsplit(":", 1)[1], "--db", db, "--dashboard"]
        serve.append("--screen-inline")
        password = {"HARNESS_DASHBOARD_PASSWORD": _dashboard_password()}
        children.append(_start(serve, run / "serve.log", run, password))
        if service is not None and endpoint is not None:
            _wait(endpoint + service.probe, service.name, children[0])
        _wait(pages + "/health", "the task server", children[-1])
        local = f", {service.name} {endpoint}" if service is not None else ""
        say(f"== services: task pages {pages}{local}")
        yield endpoint, pages
    finally:
        _stop(children)
        signal.signal(signal.SIGTERM, previous)


def next_steps(demo: Demo, result: DemoResult) -> list[str]:
    """What to run next on the demo's store (its services are stopped)."""
    db = f"--db {demo.run_dir / 'harness.db'}"
    lines = [
        "Next, on the demo's store:",
        f"  harness status {demo.study} {db}",
        f"  harness screen {demo.study} {db} --impact",
        f"  harness export {demo.study} {db} --out {demo.study}.csv",
    ]
    if result.service is not None:
        lines.append(
            f"  (sync, review, expire ask the platform: start its service again first, "
            f"harness {' '.join(result.service)} &)"
        )
    return lines


def _raise_interrupt(_signum: int, _frame: Any) -> None:
    raise KeyboardInterrupt


@cache
def _dashboard_password() -> str:
    """The dashboard's password for the demo: the researcher's $HARNESS_DASHBOARD_PASSWORD, else
    one made once per process (the demo's task server serves the dashboard on loopback)."""
    import secrets

    return os.environ.get("HARNESS_DASHBOARD_PASSWORD") or secrets.token_urlsafe(9)


def _start(
    command: list[str], log: Path, cwd: Path, env: dict[str, str] | None = None
) -> subprocess.Popen[bytes]:
    """Start ``harness COMMAND`` in the background, importing the same harness as this process
    (a checkout run beside another installed copy must not serve the other copy's pages)."""
    import harness

    source = str(Path(harness.__file__).resolve().parents[1])
    path = os.pathsep.join([source, *filter(None, [os.environ.get("PYTHONPATH")])])
    with log.open("ab") as out:
        return subprocess.Popen(
            [sys.executable, "-m", "harness", *command],
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            env=os.environ | {"PYTHONUNBUFFERED": "1", "PYTHONPATH": path} | (env or {}),
            start_new_session=True,  # a Ctrl-C in the terminal reaches the demo, which stops it
        )


def _wait(url: str, name: str, child: subprocess.Popen[bytes]) -> None:
    import requests

    deadline = time.monotonic() + START_WAIT
    while time.monotonic() < deadline:
        if child.poll() is not None:
            raise InputError(f"demo: {name} stopped at start (see its log in the run folder)")
        try:
            requests.get(url, timeout=1)
            return
        except requests.RequestException:
            time.sleep(0.1)
    raise InputError(f"demo: {name} did not answer at {url} within {START_WAIT:g} s")


def _stop(children: list[subprocess.Popen[bytes]]) -> None:
    """Stop ``children`` gracefully (SIGTERM to each at once), killing any still up 10 s on."""
    running = [child for child in children if child.poll() is None]
    for child in running:
        os.killpg(child.pid, signal.SIGTERM)
    deadline = time.monotonic() + 10
    for child in running:
        try:
            child.wait(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            os.killpg(child.pid, signal.SIGKILL)
            child.wait()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


MARKER = ".harness-demo"
"""The file a demo writes first into the run folder it makes: only a folder holding it is
emptied by the next run (a `harness.db` alone proves nothing: every command makes one)."""
_MADE = ("harness.db*", "*.log", "*.sqlite*", "report")
"""What a demo makes in its run folder besides the marker (`fnmatch` patterns)."""


def _empty(run: Path) -> None:
    """A fresh run folder: a missing or empty one is made and marked; one a demo marked is
    emptied of what a demo makes; any other, or a marked one holding something else, is
    refused untouched."""
    import fnmatch
    import shutil

    found = sorted(p.name for p in run.iterdir()) if run.is_dir() else []
    if found and MARKER not in found:
        raise InputError(
            f"demo: {run} holds files a demo did not make; give a new or empty folder (--out)"
        )
    others = [n for n in found if n != MARKER and not any(fnmatch.fnmatch(n, m) for m in _MADE)]
    if others:
        raise InputError(
            f"demo: {run} holds {', '.join(others)}, which a demo did not make; "
            "move it or give another folder (--out)"
        )
    for name in found:
        path = run / name
        shutil.rmtree(path) if path.is_dir() and not path.is_symlink() else path.unlink()
    run.mkdir(parents=True, exist_ok=True)
    (run / MARKER).write_text("made by harness demo; the next run here empties this folder\n")
