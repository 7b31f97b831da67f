"""Move every Python process of a test run days ahead, for CI's second run of the suite.

With this folder on PYTHONPATH and HARNESS_TEST_DAYS_AHEAD=N, each interpreter that starts
(pytest, its workers, every server and command a test starts) reads a clock N days ahead of
the real one, ticking as usual (time-machine moves the wall clock; the monotonic clock that
timeouts use is left alone). A test that took a calendar date as "now" fails then.
"""

from __future__ import annotations

import os
from datetime import UTC, datetime, timedelta

_days = os.environ.get("HARNESS_TEST_DAYS_AHEAD")
if _days:
    import time_machine

    time_machine.travel(datetime.now(UTC) + timedelta(days=int(_days)), tick=True).start()
