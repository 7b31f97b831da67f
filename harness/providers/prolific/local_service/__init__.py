"""A server imitating Prolific (not a part of harness's client): the parts of Prolific's API v1
harness uses, a participant side and fault switches, with its own SQLite file. For tests and
demos. Run it with `harness prolific-local` (`command`); see docs/platforms.md."""

from harness.providers.prolific.local_service.app import Settings, create_app

__all__ = ["Settings", "create_app"]
