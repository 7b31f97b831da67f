"""The archives tests' fixtures: the local MTurk service (for the round trip) and a store."""

from tests.platform.conftest import http, mturk

__all__ = ["http", "mturk"]
