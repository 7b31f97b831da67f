"""`harness screen`'s text: one short column per heuristic, under 100 columns, with a legend.

Each cell is the heuristic's score (2 significant digits), marked ``*`` when it flags the
worker and ``!`` when it flags and the policy acts on it (block, reject, replace); the last
column says whether the policy flags the worker at all. A heuristic that could say nothing
about anyone (no controls of its kind, no page signals, no machine reference) gets no column;
the legend names it. `ScreeningReport.table` is the wide form (every field), printed with
``--details``.
"""

from __future__ import annotations

import math

from harness.screening.report import ScreeningReport
from harness.spec.heuristics import BY_KEY
from harness.spec.model import Action

SHORT = {"radical": "rad", "centrist": "cen"}
WIDTH = 6


def code_of(key: str) -> str:
    """The heuristic's short column name: its code (H1-H13), or rad / cen."""
    info = BY_KEY.get(key)
    return info.code if info is not None else SHORT.get(key, key[:WIDTH])


def compact_lines(report: ScreeningReport) -> list[str]:
    """The compact table, then its legend."""
    scored = [k for k, f in report.results.items() if f["score"].notna().any()]
    keys = scored or list(report.results)
    silent = [k for k in report.results if k not in keys]
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
    legend = ", ".join(_entry(k) for k in keys)
    if silent:
        legend += "; no scores for anyone: " + ", ".join(_entry(k) for k in silent)
    lines += [
        "",
        f"Columns: {legend}.",
        "Scores: * flags the worker (reported), ! flags and the spec's policy acts on it; "
        "--details shows every field, --json all of it.",
    ]
    return [*lines[:-2], *_wrap(lines[-2]), *_wrap(lines[-1])]


def _entry(key: str) -> str:
    """``H8 consensus_correlation``, kept on one line when the legend is wrapped."""
    return f"{code_of(key)}{_KEEP}{key}"


_KEEP = "\0"  # a space the legend is not wrapped at


def _number(value: object) -> str:
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return "-"
    return "-" if math.isnan(number) else f"{number:.2g}"


def _wrap(text: str) -> list[str]:
    import textwrap

    return [line.replace(_KEEP, " ") for line in textwrap.wrap(text, 100)] or [""]
