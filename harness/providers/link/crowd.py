"""How simulated participants reach a study by its link (`Capabilities.crowd_door`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, urljoin

from harness.simulate.places_driver import Door


@dataclass
class LinkDoor(Door):
    """The study link: the same URL for everyone, with the participant's id."""

    public_url: str
    study: str

    def entry(self, http: Any, participant: str) -> str | None:
        return f"{self.public_url.rstrip('/')}/p/{quote(self.study)}?participant={participant}"

    def finish(self, http: Any, participant: str, next_url: str) -> bool:
        return bool(http.get(urljoin(self.public_url, next_url)).status_code == 200)


def link_door(endpoint: str | None, public_url: str, study: str) -> Door:
    return LinkDoor(public_url, study)
