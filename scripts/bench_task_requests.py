"""CPU milliseconds and SQL statements per task-page load and per submission, in-process.

Run from the project root (SQLite in a temporary file; PostgreSQL in a database of its own at
127.0.0.1:5432, dropped afterwards):

    python scripts/bench_task_requests.py --store sqlite --assignments 200
    python scripts/bench_task_requests.py --store postgresql --assignments 200
    python scripts/bench_task_requests.py --store postgresql --before /work/main  # and main's

The study is the load test's (the WS353 reproduction, ``--items-per-hit`` pairs per HIT),
launched on the local MTurk target with every HIT posted, served by `harness.web.create_app`
through Flask's test client with a verifier that vouches for every assignment (what the
platform answers is another part's cost). Each simulated assignment loads its page (an
accepted assignment: token, worker's order) and posts its answers. Reported: CPU ms (process
time, this process only) per page load and per submission, SQL statements each, and both as a
ratio to a trivial Flask route measured in the same run (``/health``), which is what makes
figures of different runs and machine loads comparable. ``--before DIR`` first measures the
checkout at DIR the same way (a subprocess; the study, spec and data are this checkout's) and
prints how many times cheaper this one is.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import sqlalchemy as sa
import yaml

ROOT = Path(__file__).resolve().parent.parent
TREE = Path(os.environ.get("BENCH_TREE", ROOT))  # the checkout whose harness is measured
sys.path.insert(0, str(TREE))

from load_store import fresh_store, ws353_spec  # noqa: E402

from harness.answer import Answer  # noqa: E402
from harness.platform.verification import Vouches  # noqa: E402
from harness.render.answers import encode_answers  # noqa: E402
from harness.render.instrument import Instrument  # noqa: E402
from harness.render.plan import HitPlan, hit_key, plan_hits  # noqa: E402
from harness.spec import load_spec  # noqa: E402
from harness.store import create_study, session_scope  # noqa: E402
from harness.store.hits import add_planned_hits  # noqa: E402
from harness.store.migrations import upgrade  # noqa: E402
from harness.store.models import StudyPlatform, utcnow  # noqa: E402
from harness.web import create_app  # noqa: E402
from harness.web.tokens import token_in_page  # noqa: E402

SUBMIT_TO = "http://127.0.0.1:9"  # the local MTurk service's address the study is launched on


@contextmanager
def store(kind: str) -> Iterator[str]:
    """A migrated, empty store of ``kind``, removed afterwards."""
    with (
        tempfile.TemporaryDirectory() as directory,
        fresh_store(kind, Path(directory), "bench") as url,
    ):
        upgrade(url)
        yield url


def launch(
    url: str, directory: Path, items_per_hit: int, raters: int
) -> tuple[str, list[HitPlan], Instrument]:
    """The load test's study, stored with every HIT posted on the local MTurk target."""
    spec = ws353_spec("bench", items_per_hit, raters)
    path = directory / "bench.yaml"
    path.write_text(yaml.safe_dump(spec, sort_keys=False))
    loaded = load_spec(path)
    plans = plan_hits(loaded)
    engine = sa.create_engine(url)
    with session_scope(engine) as session:
        study = create_study(session, loaded, target="local")
        hits = add_planned_hits(session, study, [p.showings for p in plans], raters)
        for hit in hits:
            hit.platform_hit_id = f"PH{hit.index}"
            hit.created_at = utcnow() - timedelta(hours=1)
            session.add(hit)
        session.add(
            StudyPlatform(
                study_id=study.id,
                provider="mturk",
                launch_id="bench",
                endpoint_url=SUBMIT_TO,
                hosting="external",
                spec_path=str(path),
                reward=Decimal("0.75"),
                assignments_per_hit=raters,
            )
        )
        name = study.name
    engine.dispose()
    return name, plans, Instrument.from_loaded(loaded)


