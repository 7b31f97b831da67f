"""The study-link platform: a researcher's own participants, by a link (see `platform`)."""

from harness.providers.link.platform import LINK, LinkPlatform

__all__ = ["LINK", "LinkPlatform"]
