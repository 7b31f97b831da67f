"""A local Prolific-compatible service (`harness prolific-local`): the parts of Prolific's API
v1 harness uses, a participant side, fault switches; its own SQLite file. See
docs/platforms.md."""

from harness.platform.prolific_local.app import Settings, create_app

__all__ = ["Settings", "create_app"]
