"""coder's one HTTP client: HTTP/1.1 over the standard library's ``http.client``, kept-alive connections.

coder talks to llama-server, vLLM and SGLang, almost always on loopback ``http://``, and needs
little of a general client: JSON requests, streamed answers (server-sent events, chunked),
connect and read time limits, one Bearer header. ``http.client`` is part of every Python
start-up coder makes anyway; httpx with httpcore, h11 and friends was ~60 ms of import (about
90 modules) before ``coder edit``'s first request, and parsing the CA bundle for a client that
never speaks TLS cost 10-50 ms more. Here an ``https://`` client builds its
``ssl.create_default_context()`` at its first connection, one per trust-store setting
(``SSL_CERT_FILE``/``SSL_CERT_DIR`` as they are then) and process; plain-HTTP clients build none.

A :class:`Client` keeps up to ``keepalive`` idle connections and reuses them: one whose server
closed it while idle is noticed before the request goes out (the socket reads as ready), and a
request on a reused connection that the server dropped before the first byte of the answer is
sent again on a new one. A streamed answer cut short (closed before its end) closes its connection,
which is how a server learns to stop generating.

While a command records its timings (``coder edit``: :data:`coder.telemetry.timings.RECORDER`
set when :func:`make_client` builds the client), every round trip is recorded in its endpoint's
phase: a round trip ends when the headers are in, a chat completion's when its stream is closed
(the whole reply is the request); the small body of any other answer is read in the caller's phase.
"""

from __future__ import annotations

import http.client
import json as jsonlib
import os
import select
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import TYPE_CHECKING, NamedTuple
from urllib.parse import urlencode, urlsplit

from coder.backends.runtime.http_response import (
    WIRE_ERRORS,
    ConnectError,
    ConnectTimeout,
    HTTPError,
    HTTPStatusError,
    NetworkError,
    ReadError,
    ReadTimeout,
    RemoteProtocolError,
    Response,
    TimeoutException,
    TransportError,
    WriteError,
    wire_error,
)

if TYPE_CHECKING:
    import ssl

__all__ = ["Client", "ConnectError", "ConnectTimeout", "HTTPError", "HTTPStatusError", "NetworkError", "ReadError",
           "ReadTimeout", "RemoteProtocolError", "Response", "Timeout", "TimeoutException", "TransportError",
           "WriteError", "get", "make_client", "post", "read_capped"]

DEFAULT_KEEPALIVE = 20  # idle connections a client keeps (httpx's default)
_STALE = (http.client.RemoteDisconnected, ConnectionResetError, ConnectionAbortedError, BrokenPipeError)


class Timeout(NamedTuple):
    """Time limits in seconds: ``read`` for each wait for bytes (the headers, then each read of the body),
    ``connect`` for the connection (``read``'s when None)."""

    read: float | None
    connect: float | None = None


_TLS: dict[tuple[str | None, str | None], ssl.SSLContext] = {}
_TLS_LOCK = threading.Lock()


def _tls() -> ssl.SSLContext:
    """The verifying TLS context for the trust store as the environment names it now (built once per setting)."""
    key = (os.environ.get("SSL_CERT_FILE"), os.environ.get("SSL_CERT_DIR"))
    with _TLS_LOCK:
        if key not in _TLS:
            import ssl

            _TLS[key] = ssl.create_default_context()
        return _TLS[key]


def _readable(conn: http.client.HTTPConnection) -> bool:
    """An idle connection's socket has something to read: the server closed it (or sent junk); not reusable."""
    sock = conn.sock
    if sock is None:
        return True
    try:
        if hasattr(select, "poll"):
            poller = select.poll()
            poller.register(sock, select.POLLIN)
            return bool(poller.poll(0))
        return bool(select.select([sock], [], [], 0)[0])
    except (OSError, ValueError):
        return True


