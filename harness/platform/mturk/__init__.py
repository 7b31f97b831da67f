"""MTurk as harness's first platform provider (boto3; local service, sandbox or production)."""

from harness.platform.mturk.client import endpoint_for, make_client
from harness.platform.mturk.provider import MTurkProvider

__all__ = ["MTurkProvider", "endpoint_for", "make_client"]
