"""What the task server needs to decide whether a submission counts: the store's page keys,
the platform verifier, and the rechecks of quarantined submissions
(`harness.platform.submissions.rechecks`), one of each per app."""

from __future__ import annotations

from dataclasses import dataclass

from flask import current_app

from harness.platform.submissions.rechecks import Rechecks
from harness.platform.verification import Verifier
from harness.web.tokens import PageKeys


@dataclass
class Trust:
    """The task server's keys, verifier and rechecks (one per app)."""

    keys: PageKeys
    verifier: Verifier
    rechecks: Rechecks

    def close(self) -> None:
        self.rechecks.close()


def trust() -> Trust:
    found = current_app.extensions["harness.trust"]
    assert isinstance(found, Trust)
    return found
