"""A lean HTTP client for the load test's simulated workers (scripts/load_test.py).

It does what `harness.providers.mturk.crowd` and `harness.simulate.places_driver` ask of their
``http`` (``get(url, params=...)``, ``post(url, data=..., headers=...)``, answers with
``status_code``, ``text``, ``json()``, ``headers``, ``raise_for_status()``; a redirect is
answered as it came, never followed) in HTTP/1.1 written and read on a plain socket: no
requests (proxy settings read from the environment, cookie jars, hooks) and no urllib3 (its
connection pool, header dictionaries, response objects and decoders): that per-request work was
most of the crowd's CPU, which shares the machine with the servers it measures. A cookie a
server sets (the task server's one per participant session) is kept by the worker's client and
sent back on every later request, whatever its path. Each request carries what urllib3 sent
(Host, Accept-Encoding: identity, User-Agent, Content-Length for a body) and the caller's
headers; answers are read by Content-Length or chunked, or to the connection's end.

Each worker keeps one kept-alive connection to each server; a request may ask for its
connection to be closed after the answer (``Connection: close``), as the task server's requests
do in the load test. A kept-alive connection the server has closed meanwhile is noticed before
it is used, and a new one is opened. A refused, cut or timed-out connection raises urllib3's
`ProtocolError` (an ``urllib3.exceptions.HTTPError``, what the load test retries on).
"""

from __future__ import annotations

import json
import select
import socket
from collections.abc import Mapping
from typing import Any, BinaryIO, Self
from urllib.parse import urlencode, urlsplit

from urllib3.exceptions import ProtocolError

FORM = "application/x-www-form-urlencoded"
USER_AGENT = "harness-load/1"
LINE = 65536  # the longest status or header line read


class HTTPStatusError(Exception):
    """An answer with a 4xx or 5xx status, raised by `Reply.raise_for_status`."""


class Headers(dict[str, str]):
    """An answer's headers, looked up by name in any case (``headers["Location"]``)."""

    def __getitem__(self, name: str) -> str:
        return super().__getitem__(name.lower())

    def get(self, name: str, default: Any = None) -> Any:  # type: ignore[override]
        return super().get(name.lower(), default)


class Reply:
    """An answer, read whole."""

    def __init__(self, status: int, content: bytes, headers: Headers | None = None) -> None:
        self.status_code = status
        self.content = content
        self.headers = headers if headers is not None else Headers()

    @property
    def text(self) -> str:
        return self.content.decode("utf-8", "replace")

    @property
    def ok(self) -> bool:
        return self.status_code < 400

    def json(self) -> Any:
        return json.loads(self.content)

    def raise_for_status(self) -> None:
        if self.status_code >= 400:
            raise HTTPStatusError(f"HTTP {self.status_code}: {self.text[:200]}")


class _Connection:
    """One open connection to a server: its socket and a buffered reader on it."""

    def __init__(self, host: str, port: int, timeout: float) -> None:
        self.sock = socket.create_connection((host, port), timeout=timeout)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.reader: BinaryIO = self.sock.makefile("rb")

    def stale(self) -> bool:
        """Whether the server closed it (or sent something unasked) since the last answer."""
        poll = select.poll()  # not select.select: it fails on descriptors past 1023
        poll.register(self.sock, select.POLLIN)
        return bool(poll.poll(0))

    def close(self) -> None:
        self.reader.close()
        self.sock.close()


