"""The headline of a study's snapshot as terminal lines (`harness status STUDY --watch`):
the same figures as the study page's top, in text."""

from __future__ import annotations

from harness.web.dashboard.watch import Snapshot


def headline_lines(snapshot: Snapshot, events: int = 5) -> list[str]:
    """``harness status``'s lines, then pace, alpha (all workers and screened), the blocked
    workers with who blocked them, and the newest ``events`` events."""
    lines = list(snapshot.report.lines())
    eta = "–" if snapshot.eta is None else _duration(snapshot.eta.total_seconds())
    pace = (
        f"{snapshot.per_minute:,.0f}" if snapshot.per_minute >= 10 else f"{snapshot.per_minute:.1f}"
    )
    lines.append(f"  pace: {pace} judgments per minute; done in {eta}")
    latest = snapshot.latest
    if latest is not None and latest.arms:
        for arm in latest.arms:
            lines.append(
                f"  alpha ({snapshot.level}) of arm {arm.arm}: {arm.everyone.shown}; screened "
                f"set {arm.screened.shown} ({arm.judgments:,} judgments)"
            )
    elif latest is not None:
        lines.append(
            f"  alpha ({snapshot.level}): {latest.everyone.shown}; screened set "
            f"{latest.screened.shown} ({latest.judgments:,} judgments)"
        )
    else:
        lines.append(f"  alpha ({snapshot.level}): not yet")
    for progress in snapshot.arms:
        lines.append(
            f"  arm {progress.arm}: {progress.workers} workers, {progress.judgments:,} "
            f"judgments; {progress.at_target} of {progress.items} items at target (raters per "
            f"item: min {progress.raters_min}, median {progress.raters_median:g}, max "
            f"{progress.raters_max})"
        )
    for problem in snapshot.problems:
        at = problem["at"].strftime("%H:%M:%S") if problem["at"] else ""
        left = (
            f"; {problem['unscreened']} stored assignments not screened yet"
            if "unscreened" in problem
            else ""
        )
        lines.append(
            f"  {problem['what']}: {problem['count']} times, the latest at {at} "
            f"({problem['error']}){left}"
        )
    for worker, block in sorted(snapshot.blocked.items()):
        lines.append(f"  blocked {worker} by {block['by']}: {block['reason']}")
    pending = [d for d in snapshot.decisions if d["state"] == "pending"]
    if pending:
        lines.append(
            f"  {len(pending)} screening decisions wait for review: "
            + ", ".join(f"{d['worker']} {d['heuristic']} -> {d['action']}" for d in pending[:5])
        )
    if events and snapshot.events:
        lines.append("  latest events:")
        for event in snapshot.events[:events]:
            at = event["at"].strftime("%H:%M:%S") if event["at"] else ""
            detail = f" ({event['detail']})" if event["detail"] else ""
            lines.append(f"    {at} {event['kind']} {event['subject']}{detail}")
    return lines


def _duration(seconds: float) -> str:
    minutes, rest = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min" if hours else f"{minutes} min {rest:02d} s"
