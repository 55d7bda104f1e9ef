"""TEST DOUBLE: an HTTP server on 127.0.0.1 that abuses the transport (sizes and time), not the content.

A real llama-server cannot be made to answer 300 MB, to hold the headers back forever
or to send keep-alive comments and no token, which is why this double exists. Every
scenario applies to every path (``/props``, ``/v1/chat/completions``, ...):

  ``huge``        a 200 JSON answer of ``size`` bytes, no Content-Length, streamed lazily
  ``huge_declared`` the same with a Content-Length saying so
  ``huge_error``  a 500 answer of ``size`` bytes
  ``keepalive``   a 200 event stream that sends ``: keepalive`` every ``interval`` s and no token
  ``trickle``     a 200 event stream that sends one content token every ``interval`` s, forever
  ``flood``       a 200 event stream of long content tokens as fast as the client reads
  ``no_headers``  reads the request and never answers

Streams and silences last ``hold`` seconds, then the connection closes (so a client that
never gives up still returns, and the test can tell it did not give up).

``sent`` counts the body bytes the client accepted (the socket took), so a test can tell
that coder stopped reading instead of holding everything.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

CHUNK = 1 << 20


def _event(text: str) -> bytes:
    body = {"choices": [{"index": 0, "delta": {"content": text}}], "object": "chat.completion.chunk"}
    return f"data: {json.dumps(body)}\n\n".encode()


class _Handler(BaseHTTPRequestHandler):
    server: HostileTransport
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        self._answer()

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self._answer()

    def _write(self, data: bytes) -> None:
        self.wfile.write(data)
        self.wfile.flush()
        self.server.sent += len(data)

    def _answer(self) -> None:
        s = self.server
        try:
            if s.scenario == "no_headers":
                s.stopped.wait(s.hold)
                return
            if s.scenario in ("huge", "huge_declared", "huge_error"):
                self._huge()
            else:
                self._stream()
        except (BrokenPipeError, ConnectionResetError):
            pass  # coder hung up: what these scenarios wait for
        self.close_connection = True

    def _huge(self) -> None:
        s = self.server
        self.send_response(500 if s.scenario == "huge_error" else 200)
        self.send_header("Content-Type", "application/json")
        if s.scenario == "huge_declared":
            self.send_header("Content-Length", str(s.size))
        self.send_header("Connection", "close")
        self.end_headers()
        self._write(b"[")
        block = b"0," * (CHUNK // 2)
        while s.sent < s.size and not s.stopped.is_set():
            self._write(block)

    def _stream(self) -> None:
        s = self.server
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Connection", "close")
        self.end_headers()
        long_token = "x" * 1000
        until = time.monotonic() + s.hold
        while not s.stopped.is_set() and time.monotonic() < until:
            if s.scenario == "keepalive":
                self._write(b": keepalive\n\n")
                s.stopped.wait(s.interval)
            elif s.scenario == "trickle":
                self._write(_event("a"))
                s.stopped.wait(s.interval)
            else:  # flood
                self._write(_event(long_token) * 64)


class HostileTransport(ThreadingHTTPServer):
    """The double's server: ``url`` to point coder at, ``sent`` bytes accepted so far."""

    daemon_threads = True

    def __init__(self, scenario: str, *, size: int = 300 * 2**20, interval: float = 0.2, hold: float = 60.0):
        super().__init__(("127.0.0.1", 0), _Handler)
        self.scenario, self.size, self.interval, self.hold = scenario, size, interval, hold
        self.sent = 0
        self.stopped = threading.Event()

    @property
    def url(self) -> str:
        """The double's base URL."""
        return f"http://127.0.0.1:{self.server_address[1]}"


@contextmanager
def hostile_transport(scenario: str, *, size: int = 300 * 2**20, interval: float = 0.2,
                      hold: float = 60.0) -> Iterator[HostileTransport]:
    """Run the double for the ``with`` block (``size``, ``interval``, ``hold`` tune the scenario)."""
    server = HostileTransport(scenario, size=size, interval=interval, hold=hold)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.stopped.set()
        server.shutdown()
        server.server_close()
