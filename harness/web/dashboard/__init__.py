"""The researcher's dashboard: watch a study live and act on it (`harness dashboard`, or
mounted by `harness serve --dashboard` under ``/dashboard``).

`access` (login, session cookie, CSRF, rate limit), `figures` (pure), `watch` (the cached
snapshot of a study), `views` (pages and the event stream), `actions` (what a person does),
`app` (the dashboard mounted on an app, or on its own).

Its names are loaded on first use, so that importing one of its modules does not import
them all.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from harness.lazy import lazy_names

if TYPE_CHECKING:
    from harness.platform.local_service import is_loopback
    from harness.web.dashboard.access import PASSWORD_VARIABLE, DashboardSettings
    from harness.web.dashboard.app import create_dashboard_app, init_dashboard

_HOMES = {
    "is_loopback": "harness.platform.local_service",
    "PASSWORD_VARIABLE": "harness.web.dashboard.access",
    "DashboardSettings": "harness.web.dashboard.access",
    "create_dashboard_app": "harness.web.dashboard.app",
    "init_dashboard": "harness.web.dashboard.app",
}

__all__ = [
    "DashboardSettings",
    "PASSWORD_VARIABLE",
    "create_dashboard_app",
    "init_dashboard",
    "is_loopback",
]


__getattr__ = lazy_names(__name__, _HOMES)
