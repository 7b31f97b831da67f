"""The task server: harness serves its own task pages (``external`` hosting) and takes the
answers, validated and stored in one transaction. `create_app` builds the Flask app."""

from harness.platform.submissions.after_submission import AfterSubmission
from harness.web.app import create_app

__all__ = ["AfterSubmission", "create_app"]
