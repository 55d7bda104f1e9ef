"""A record-and-replay double of a llama-server for timing ``coder edit`` outside its request.

:class:`ReplayServer` sits in front of a real server (``upstream``). A chat completion is answered
from ``cache/<sha256 of the request body>`` when that file exists, else forwarded once and recorded
there (with the request beside it, ``<hash>.req``); every other answer (``/props``, ``/slots``,
``/tokenize``, ``/completion``, ``/metrics``) is forwarded once per path and body and then served
from memory. ``/metrics`` moves ``llamacpp:tokens_predicted_total`` by every replayed reply, as a
real server's counters move when a reply ends, so the client's before/after snapshot does not wait.

Replayed, the request takes milliseconds and the server's own time drops out: what is left of
``coder edit``'s wall time is coder's (``scripts/dev/edit_split.py --replay DIR``). A recorded file is
the server's SSE stream as sent; to time the checks of an accepted reply with a model that loops
(the demo model), replace the reply's text in that file (each ``data:`` line's ``delta.content``).
"""

from __future__ import annotations

import hashlib
import http.server
import re
import threading
import urllib.error
import urllib.request
from pathlib import Path

_PREDICTED = re.compile(r"^(llamacpp:tokens_predicted_total) (\d+)", re.M)
PREDICTED_PER_REPLY = 50  # what the counter moves by per replayed reply: only its moving is read


class ReplayServer:
    """The double on ``127.0.0.1`` (an ephemeral port: :attr:`url`); :meth:`close` stops it."""

    def __init__(self, upstream: str, cache: Path, api_key: str | None = None) -> None:
        self.upstream, self.cache = upstream.rstrip("/"), cache
        self._key = api_key  # a managed server's: sent upstream, so its clients need none (never printed)
        cache.mkdir(parents=True, exist_ok=True)
        self.memo: dict[tuple[str, str, bytes], tuple[int, str, bytes]] = {}
        self.replayed = 0
        self.lock = threading.Lock()
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        """Stop serving."""
        self.httpd.shutdown()
        self.httpd.server_close()

    def forward(self, method: str, path: str, body: bytes | None, headers: dict[str, str]) -> tuple[int, str, bytes]:
        """The upstream's status, content type and body for one request."""
        if self._key is not None:
            headers = {**headers, "Authorization": f"Bearer {self._key}"}
        req = urllib.request.Request(self.upstream + path, data=body, method=method, headers=headers)
        try:
            with urllib.request.urlopen(req, timeout=600) as resp:
                return resp.status, resp.headers.get("Content-Type", ""), resp.read()
        except urllib.error.HTTPError as exc:
            return exc.code, exc.headers.get("Content-Type", ""), exc.read()

    def answer(self, method: str, path: str, body: bytes, headers: dict[str, str]) -> tuple[int, str, bytes]:
        """A chat completion from the cache (recorded on a miss); anything else forwarded once."""
        if path.endswith("/chat/completions"):
            recorded = self.cache / hashlib.sha256(body).hexdigest()
            if not recorded.exists():
                status, _, data = self.forward(method, path, body, headers)
                if status != 200:
                    return status, "application/json", data
                recorded.write_bytes(data)
                recorded.with_name(recorded.name + ".req").write_bytes(body)
            with self.lock:
                self.replayed += 1
            data = recorded.read_bytes()
            return 200, "text/event-stream" if data.startswith(b"data:") else "application/json", data
        key = (method, path, body)
        if key not in self.memo or path.startswith("/health"):
            self.memo[key] = self.forward(method, path, body or None, headers)
        status, ctype, data = self.memo[key]
        if path.startswith("/metrics") and status == 200:
            moved = self.replayed * PREDICTED_PER_REPLY
            data = _PREDICTED.sub(lambda m: f"{m[1]} {int(m[2]) + moved}", data.decode()).encode()
        return status, ctype, data


def _handler(server: ReplayServer) -> type[http.server.BaseHTTPRequestHandler]:
    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        # one write per answer, no Nagle: headers and body in separate small sends stall ~40 ms on
        # the client's delayed ACK, which would be timed as coder's
        wbufsize = 1 << 20
        disable_nagle_algorithm = True

        def log_message(self, format: str, *args: object) -> None:  # quiet: the runs print the split
            pass

        def _serve(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            headers = {k: v for k, v in self.headers.items() if k.lower() in ("content-type", "authorization")}
            status, ctype, data = server.answer(self.command, self.path, body, headers)
            self.send_response(status)
            self.send_header("Content-Type", ctype or "application/octet-stream")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        do_GET = do_POST = _serve

    return Handler
