"""Prolific (`platform: prolific`; targets ``prolific-local`` and ``prolific``)."""

from harness.providers.prolific.platform import PROLIFIC, ProlificPlatform

__all__ = ["PROLIFIC", "ProlificPlatform"]
