"""`harness screen`'s text: one short column per heuristic, under 100 columns, with a legend.

Each cell is the heuristic's score (2 significant digits), marked ``*`` when it flags the
worker and ``!`` when it flags and the policy acts on it (block, reject, replace); the last
column says whether the policy flags the worker at all. `ScreeningReport.table` is the wide
form (every field), printed with ``--details``.
"""

from __future__ import annotations

import math

from harness.screening.report import ScreeningReport
from harness.spec.heuristics import BY_KEY
from harness.spec.model import Action

SHORT = {"radical": "rad", "centrist": "cen"}
WIDTH = 6


def code_of(key: str) -> str:
    """The heuristic's short column name: its code (H1-H10), or rad / cen."""
    info = BY_KEY.get(key)
    return info.code if info is not None else SHORT.get(key, key[:WIDTH])


def compact_lines(report: ScreeningReport) -> list[str]:
    """The compact table, then its legend."""
    keys = list(report.results)
    flagged = report.flagged
    name_width = max([len("worker"), *(len(str(w)) for w in report.workers)])
    header = f"{'worker':<{name_width}} " + " ".join(f"{code_of(k):>{WIDTH}}" for k in keys)
    lines = [header + "  flagged"]
    frames = {k: f.set_index("worker_id") for k, f in report.results.items()}
    for worker in report.workers:
        cells = []
        for key in keys:
            row = frames[key].loc[worker]
            mark = ""
            if bool(row["flag"]):
                acts = report.actions.get(key, Action.REPORT) is not Action.REPORT
                mark = "!" if acts else "*"
            cells.append(f"{_number(row['score']) + mark:>{WIDTH}}")
        lines.append(
            f"{str(worker):<{name_width}} "
            + " ".join(cells)
            + ("  yes" if bool(flagged[worker]) else "  -")
        )
    legend = ", ".join(f"{code_of(k)} {k}" for k in keys)
    lines += [
        "",
        f"Columns: {legend}.",
        "Scores: * flags the worker (reported), ! flags and the spec's policy acts on it; "
        "--details shows every field, --json all of it.",
    ]
    return [*lines[:-2], *_wrap(lines[-2]), *_wrap(lines[-1])]


def _number(value: object) -> str:
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return "-"
    return "-" if math.isnan(number) else f"{number:.2g}"


def _wrap(text: str, width: int = 100) -> list[str]:
    import textwrap

    return textwrap.wrap(text, width) or [""]
