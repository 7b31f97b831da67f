"""How simulated participants reach a study on the local Prolific service
(`Capabilities.crowd_door`): its participant side, as people use Prolific's."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from harness.simulate.places_driver import Door


@dataclass
class ProlificDoor(Door):
    """The local Prolific service's participant side."""

    endpoint: str
    profile: Mapping[str, Any] = field(
        default_factory=lambda: {
            "country": "United States",
            "approval_rate": 99,
            "approvals": 5000,
        }
    )

    def entry(self, http: Any, participant: str) -> str | None:
        base = self.endpoint.rstrip("/")
        listed = http.get(
            f"{base}/participant/studies", params={"participant_id": participant, **self.profile}
        )
        listed.raise_for_status()
        for study in listed.json()["results"]:
            joined = http.post(
                f"{base}/participant/studies/{study['id']}/join",
                data={"participant_id": participant},
            )
            if joined.status_code == 201:
                return str(joined.json()["study_url"])
        return None

    def finish(self, http: Any, participant: str, next_url: str) -> bool:
        done = http.get(next_url, params={"participant_id": participant})
        return bool(done.status_code == 200)


def prolific_door(endpoint: str | None, public_url: str, study: str) -> Door:
    assert endpoint is not None
    return ProlificDoor(endpoint)
