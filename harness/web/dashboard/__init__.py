"""The researcher's dashboard: watch a study live and act on it (`harness dashboard`, or
mounted by `harness serve --dashboard` under ``/dashboard``).

`access` (login, session cookie, CSRF, rate limit), `figures` (pure), `watch` (the cached
snapshot of a study), `views` (pages and the event stream), `actions` (what a person does).
"""

from __future__ import annotations

from harness.platform.local_service import is_loopback
from harness.web.dashboard.access import PASSWORD_VARIABLE, DashboardSettings
from harness.web.dashboard.app import create_dashboard_app
from harness.web.dashboard.views import init_dashboard

__all__ = [
    "PASSWORD_VARIABLE",
    "DashboardSettings",
    "create_dashboard_app",
    "init_dashboard",
    "is_loopback",
]