class Statements:
    """Counts the SQL statements an engine sends."""

    def __init__(self, engine: sa.Engine, show: bool = False) -> None:
        self.count = 0
        self.show = show
        sa.event.listen(engine, "before_cursor_execute", self._seen)

    def _seen(self, _conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        self.count += 1
        if self.show:
            print("   ", " ".join(statement.split())[:150])


def cpu_ms(run: Callable[[], None], times: int) -> float:
    """Process CPU milliseconds per call of ``run``."""
    start = time.process_time()
    for _ in range(times):
        run()
    return (time.process_time() - start) * 1000 / times


def bench(url: str, args: argparse.Namespace) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as directory:
        name, plans, instrument = launch(url, Path(directory), args.items_per_hit, args.assignments)
    app = create_app(url, verifier=Vouches("bench"))
    client = app.test_client()
    counter = Statements(app.extensions["harness"].engine)
    state = app.extensions["harness"]
    try:
        reference = cpu_ms(lambda: client.get("/health"), 200)
        page_cpu = submit_cpu = 0.0
        page_sql = submit_sql = 0
        for i in range(args.assignments + 1):  # the first of each is a warm-up (caches, imports)
            counter.show = args.show_sql and i == 2
            if counter.show:
                print("page load and submission", i)
            plan = plans[i % len(plans)]
            key = hit_key(name, plan.index)
            assignment, worker = f"A{i}", f"W{i}"
            query = (
                f"assignmentId={assignment}&workerId={worker}&hitId=PH{plan.index}"
                f"&turkSubmitTo={SUBMIT_TO}"
            )
            before, start = counter.count, time.process_time()
            response = client.get(f"/hit/{key}?{query}")
            spent, sql = time.process_time() - start, counter.count - before
            assert response.status_code == 200, response.get_data(as_text=True)[:500]
            if i:
                page_cpu, page_sql = page_cpu + spent, page_sql + sql
            now = utcnow()
            order = instrument.page_order(
                plan, study_name=name, worker_id=worker, hosting="external"
            )
            answers = [
                Answer(
                    k,
                    p,
                    5.0,
                    shown_at=now - timedelta(seconds=60 - p),
                    answered_at=now - timedelta(seconds=59 - p),
                )
                for p, k in enumerate(order)
            ]
            form = encode_answers(answers)
            form.update(
                assignmentId=assignment,
                workerId=worker,
                hitId=f"PH{plan.index}",
                pageToken=token_in_page(response.get_data(as_text=True)),
            )
            before, start = counter.count, time.process_time()
            response = client.post(f"/hit/{key}/submit", data=form)
            spent, sql = time.process_time() - start, counter.count - before
            assert response.status_code == 200 and response.json["created"], response.json
            if i:
                submit_cpu, submit_sql = submit_cpu + spent, submit_sql + sql
        n = args.assignments
        return {
            "reference": reference,
            "page": page_cpu * 1000 / n,
            "submit": submit_cpu * 1000 / n,
            "page_sql": page_sql / n,
            "submit_sql": submit_sql / n,
        }
    finally:
        state.close()


def measure(args: argparse.Namespace) -> dict[str, float]:
    """This checkout's figures (see `bench`), or those of ``--before``'s checkout."""
    if args.before is None:
        with store(args.store) as url:
            return bench(url, args)
    command = [
        sys.executable,
        __file__,
        "--store",
        args.store,
        "--json",
        "--assignments",
        str(args.assignments),
        "--items-per-hit",
        str(args.items_per_hit),
    ]
    env = {**os.environ, "BENCH_TREE": str(Path(args.before).resolve())}
    env.pop("PYTHONPATH", None)
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=True)
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def report(title: str, found: dict[str, float]) -> None:
    ref = found["reference"]
    print(f"{title}: reference (GET /health) {ref:.3f} CPU ms")
    for part in ("page", "submit"):
        ms = found[part]
        print(
            f"  {part:7s}: {ms:7.2f} CPU ms = {ms / ref:6.1f} x reference; "
            f"{found[part + '_sql']:.1f} SQL statements"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--store", choices=["sqlite", "postgresql"], default="sqlite")
    parser.add_argument("--assignments", type=int, default=200)
    parser.add_argument("--items-per-hit", type=int, default=10)
    parser.add_argument("--show-sql", action="store_true", help="print one page's statements")
    parser.add_argument("--before", help="another checkout to measure first (e.g. /work/main)")
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    print(
        f"store {args.store}, {args.assignments} assignments, {args.items_per_hit} per HIT",
        file=sys.stderr if args.json else sys.stdout,
    )
    before = measure(args) if args.before else None
    args.before = None
    after = measure(args)
    if args.json:
        print(json.dumps(after))
        return
    if before is not None:
        report("before (the --before checkout)", before)
    report(f"this checkout ({TREE})", after)
    if before is not None:
        for part in ("page", "submit"):
            raw = before[part] / after[part]
            relative = (before[part] / before["reference"]) / (after[part] / after["reference"])
            print(f"  {part:7s}: {raw:.2f}x less CPU ({relative:.2f}x against the reference)")


if __name__ == "__main__":
    main()