class Client:
    """Requests to one server (``base_url``: scheme, host, port and an optional path prefix)."""

    def __init__(self, base_url: str, *, headers: Mapping[str, str] | None = None, timeout: float | Timeout = 10.0,
                 keepalive: int | None = None, timed: bool = False) -> None:
        parts = urlsplit(base_url)
        self.base_url = base_url.rstrip("/")
        self._https = parts.scheme == "https"
        self._host = parts.hostname if parts.scheme in ("http", "https") else None
        try:  # always given: http.client would read an IPv6 literal's last group as the port
            self._port = parts.port or (443 if self._https else 80)
        except ValueError:
            self._host = None
        self._prefix = parts.path.rstrip("/")
        self.headers = {"User-Agent": "coder", "Accept": "*/*", **(headers or {})}
        self.timeout = timeout if isinstance(timeout, Timeout) else Timeout(timeout)
        self._keepalive = DEFAULT_KEEPALIVE if keepalive is None else keepalive
        self._idle: list[http.client.HTTPConnection] = []
        self._lock = threading.Lock()
        self.timed = timed  # made while a command records its timings: its round trips are recorded
        self.is_closed = False

    # ------------------------------------------------------------------ requests

    def request(self, method: str, path: str, *, json: object = None, content: bytes | str | None = None,
                params: Mapping[str, str | int] | None = None, headers: Mapping[str, str] | None = None,
                timeout: float | Timeout | None = None) -> Response:
        """Send a request and read its whole answer."""
        with self.stream(method, path, json=json, content=content, params=params, headers=headers,
                         timeout=timeout) as response:
            response.read()
        return response

    def get(self, path: str, *, params: Mapping[str, str | int] | None = None,
            headers: Mapping[str, str] | None = None, timeout: float | Timeout | None = None) -> Response:
        """GET ``path`` and read the whole answer."""
        return self.request("GET", path, params=params, headers=headers, timeout=timeout)

    def post(self, path: str, *, json: object = None, content: bytes | str | None = None,
             params: Mapping[str, str | int] | None = None, headers: Mapping[str, str] | None = None,
             timeout: float | Timeout | None = None) -> Response:
        """POST ``json`` (encoded) or ``content`` to ``path`` and read the whole answer."""
        return self.request("POST", path, json=json, content=content, params=params, headers=headers,
                            timeout=timeout)

    @contextmanager
    def stream(self, method: str, path: str, *, json: object = None, content: bytes | str | None = None,
               params: Mapping[str, str | int] | None = None, headers: Mapping[str, str] | None = None,
               timeout: float | Timeout | None = None) -> Iterator[Response]:
        """The answer with its headers in and its body unread; leaving the block closes it."""
        response = self.send(method, path, json=json, content=content, params=params, headers=headers,
                             timeout=timeout)
        try:
            yield response
        finally:
            response.close()

    def send(self, method: str, path: str, *, json: object = None, content: bytes | str | None = None,
             params: Mapping[str, str | int] | None = None, headers: Mapping[str, str] | None = None,
             timeout: float | Timeout | None = None) -> Response:
        """Send a request; the answer comes back with its body unread (the caller closes it)."""
        if self.is_closed:
            raise RuntimeError("the HTTP client is closed")
        target = self._target(path, params)
        sent = {name.lower(): (name, value) for name, value in self.headers.items()}
        body: bytes | None = None
        if json is not None:
            body = jsonlib.dumps(json, ensure_ascii=False, separators=(",", ":")).encode()
            sent["content-type"] = ("Content-Type", "application/json")
        elif content is not None:
            body = content.encode() if isinstance(content, str) else content
        sent.update({name.lower(): (name, value) for name, value in (headers or {}).items()})
        limits = self.timeout if timeout is None else timeout if isinstance(timeout, Timeout) else Timeout(timeout)
        trip = _Trip.start(method, target.split("?")[0]) if self.timed else None
        try:
            response = self._exchange(method, target, body, dict(sent.values()), limits)
        except BaseException:
            if trip is not None:
                trip.done()
            raise
        if trip is not None:
            trip.attach(response)
        return response

    def _target(self, path: str, params: Mapping[str, str | int] | None) -> str:
        if path.startswith(("http://", "https://")):
            if not path.startswith(self.base_url + "/") and path != self.base_url:
                raise ValueError(f"{path} is not on {self.base_url}")
            path = path[len(self.base_url):]
        target = self._prefix + (path if path.startswith("/") else "/" + path)
        if params:
            target += ("&" if "?" in target else "?") + urlencode(params)
        return target

    def _exchange(self, method: str, target: str, body: bytes | None, headers: dict[str, str],
                  limits: Timeout) -> Response:
        """One request on a kept-alive connection, or on a new one when the kept one was dropped unanswered."""
        while True:
            conn, reused = self._connection(limits)
            sock = conn.sock  # the response's, also when http.client lets go of it (an answer that closes)
            try:
                conn.request(method, target, body=body, headers=headers)
                raw = conn.getresponse()
            except _STALE as exc:
                conn.close()
                if reused:  # the server closed the idle connection as the request went out: nothing was answered
                    continue
                raise wire_error(exc, reading=True) from None
            except WIRE_ERRORS as exc:
                conn.close()
                raise wire_error(exc, reading=True) from None
            break

        def release(complete: bool) -> None:
            self._release(conn, complete and not raw.will_close)

        return Response(raw.status, headers=raw.getheaders(), raw=raw, sock=sock, on_close=release)

    # ------------------------------------------------------------------ connections

    def _connection(self, limits: Timeout) -> tuple[http.client.HTTPConnection, bool]:
        """A kept-alive connection still open (reused), else a new one connected within ``limits.connect``."""
        if self._host is None:
            raise ConnectError(f"not an http:// or https:// URL: {self.base_url}")
        with self._lock:
            while self._idle:
                kept = self._idle.pop()
                if not _readable(kept):
                    if kept.sock is not None:
                        kept.sock.settimeout(limits.read)
                    return kept, True
                kept.close()
        connect = limits.connect if limits.connect is not None else limits.read
        conn: http.client.HTTPConnection
        if self._https:
            conn = http.client.HTTPSConnection(self._host, self._port, timeout=connect, context=_tls())
        else:
            conn = http.client.HTTPConnection(self._host, self._port, timeout=connect)
        try:
            conn.connect()
        except WIRE_ERRORS as exc:
            conn.close()
            raise wire_error(exc, reading=False) from None
        if conn.sock is not None:
            conn.sock.settimeout(limits.read)
        return conn, False

    def _release(self, conn: http.client.HTTPConnection, reusable: bool) -> None:
        with self._lock:
            if reusable and not self.is_closed and conn.sock is not None and len(self._idle) < self._keepalive:
                self._idle.append(conn)
                return
        conn.close()

    def close(self) -> None:
        """Close the kept-alive connections; the client sends nothing more."""
        with self._lock:
            self.is_closed = True
            idle, self._idle = self._idle, []
        for conn in idle:
            conn.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class _Trip:
    """One round trip in the timings recorder (see the module docstring)."""

    def __init__(self, path: str, end: Callable[[], None]) -> None:
        self.path, self._end = path, end
        self._ended = False

    @classmethod
    def start(cls, method: str, path: str) -> _Trip | None:
        """The round trip to ``path`` begun now, or None when no recorder runs."""
        from coder.telemetry import timings

        rec = timings.RECORDER
        if rec is None:
            return None
        trip = rec.round_trip(method, path)
        entered = rec.enter(trip.charged) if trip.phase != "(thread)" else False
        began = trip.began = timings.clock()

        def end() -> None:
            trip.seconds = timings.clock() - began
            if entered:
                rec.leave(trip.charged)

        return cls(path, end)

    def done(self) -> None:
        """End the round trip (once: a stream may be closed twice)."""
        if not self._ended:
            self._ended = True
            self._end()

    def attach(self, response: Response) -> None:
        """End now (the headers are in), or when ``response`` closes for a chat completion."""
        from coder.telemetry import timings

        if timings.phase_of(self.path) != timings.REQUEST:
            self.done()
            return
        inner = response.on_close

        def closed(complete: bool) -> None:
            try:
                if inner is not None:
                    inner(complete)
            finally:
                self.done()

        response.on_close = closed


