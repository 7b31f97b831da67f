"""How much `harness demo` varies: the same seed run again, other seeds, each platform.

Live screening blocks a careless worker when its background pass runs, so how much careless
work counts before the block depends on timing, and a platform whose people take one place
each (Prolific) cannot stop anyone before they finish. This runs the demo (the real CLI, in a
subprocess) for each platform and seed, ``--runs`` times, and prints per run the alpha of all
judgments and of the screened set, the workers blocked live, the assignments by workers
screening flagged, and the verdict; then the spread per platform.

    .venv/bin/python scripts/demo_spread.py [--platform local ...] [--seeds 1 2 3] [--runs 2]
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path


def one_run(platform: str, seed: int, out: Path) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-m", "harness", "demo", "--platform", platform, "--seed", str(seed)]
        + ["--out", str(out)],
        capture_output=True,
        text=True,
        check=True,
    )
    report = json.loads((out / "report" / "report.json").read_text())
    db = sqlite3.connect(out / "harness.db")
    blocked = db.execute("SELECT COUNT(*) FROM event WHERE kind = 'worker.blocked'").fetchone()
    db.close()
    verdict = next(line for line in done.stdout.splitlines() if line.startswith("Verdict:"))
    return {
        "alpha": report["new"]["repeatability"]["alpha"],
        "screened": report["screened"]["new"]["repeatability"]["alpha"],
        "removed": len(report["screened"]["workers_removed"]),
        "blocked": blocked[0],
        "reproduces": " does not reproduce " not in verdict,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--platform", nargs="+", default=["local", "link", "prolific-local"])
    parser.add_argument("--seeds", nargs="+", type=int, default=[1, 2, 3])
    parser.add_argument("--runs", type=int, default=2, help="Runs of each seed.")
    args = parser.parse_args()
    print("platform        seed run  alpha  screened  flagged  blocked  reproduces")
    with tempfile.TemporaryDirectory() as tmp:
        for platform in args.platform:
            alphas, screened = [], []
            for seed in args.seeds:
                for n in range(args.runs):
                    r = one_run(platform, seed, Path(tmp) / f"{platform}-{seed}-{n}")
                    alphas.append(float(r["alpha"]))  # type: ignore[arg-type]
                    screened.append(float(r["screened"]))  # type: ignore[arg-type]
                    print(
                        f"{platform:15} {seed:4} {n + 1:3}  {r['alpha']:.3f}  {r['screened']:.3f}"
                        f"     {r['removed']:4}     {r['blocked']:4}  {r['reproduces']}",
                        flush=True,
                    )
            print(
                f"{platform}: alpha {min(alphas):.3f} to {max(alphas):.3f}, screened "
                f"{min(screened):.3f} to {max(screened):.3f} over {len(alphas)} runs",
                flush=True,
            )


if __name__ == "__main__":
    main()
