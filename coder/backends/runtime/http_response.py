"""The answer side of coder's HTTP client (:mod:`coder.backends.runtime.http`): responses and errors.

A :class:`Response` wraps one ``http.client.HTTPResponse`` and reads only what is asked: the
body of a streamed answer comes a network read at a time (:meth:`Response.iter_bytes`, at most
``chunk_size`` bytes each), the chunked transfer coding undone by ``http.client``. What went wrong
on the wire is one of the exception classes here (every one an :class:`HTTPError`), never a
socket or ``http.client`` error: a caller catches what it can say something useful about.
"""

from __future__ import annotations

import codecs
import http.client
import json
import socket
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

from coder.jsontypes import JSONValue

READ_SIZE = 65536  # the most one network read of a body hands over
WIRE_ERRORS = (OSError, http.client.HTTPException, ValueError)  # what sockets and http.client raise


class HTTPError(Exception):
    """Anything that went wrong talking to a server (the base class of every error here)."""


class TransportError(HTTPError):
    """The exchange failed on the wire: no connection, a timeout, a dropped or garbled answer."""


class TimeoutException(TransportError):
    """A connect or read took longer than its time limit."""


class ConnectTimeout(TimeoutException):
    """No connection within the connect time limit."""


class ReadTimeout(TimeoutException):
    """No byte of the answer within the read time limit."""


class NetworkError(TransportError):
    """The socket failed: refused, reset, unreachable."""


class ConnectError(NetworkError):
    """The connection could not be made (refused, no such host, TLS handshake or certificate refused)."""


class ReadError(NetworkError):
    """Reading the answer failed (the connection was reset)."""


class WriteError(NetworkError):
    """Sending the request failed."""


class RemoteProtocolError(TransportError):
    """The server broke HTTP: closed before or in the middle of its answer, or sent something not HTTP."""


class HTTPStatusError(HTTPError):
    """:meth:`Response.raise_for_status` on a 4xx or 5xx answer; ``response`` is that answer."""

    def __init__(self, message: str, *, response: Response) -> None:
        super().__init__(message)
        self.response = response


def wire_error(exc: BaseException, *, reading: bool) -> HTTPError:
    """The :class:`HTTPError` for a socket or ``http.client`` error (``reading``: once the request was sent)."""
    if isinstance(exc, HTTPError):
        return exc
    text = str(exc) or type(exc).__name__
    if isinstance(exc, TimeoutError):
        return ReadTimeout(text) if reading else ConnectTimeout(text)
    if isinstance(exc, http.client.RemoteDisconnected):
        return RemoteProtocolError("Server disconnected without sending a response.")
    if isinstance(exc, http.client.IncompleteRead):
        return RemoteProtocolError("peer closed connection without sending complete message body")
    if isinstance(exc, http.client.HTTPException):
        return RemoteProtocolError(f"not an HTTP answer ({type(exc).__name__}: {text})")
    if isinstance(exc, OSError):
        return ReadError(text) if reading else ConnectError(text)
    return TransportError(text)


class Headers(Mapping[str, str]):
    """Response headers, by name in any case (a repeated header's values joined with ``, ``)."""

    def __init__(self, items: Iterable[tuple[str, str]] | Mapping[str, str] = ()) -> None:
        self._items: dict[str, str] = {}
        for name, value in items.items() if isinstance(items, Mapping) else items:
            key = name.lower()
            self._items[key] = f"{self._items[key]}, {value}" if key in self._items else value

    def __getitem__(self, name: str) -> str:
        return self._items[name.lower()]

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name.lower() in self._items

    def __iter__(self) -> Iterator[str]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __repr__(self) -> str:
        return f"Headers({self._items!r})"


