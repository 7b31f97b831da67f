"""What the task server checks of every request and adds to every answer, so that its pages
cannot be turned against the workers who open them.

- **Known hosts.** A page posts a completed assignment to ``turkSubmitTo``; only the
  platform's own worker site is accepted there (MTurk's sandbox or production site, or the
  local service's own address on the local target), anything else (``javascript:``, another
  host, a path) is refused. Every redirect target is checked the same way
  (`checked_redirect`).
- **Content security policy.** Pages run only the scripts the server put in them (a nonce per
  answer), fetch nothing from elsewhere, post forms only to the server and the platform, and
  may be framed only by the platform (``frame-ancestors``).
- **Cross-site requests.** A submission whose ``Origin`` (or ``Sec-Fetch-Site``) says it came
  from another site is refused (`cross_site`); the page's signed token
  (`harness.web.tokens`), which another site cannot read, is the second half of that check.
"""

from __future__ import annotations

import re
import secrets
from urllib.parse import urlsplit

from flask import Request, Response

from harness.i18n import _
from harness.platform.contract import WorkerSites
from harness.store.posted import KeptWhere

__all__ = [
    "bad_id",
    "checked_redirect",
    "checked_submit_to",
    "content_security_policy",
    "cross_site",
    "new_nonce",
    "origin_of",
    "platform_origins",
    "secure_headers",
]


def origin_of(url: str) -> str | None:
    """``scheme://host[:port]`` of an http(s) URL, lower-cased; None for anything else (other
    schemes, no host, credentials in the URL, control characters)."""
    if not url or any(ord(c) < 0x21 or c in "\\\x7f" for c in url):
        return None
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return None
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        return None
    if parts.username is not None or parts.password is not None:
        return None
    host = parts.hostname.lower()
    if ":" in host:  # IPv6
        host = f"[{host}]"
    scheme = parts.scheme.lower()
    if port == {"http": 80, "https": 443}[scheme]:
        port = None
    return f"{scheme}://{host}" + (f":{port}" if port is not None else "")


def platform_origins(where: KeptWhere, target: str) -> tuple[str, ...]:
    """The origins of the worker site of the platform a study was launched on (``where``)."""
    from harness.platform.registry import platform_named

    platform = platform_named(where.provider)
    if not isinstance(platform, WorkerSites):
        return ()
    found = (origin_of(site) for site in platform.worker_origins(target, where.endpoint_url))
    return tuple(o for o in found if o is not None)


_ID = re.compile(r"[\x21-\x7e]{1,200}")


def bad_id(**ids: str) -> str | None:
    """What is wrong with the platform ids a request names (printable ASCII, at most 200
    characters, as every platform's ids are and the store keeps), or None."""
    for name, value in ids.items():
        if value and _ID.fullmatch(value) is None:
            return _(
                "The {name} in this link is not a valid id (printable characters, at most "
                "200). Open the task from the platform again."
            ).format(name=name)
    return None


class UnknownHost(ValueError):
    """A URL that points somewhere other than the platform's known hosts."""


def checked_submit_to(value: str, allowed: tuple[str, ...]) -> str:
    """``turkSubmitTo`` as the bare origin to post the completed assignment to ("" when none
    was given); `UnknownHost` unless it is one of ``allowed`` with no path, query or
    fragment."""
    if value == "":
        return ""
    found = origin_of(value)
    parts = urlsplit(value) if found is not None else None
    if (
        found is None
        or parts is None
        or parts.path not in ("", "/")
        or parts.query
        or parts.fragment
        or found not in allowed
    ):
        raise UnknownHost(value)
    return found


def checked_redirect(url: str, allowed: tuple[str, ...]) -> str:
    """``url`` unchanged when it is a path on this server (``/...``, not ``//...``) or an
    absolute http(s) URL on one of ``allowed``; `UnknownHost` otherwise."""
    if url.startswith("/") and not url.startswith("//") and "\\" not in url:
        return url
    found = origin_of(url)
    if found is None or found not in allowed:
        raise UnknownHost(url)
    return url


def cross_site(request: Request) -> bool:
    """Whether ``request`` says it was sent by a page of another site: its ``Origin`` names
    another host than the one it was sent to, or the browser marked it ``cross-site``.
    Requests without these headers (scripts, old browsers) are left to the page token."""
    if request.headers.get("Sec-Fetch-Site", "").lower() == "cross-site":
        return True
    sent_from = request.headers.get("Origin")
    if sent_from is None:
        return False
    if sent_from == "null":  # sandboxed frames, data: URLs, file: pages
        return True
    found = origin_of(sent_from)
    return found is None or urlsplit(found).netloc != request.host.lower()


def new_nonce() -> str:
    """A fresh nonce for one answer's scripts."""
    return secrets.token_urlsafe(18)


def content_security_policy(nonce: str | None, frame_origins: tuple[str, ...]) -> str:
    """The policy of a page: its own scripts (by ``nonce``; none without one) and styles, no
    fetching from elsewhere, forms posted only here and to ``frame_origins`` (the platform),
    framed only here and by the platform."""
    scripts = f"'nonce-{nonce}'" if nonce else "'none'"
    platform = " ".join(frame_origins)
    return "; ".join(
        [
            "default-src 'none'",
            f"script-src {scripts}",
            "style-src 'unsafe-inline'",
            "img-src 'self' data:",
            "connect-src 'self'",
            f"form-action 'self' {platform}".rstrip(),
            f"frame-ancestors 'self' {platform}".rstrip(),
            "base-uri 'none'",
        ]
    )


def secure_headers(
    response: Response, *, nonce: str | None = None, frame_origins: tuple[str, ...] = ()
) -> Response:
    """``response`` with the content security policy and the headers every answer carries
    (no sniffing of types, no referrer with the worker's ids sent elsewhere)."""
    response.headers["Content-Security-Policy"] = content_security_policy(nonce, frame_origins)
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["Referrer-Policy"] = "same-origin"
    return response
