"""Who serves a study's task pages: the spec's ``hosting`` (a closed set, stored by value).

Kept apart from the spec model so a platform (`harness.platform.contract`) names the modes it
runs without importing the spec's validation.
"""

from __future__ import annotations

from enum import StrEnum


class Hosting(StrEnum):
    """``external``: harness serves the pages (ExternalQuestion); ``mturk``: HTMLQuestion."""

    EXTERNAL = "external"
    MTURK = "mturk"
