"""Masking secrets out of anything harness prints or logs: database passwords, AWS keys,
API tokens. Imports nothing heavy, so the CLI's one error handler can use it."""

from __future__ import annotations

import logging
import re

MASK = "***"

_URL_PASSWORD = re.compile(
    r"(?P<head>\b[a-z][a-z0-9+.-]*://[^/\s:@]*:)(?P<secret>[^@\s/]+)(?=@)", re.I
)
_AWS_KEY_ID = re.compile(r"\b(?P<head>(?:AKIA|ASIA)[A-Z0-9]{4})(?P<secret>[A-Z0-9]{12})\b")
_NAMED = re.compile(
    r"(?P<head>\b(?:aws_secret_access_key|aws_session_token|secret_access_key|"
    r"secretaccesskey|api[_-]?token|token|password|passwd|authorization)\b[\"']?\s*[:=]\s*"
    r"[\"']?(?:Token\s+|Bearer\s+)?)(?P<secret>[^\s\"',;&]+)",
    re.I,
)
_BEARER = re.compile(r"(?P<head>\b(?:Token|Bearer)\s+)(?P<secret>[A-Za-z0-9._~+/=-]{12,})")


def mask_secrets(text: str) -> str:
    """``text`` with passwords in URLs, AWS access key ids, and named secrets (``password=``,
    ``token:``, ``aws_secret_access_key=``, ``Authorization: Token ...``) replaced by ``***``
    (an AWS key id keeps its first 8 characters, so a person can tell which key it was)."""
    text = _URL_PASSWORD.sub(lambda m: m["head"] + MASK, text)
    text = _AWS_KEY_ID.sub(lambda m: m["head"] + MASK, text)
    text = _NAMED.sub(lambda m: m["head"] + MASK, text)
    return _BEARER.sub(lambda m: m["head"] + MASK, text)


class MaskSecrets(logging.Filter):
    """A logging filter that masks secrets in a record's message (formatted with its args)."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        masked = mask_secrets(message)
        if masked != message:
            record.msg, record.args = masked, None
        return True
