"""`harness status` says who is blocked and where screening stands; with --watch it refreshes
the dashboard's headline (pace, alpha with its interval, blocks, latest events)."""

from __future__ import annotations

from tests.platform.factories import harness_cli


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
    assert "  latest events:" in out and "assignment.submitted" in out
    assert "(refreshed " in out
