"""`harness status` says who is blocked and where screening stands; with --watch it refreshes
the dashboard's headline (pace, alpha with its interval, blocks, latest events)."""

from __future__ import annotations

import re

import pytest

from tests.platform.factories import harness_cli


@pytest.mark.slow
def test_status_shows_blocks_and_screening_and_watch_adds_alpha_and_events(live):
    live.crowd()
    once = harness_cli("status", "small", "--db", live.db)
    assert once.exit_code == 0, once.output
    assert "  screening: 2 workers blocked; 2 flags raised (decisions applied 2)" in once.output
    watched = harness_cli(
        "status", "small", "--db", live.db, "--watch", "--every", "0.2", "--updates", "2"
    )
    assert watched.exit_code == 0, watched.output
    out = watched.output
    assert out.count("study small on local: running") == 2  # refreshed in place, twice
    assert "  alpha (interval): " in out and "screened set" in out
    assert "by live screening: screening low_variance" in out
    # the newest events, each a time, a kind and its subject: the submissions' or (a recheck
    # settles several at once) the screening decisions and blocks that came after them
    events = out.split("  latest events:\n", 1)[1].splitlines()
    kinds = [line.split()[1] for line in events if re.match(r"    \d\d:\d\d:\d\d ", line)]
    assert kinds and all(re.fullmatch(r"[a-z_]+(\.[a-z_]+)+", kind) for kind in kinds)
    assert {"assignment.submitted", "worker.blocked"} & set(kinds)
    assert "(refreshed " in out
