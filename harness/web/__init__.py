"""The task server: harness serves its own task pages (``external`` hosting) and takes the
answers, validated and stored in one transaction. `create_app` builds the Flask app."""

from harness.web.app import AfterSubmission, create_app

__all__ = ["AfterSubmission", "create_app"]
