"""Recording real server traffic for the replay test double (:mod:`coder.testing.replay`)."""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping
from http.server import BaseHTTPRequestHandler

from coder.backends.runtime.http import Client
from coder.jsontypes import JSONObject, JSONValue
from coder.testing.replay import Exchange, HttpRecording, LoopbackHTTP, send_body


class RecordingProxy(LoopbackHTTP):
    """Forwards every request to ``upstream`` (a real server) and records the exchanges.

    ``api_key`` authenticates to the upstream; clients of the proxy may send any key. Keys and
    headers are never recorded.
    """

    def __init__(self, upstream: str, api_key: str | None, meta: JSONObject | None = None, *,
                 force_max_tokens: int | None = None) -> None:
        super().__init__()
        self.force_max_tokens = force_max_tokens  # cut replies short on purpose (a real truncated reply)
        self.recording = HttpRecording(meta=dict(meta or {}))
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = Client(upstream.rstrip("/"), headers=headers, timeout=600.0)
        self._lock = threading.Lock()
        self._in_flight = 0

    def wait_idle(self, timeout: float = 60.0) -> None:
        """Wait until every forwarded request has been recorded (a stream may outlive its client)."""
        deadline = time.monotonic() + timeout
        while self._in_flight and time.monotonic() < deadline:
            time.sleep(0.05)

    def close(self) -> None:
        """Stop serving and close the upstream connection."""
        super().close()
        self._client.close()

    def answer(self, handler: BaseHTTPRequestHandler, method: str, body: JSONValue) -> None:
        """Forward one request and record what came back."""
        with self._lock:
            self._in_flight += 1
        try:
            self._forward(handler, method, body)
        finally:
            with self._lock:
                self._in_flight -= 1

    def _forward(self, handler: BaseHTTPRequestHandler, method: str, body: JSONValue) -> None:
        path = handler.path.split("?")[0]
        start = time.monotonic()
        if method == "POST" and isinstance(body, Mapping) and body.get("stream"):
            exchange = Exchange(method, path, body, content_type="text/event-stream")
            sent = dict(body, max_tokens=self.force_max_tokens) if self.force_max_tokens else body
            with self._client.stream(method, path, json=sent) as resp:
                exchange.status = resp.status_code
                handler.send_response(resp.status_code)
                handler.send_header("Content-Type", resp.headers.get("content-type", "text/event-stream"))
                handler.end_headers()
                for line in resp.iter_lines():
                    if not line.startswith("data: "):
                        continue
                    exchange.events.append((time.monotonic() - start, line[len("data: "):]))
                    try:
                        handler.wfile.write(f"{line}\n\n".encode())
                        handler.wfile.flush()
                    except (BrokenPipeError, ConnectionResetError):
                        break  # the client stopped reading (closing fence, escape): so does the recording
        else:
            resp = self._client.request(method, path, json=body) if method == "POST" else self._client.get(path)
            content_type = resp.headers.get("content-type", "application/json").split(";")[0]
            exchange = Exchange(method, path, body, resp.status_code, content_type, resp.text)
            send_body(handler, resp.status_code, content_type, resp.text)
        with self._lock:
            self.recording.exchanges.append(exchange)

