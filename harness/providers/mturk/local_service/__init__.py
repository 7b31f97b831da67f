"""A server imitating MTurk (not a part of harness's client): the requester API that boto3
talks to over HTTP, exactly as to Amazon, plus a worker side where simulated or real people
take HITs. For tests and demos; no money, no account.

Run it with `harness mturk-local` (`command`); build it in-process with `create_app(settings)`.
"""

from harness.providers.mturk.local_service.app import create_app
from harness.providers.mturk.local_service.settings import Settings

__all__ = ["Settings", "create_app"]
