"""The task server: harness serves its own task pages (``external`` hosting) and takes the
answers, validated and stored in one transaction. `create_app` builds the Flask app.

Its names are loaded on first use, so that importing one of its modules does not import
them all.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from harness.lazy import lazy_names

if TYPE_CHECKING:
    from harness.platform.submissions.after_submission import AfterSubmission
    from harness.web.app import create_app

_HOMES = {
    "AfterSubmission": "harness.platform.submissions.after_submission",
    "create_app": "harness.web.app",
}

__all__ = [
    "AfterSubmission",
    "create_app",
]


__getattr__ = lazy_names(__name__, _HOMES)
