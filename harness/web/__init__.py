"""The task server: harness serves its own task pages (``external`` hosting) and takes the
answers, validated and stored in one transaction. `create_app` builds the Flask app.

Its names are loaded on first use, so that importing one of its modules does not import
them all.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

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


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(home), name)
