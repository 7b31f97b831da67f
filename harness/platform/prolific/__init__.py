"""Prolific (`platform: prolific`; targets ``prolific-local`` and ``prolific``)."""

from harness.platform.prolific.platform import PROLIFIC, ProlificPlatform

__all__ = ["PROLIFIC", "ProlificPlatform"]