def _read_answer(reader: BinaryIO) -> tuple[int, bytes, bool, Headers]:
    """Status, body, whether the server keeps the connection open, and the headers."""
    status_line = reader.readline(LINE)
    if not status_line:
        raise ProtocolError("the server closed the connection without answering")
    parts = status_line.split(None, 2)
    if len(parts) < 2 or not parts[0].startswith(b"HTTP/"):
        raise ProtocolError(f"not an HTTP status line: {status_line[:80]!r}")
    status = int(parts[1])
    length, chunked, keep = None, False, parts[0] == b"HTTP/1.1"
    headers = Headers()
    while True:
        line = reader.readline(LINE)
        if line in (b"\r\n", b"\n", b""):
            break
        name, _, value = line.partition(b":")
        name = name.strip().lower()
        headers[name.decode("latin-1")] = value.strip().decode("latin-1")
        if name == b"content-length":
            length = int(value)
        elif name == b"transfer-encoding":
            chunked = b"chunked" in value.lower()
        elif name == b"connection":
            keep = value.strip().lower() != b"close"
    if chunked:
        body = bytearray()
        while True:
            size = int(reader.readline(LINE).split(b";", 1)[0], 16)
            if size == 0:
                while reader.readline(LINE) not in (b"\r\n", b"\n", b""):
                    pass  # trailers
                break
            body += reader.read(size)
            reader.readline(LINE)
        return status, bytes(body), keep, headers
    if length is None:
        return status, reader.read(), False, headers  # to the connection's end
    body = reader.read(length)
    if len(body) != length:
        raise ProtocolError(f"the answer was cut: {len(body)} of {length} bytes")
    return status, body, keep, headers


class Browser:
    """One worker's client: one kept-alive connection per server it talks to."""

    def __init__(self, timeout: float = 60.0) -> None:
        self._connections: dict[str, _Connection] = {}
        self._timeout = timeout
        self._cookies: dict[str, str] = {}

    def _connection(self, netloc: str) -> _Connection:
        connection = self._connections.pop(netloc, None)
        if connection is not None and connection.stale():
            connection.close()
            connection = None
        if connection is None:
            host, _, port = netloc.rpartition(":")
            connection = _Connection(host, int(port), self._timeout)
        return connection

    def send(
        self,
        method: str,
        url: str,
        body: bytes | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> Reply:
        """One request; a refused, cut or timed-out connection raises `ProtocolError`."""
        parts = urlsplit(url)
        target = (parts.path or "/") + ("?" + parts.query if parts.query else "")
        lines = [
            f"{method} {target} HTTP/1.1",
            f"Host: {parts.netloc}",
            "Accept-Encoding: identity",
            f"User-Agent: {USER_AGENT}",
        ]
        lines += [f"{name}: {value}" for name, value in (headers or {}).items()]
        if self._cookies:
            lines.append("Cookie: " + "; ".join(f"{k}={v}" for k, v in self._cookies.items()))
        if body is not None:
            lines.append(f"Content-Length: {len(body)}")
        request = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + (body or b"")
        connection = None
        try:
            connection = self._connection(parts.netloc)
            connection.sock.sendall(request)
            status, content, keep, got = _read_answer(connection.reader)
        except (OSError, ValueError) as exc:  # refused, cut, timed out, garbled
            if connection is not None:
                connection.close()
            raise ProtocolError(f"{type(exc).__name__}: {exc}") from exc
        except ProtocolError:
            if connection is not None:
                connection.close()
            raise
        if keep and (headers or {}).get("Connection", "").lower() != "close":
            self._connections[parts.netloc] = connection
        else:
            connection.close()
        cookie = got.get("Set-Cookie")
        if cookie:  # the last one of the answer: the task server sets at most one
            name, _, value = cookie.split(";", 1)[0].partition("=")
            self._cookies[name.strip()] = value.strip()
        return Reply(status, content, got)

    def request(
        self,
        method: str,
        url: str,
        params: Mapping[str, Any] | None = None,
        data: Mapping[str, Any] | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> Reply:
        if params:
            url += ("&" if "?" in url else "?") + urlencode(params)
        body = None
        if data is not None:
            body = urlencode(data).encode()
            headers = {"Content-Type": FORM, **(headers or {})}
        return self.send(method, url, body, headers)

    def get(
        self,
        url: str,
        params: Mapping[str, Any] | None = None,
        allow_redirects: bool = False,
        **kw: Any,
    ) -> Reply:
        """A GET; a redirect is answered as it came (``allow_redirects`` is accepted for
        requests' callers, and never followed: the simulated workers follow them themselves)."""
        return self.request("GET", url, params=params, **kw)

    def post(self, url: str, data: Mapping[str, Any] | None = None, **kw: Any) -> Reply:
        return self.request("POST", url, data=data, **kw)

    def close(self) -> None:
        for connection in self._connections.values():
            connection.close()
        self._connections.clear()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
