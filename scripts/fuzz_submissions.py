"""A long seeded fuzzing run of what workers post (issue 41): ``--readings`` mutated
submissions through the one reading of a submission (`harness.render.validation.read_posted`),
then ``--posts`` through the task server itself (Flask's test client on a SQLite store), half
to a HIT's page and half to a study link's session page, with valid tokens. The test suite runs
the same fuzzing a few seconds' worth (tests/web/test_fuzz_submissions.py).

Prints how the submissions were answered and every one that raised or answered 5xx; exits 1
if any did. Run from the project root:

    python scripts/fuzz_submissions.py --seed 1 --readings 200000 --posts 20000
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from harness.store import make_engine  # noqa: E402
from tests.factories import migrated_sqlite  # noqa: E402
from tests.web.factories import plan_study, write_task_spec  # noqa: E402
from tests.web.fuzzing import FuzzServer, Tally, read_many  # noqa: E402


def report(label: str, tally: Tally, seconds: float) -> None:
    statuses = ", ".join(f"{s}: {n}" for s, n in sorted(tally.statuses.items()))
    print(f"{label}: {tally.posts} in {seconds:.1f} s ({statuses}); {len(tally.failures)} failed")
    for failure in tally.failures[:20]:
        print(f"  {failure}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--readings", type=int, default=100_000)
    parser.add_argument("--posts", type=int, default=10_000)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    failed = 0
    with tempfile.TemporaryDirectory() as folder:
        directory = Path(folder)
        engine = make_engine(migrated_sqlite(directory / "read.db"))
        study = plan_study(engine, write_task_spec(directory, "rating"))
        start = time.perf_counter()
        tally = read_many(rng, args.readings, study)
        report("read_posted", tally, time.perf_counter() - start)
        failed += len(tally.failures)
        engine.dispose()
        served = FuzzServer(directory / "server")
        try:
            start = time.perf_counter()
            tally = served.run(rng, args.posts)
            report("task server", tally, time.perf_counter() - start)
            failed += len(tally.failures)
        finally:
            served.close()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
