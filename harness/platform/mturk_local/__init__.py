"""A local MTurk-compatible service: the requester API boto3 talks to, plus a worker side.

Run it with `harness mturk-local`; build it in-process with `create_app(settings)`.
"""

from harness.platform.mturk_local.app import create_app
from harness.platform.mturk_local.settings import Settings

__all__ = ["Settings", "create_app"]
