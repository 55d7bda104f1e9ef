"""TEST DOUBLE: a hostile llama.cpp look-alike on 127.0.0.1 (http.server in a thread).

It serves ``/metrics`` with ``llamacpp:`` lines (so coder detects llama.cpp) and a
plausible ``/props``, ``/slots``, ``/tokenize`` and ``/v1/models``, then misbehaves in the
way its ``scenario`` names. A real llama-server cannot be made to send an HTML page, an
empty ``/tokenize`` or an escape-laden reply, which is why this double exists.

Scenarios:
  ``ok``              well-formed answers everywhere; the reply is :data:`REPLY_TEXT`
  ``escapes``         the reply's code carries OSC title/clipboard writes and SGR 8 (hide)
  ``slots_html``      ``/slots`` is a 200 ``text/html`` page (a captive proxy)
  ``tokenize_empty``  ``/tokenize`` answers ``[]``
  ``props_list``      ``/props`` answers ``[]``
  ``models_html``     ``/v1/models`` is a 200 ``text/html`` page
  ``slots_junk``      ``/slots`` answers a JSON list of strings
  ``metrics_html``    ``/metrics`` turns into an HTML page after the first (detection) call
  ``custom``          well-formed answers; the reply is whatever the test sets as ``server.reply``
                      (the whole streamed text, fences included)
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

METRICS = (
    "# HELP llamacpp:prompt_tokens_total Number of prompt tokens processed.\n"
    "# TYPE llamacpp:prompt_tokens_total counter\n"
    "llamacpp:prompt_tokens_total 10\n"
    "llamacpp:tokens_predicted_total 5\n"
    "llamacpp:n_draft_total 0\n"
    "llamacpp:n_draft_accepted_total 0\n"
)
HTML = "<html><body><h1>Welcome to the proxy</h1></body></html>"
ESCAPES = "\x1b]0;pwned\x07\x1b]52;c;ZWNobyBoaQ==\x07\x1b[8m"
REPLY_TEXT = 'def greet(name):\n    return f"hi {name}"\n'


def reply_for(scenario: str) -> str:
    """The code the double's model "writes" in ``scenario``."""
    if scenario == "escapes":
        return f'def greet(name):\n    # {ESCAPES}\n    import os; os.system("id")\n    return f"hi {{name}}"\n'
    return REPLY_TEXT


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def log_message(self, format: str, *args: object) -> None:
        pass

    def _send(self, status: int, body: str, ctype: str) -> None:
        data = body.encode()
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _json(self, value: object) -> None:
        self._send(200, json.dumps(value), "application/json; charset=utf-8")

    def do_GET(self) -> None:
        s = self.server.scenario
        path = self.path.split("?")[0]
        self.server.hits.append(path)
        if path == "/metrics":
            first = self.server.hits.count("/metrics") == 1
            if s == "metrics_html" and not first:
                self._send(200, HTML, "text/html")
            else:
                self._send(200, METRICS, "text/plain; version=0.0.4")
        elif path == "/health":
            self._json({"status": "ok"})
        elif path == "/props":
            self._json([] if s == "props_list" else {"build_info": "b1-hostile", "n_ctx": 4096})
        elif path == "/slots":
            if s == "slots_html":
                self._send(200, HTML, "text/html")
            elif s == "slots_junk":
                self._json(["x", "y"])
            else:
                self._json([{"id": 0, "n_ctx": 4096, "speculative": True, "is_processing": False}])
        elif path == "/v1/models":
            if s == "models_html":
                self._send(200, HTML, "text/html")
            else:
                self._json({"data": [{"id": "hostile"}]})
        else:
            self._send(404, "not found", "text/plain")

    def do_POST(self) -> None:
        s = self.server.scenario
        path = self.path.split("?")[0]
        length = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(length) or b"{}")
        self.server.hits.append(path)
        if path == "/tokenize":
            if s == "tokenize_empty":
                self._json([])
            else:
                self._json({"tokens": list(range(max(1, len(str(body.get("content", ""))) // 4)))})
        elif path == "/v1/chat/completions":
            self._stream_reply(body)
        elif path == "/completion":
            self._json({"content": "x", "timings": {"draft_n": 0, "draft_n_accepted": 0}})
        else:
            self._send(404, "not found", "text/plain")

    def _stream_reply(self, body: dict[str, object]) -> None:
        custom = self.server.scenario == "custom"
        text = self.server.reply if custom else f"```python\n{reply_for(self.server.scenario)}```\n"
        events: list[dict[str, object]] = [{"choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}}]}]
        events += [{"choices": [{"index": 0, "delta": {"content": line}}]} for line in text.splitlines(True)]
        events.append({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
        events.append({"choices": [], "usage": {"prompt_tokens": 50, "completion_tokens": 20, "total_tokens": 70}})
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        for event in events:
            event.update(id="x", object="chat.completion.chunk", created=0, model="hostile")
            self.wfile.write(f"data: {json.dumps(event)}\n\n".encode())
        self.wfile.write(b"data: [DONE]\n\n")
        self.wfile.flush()
        self.close_connection = True


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: object, client_address: object) -> None:
        """A client that hangs up after a bad event is the point of these scenarios: no traceback on stderr."""
        import sys

        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)  # type: ignore[arg-type]

    def __init__(self, scenario: str) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.scenario = scenario
        self.hits: list[str] = []
        self.reply = ""

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


@contextmanager
def hostile_server(scenario: str) -> Iterator[_Server]:
    """Run the double for the ``with`` block; ``.url`` is its address, ``.hits`` the paths asked for."""
    server = _Server(scenario)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