def make_client(base_url: str, *, headers: dict[str, str] | None = None, timeout: float = 10.0,
                keepalive: int | None = None) -> Client:
    """A :class:`Client` for ``base_url``; its round trips timed while a command records its timings."""
    from coder.telemetry import timings

    return Client(base_url, headers=headers, timeout=timeout, keepalive=keepalive,
                  timed=timings.RECORDER is not None)


def read_capped(response: Response, limit: int) -> bytes:
    """At most ``limit`` bytes of a streamed ``response``'s body: the rest is never read into memory."""
    out = bytearray()
    while len(out) < limit and (data := response.read1(limit - len(out))):
        out += data
    return bytes(out)


def _once(method: str, url: str, *, json: object = None, content: bytes | str | None = None,
          headers: Mapping[str, str] | None = None, timeout: float | Timeout | None = None) -> Response:
    parts = urlsplit(url)
    origin = f"{parts.scheme}://{parts.netloc}"
    with Client(origin) as client:
        return client.request(method, url[len(origin):] or "/", json=json, content=content, headers=headers,
                              timeout=timeout)


def get(url: str, *, headers: Mapping[str, str] | None = None, timeout: float | Timeout | None = None) -> Response:
    """One GET of a whole URL on a connection of its own (tests, scripts)."""
    return _once("GET", url, headers=headers, timeout=timeout)


def post(url: str, *, json: object = None, content: bytes | str | None = None,
         headers: Mapping[str, str] | None = None, timeout: float | Timeout | None = None) -> Response:
    """One POST of a whole URL on a connection of its own (tests, scripts)."""
    return _once("POST", url, json=json, content=content, headers=headers, timeout=timeout)
