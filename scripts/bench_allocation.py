"""In-process benchmark of an arrival on a study link (issue 20): what a participant's entry does
under the study's places lock (`harness.store.arm_assignment.allocate_in_arm`), one arrival at
a time into a study of ``--hits`` HITs of ``--raters`` places, each place submitted before the
next arrival. Reported per arrival: SQL statements and CPU in this process. The places lock
makes arrivals take turns, so what one costs bounds a study link's arrivals per second.

Run from the project root (another checkout: run its own copy of this script, or put it first
on ``PYTHONPATH``, and compare runs made one after the other):

    python scripts/bench_allocation.py --store postgresql
    python scripts/bench_allocation.py --store sqlite --arrivals 300 --raters 16
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

import sqlalchemy as sa

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from harness.spec import load_spec  # noqa: E402
from harness.store import create_study, make_engine, session_scope  # noqa: E402
from harness.store.allocation import Allocation, ensure_slots, settle  # noqa: E402
from harness.store.arm_assignment import allocate_in_arm  # noqa: E402
from harness.store.hits import add_planned_hits  # noqa: E402
from harness.store.migrations import upgrade  # noqa: E402
from tests.factories import (  # noqa: E402
    MINIMAL_RATING_SPEC,
    create_postgres_database,
    drop_postgres_database,
    write_spec,
)

PER_HIT = 10


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--store", choices=["sqlite", "postgresql"], default="postgresql")
    parser.add_argument("--hits", type=int, default=36)
    parser.add_argument("--raters", type=int, default=16, help="places per HIT")
    parser.add_argument("--arrivals", type=int, default=300)
    args = parser.parse_args()
    if args.arrivals > args.hits * args.raters:
        parser.error("--arrivals must not exceed --hits x --raters (every arrival gets a place)")
    with tempfile.TemporaryDirectory(prefix="harness-bench-") as tmp:
        directory = Path(tmp)
        url = (
            f"sqlite:///{directory / 'harness.db'}"
            if args.store == "sqlite"
            else create_postgres_database()
        )
        try:
            upgrade(url)
            statements, cpu = measure(url, directory, args.hits, args.raters, args.arrivals)
        finally:
            if args.store == "postgresql":
                drop_postgres_database(url)
    print(
        f"{args.store}, {args.hits} HITs x {args.raters} places, {args.arrivals} arrivals: "
        f"{statements:.1f} statements and {cpu:.2f} ms of CPU per arrival"
    )
    return 0


def measure(
    url: str, directory: Path, hits: int, raters: int, arrivals: int
) -> tuple[float, float]:
    """Statements and CPU ms per arrival, averaged over ``arrivals`` new participants."""
    items = [f"i{n}" for n in range(hits * PER_HIT)]
    (directory / "items.csv").write_text(
        "item_id,left,right\n" + "".join(f"{i},a{i},b{i}\n" for i in items)
    )
    loaded = load_spec(write_spec(directory, MINIMAL_RATING_SPEC))
    engine = make_engine(url)
    with session_scope(engine) as session:
        study = create_study(session, loaded)
        showings = [items[h * PER_HIT : (h + 1) * PER_HIT] for h in range(hits)]
        add_planned_hits(session, study, showings, max_assignments=raters)
        ensure_slots(session, study.id)
        study_id = study.id
    count = [0]

    def executed(*_: object) -> None:
        count[0] += 1

    cpu = 0.0
    for n in range(arrivals):
        sa.event.listen(engine, "before_cursor_execute", executed)
        start = time.process_time()
        with session_scope(engine) as session:
            got = allocate_in_arm(
                session, study_id, f"W{n}", None, hold=timedelta(minutes=30), paused_stops_new=True
            )
        cpu += time.process_time() - start
        sa.event.remove(engine, "before_cursor_execute", executed)
        assert isinstance(got, Allocation), got
        with session_scope(engine) as session:
            settle(session, got.session_ref)
    engine.dispose()
    return count[0] / arrivals, 1000 * cpu / arrivals


if __name__ == "__main__":
    sys.exit(main())