class Response:
    """One answer: status and headers at once, the body read only as far as asked.

    Built from a live ``http.client`` answer by the client (``raw``), or from bytes already read
    (``content``, or ``json`` to encode) as a test double or a copy of an answer.
    """

    def __init__(self, status_code: int, *, headers: Iterable[tuple[str, str]] | Mapping[str, str] = (),
                 content: bytes | None = None, json: object = None, raw: http.client.HTTPResponse | None = None,
                 sock: socket.socket | None = None, on_close: Callable[[bool], None] | None = None) -> None:
        self.status_code = status_code
        if json is not None and content is None:
            content = _json_bytes(json)
            headers = [("content-type", "application/json"), *(headers.items() if isinstance(headers, Mapping)
                                                                 else headers)]
        self.headers = headers if isinstance(headers, Headers) else Headers(headers)
        self._raw, self._sock = raw, sock
        self._content = content if raw is None else None
        self.on_close = on_close
        self._closed = raw is None
        # the whole body came (an empty one at once): the connection may carry another request
        self._done = raw is None or (not raw.chunked and raw.length == 0)

    @property
    def is_success(self) -> bool:
        """A 2xx answer."""
        return 200 <= self.status_code < 300

    @property
    def is_closed(self) -> bool:
        """Closed: no more of the body can be read."""
        return self._closed

    def raise_for_status(self) -> Response:
        """This answer, or :class:`HTTPStatusError` when it is a 4xx or 5xx one."""
        if self.status_code >= 400:
            kind = "Client error" if self.status_code < 500 else "Server error"
            raise HTTPStatusError(f"{kind} '{self.status_code}' from the server", response=self)
        return self

    def read1(self, size: int = READ_SIZE) -> bytes:
        """At most ``size`` bytes of the body, with at most one network read; ``b""`` at its end."""
        raw = self._raw
        if raw is None or self._done or self._closed or size <= 0:
            return b""
        try:
            data = raw.read1(size)
        except WIRE_ERRORS as exc:
            self.close()
            raise wire_error(exc, reading=True) from None
        if not data:
            if not raw.chunked and raw.length:  # the connection ended before the declared length
                self.close()
                raise RemoteProtocolError("peer closed connection without sending complete message body")
            self._done = True
        elif not raw.chunked and raw.length == 0:
            self._done = True
        return data

    def iter_bytes(self, chunk_size: int = READ_SIZE) -> Iterator[bytes]:
        """The body as it arrives, a network read at a time (the whole of an already-read body at once)."""
        if self._content is not None:
            if self._content:
                yield self._content
            return
        while data := self.read1(chunk_size):
            yield data
        self.close()

    def iter_lines(self) -> Iterator[str]:
        """The body's lines as they arrive, without their ends (``\\n``, ``\\r\\n`` or ``\\r``), UTF-8 decoded."""
        decoder = codecs.getincrementaldecoder("utf-8")("replace")
        pending = ""
        for data in self.iter_bytes():
            text = pending + decoder.decode(data)
            held = text.endswith("\r")  # perhaps the first half of a \r\n: the line ends with the next read
            lines = text[:-1 if held else None].replace("\r\n", "\n").replace("\r", "\n").split("\n")
            pending = lines.pop() + ("\r" if held else "")
            yield from lines
        pending += decoder.decode(b"", final=True)
        if pending:
            yield pending.removesuffix("\r")

    def read(self) -> bytes:
        """The rest of the body (all of it when nothing was read yet), kept as :attr:`content`."""
        if self._content is None:
            self._content = b"".join(self.iter_bytes())
        return self._content

    @property
    def content(self) -> bytes:
        """The whole body (read now if it was not yet)."""
        return self.read()

    @property
    def text(self) -> str:
        """The body decoded: the ``charset`` of its content type, else UTF-8 (undecodable bytes replaced)."""
        charset = "utf-8"
        for param in self.headers.get("content-type", "").split(";")[1:]:
            name, _, value = param.strip().partition("=")
            if name.lower() == "charset" and value:
                charset = value.strip("\"'")
        try:
            return self.content.decode(charset, "replace")
        except LookupError:
            return self.content.decode("utf-8", "replace")

    def json(self) -> JSONValue:
        """The body parsed as JSON (``ValueError`` when it is not)."""
        value: JSONValue = json.loads(self.content)
        return value

    def set_read_timeout(self, seconds: float) -> None:
        """From now on a read of the body waits at most ``seconds`` for a byte (a stream's idle limit)."""
        if self._sock is not None:
            self._sock.settimeout(seconds)

    def close(self) -> None:
        """Stop reading: a body read to its end gives the connection back, one cut short closes it."""
        if self._closed:
            return
        self._closed = True
        if self._raw is not None:
            self._raw.close()
        if self.on_close is not None:
            self.on_close(self._done)

    def __enter__(self) -> Response:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<Response [{self.status_code}]>"


def _json_bytes(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()
