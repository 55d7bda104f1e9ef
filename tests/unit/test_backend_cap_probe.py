"""The draft-cap probe (llama.cpp adapter): decisions against a stock-behaving test double, and the real build."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import ClassVar

import pytest

from coder.backends.engines.llamacpp import cap_probe_body as probe_body
from coder.backends.engines.llamacpp import cap_probe_proves as interpret
from coder.backends.engines.llamacpp import probe_draft_cap
from coder.backends.engines.registry import adapter_for
from coder.backends.runtime.server import ServerAPI, ServerInfo
from coder.backends.toolchain.draft_cap_patch import REQUEST_FIELD


class StockLlamaServerDouble(BaseHTTPRequestHandler):
    """TEST DOUBLE mimicking a stock llama-server b11434 on /completion: unknown request
    fields are ignored and the one-token completion succeeds (we cannot build a stock binary
    here). ``seen`` records request bodies so the test can check what the probe sent."""

    seen: ClassVar[list[dict[str, object]]] = []

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).seen.append(body)
        if self.path != "/completion":
            self._send(404, {"error": {"code": 404, "message": "File Not Found"}})
            return
        self._send(200, {"content": " b", "tokens_predicted": 1, "stop": True,
                         "timings": {"predicted_n": 1, "draft_n": 0, "draft_n_accepted": 0}})

    def _send(self, status: int, payload: dict[str, object]) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def stock_double() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), StockLlamaServerDouble)
    StockLlamaServerDouble.seen = []
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def test_probe_recognises_stock_build(stock_double: str) -> None:
    with ServerAPI(stock_double, None, "llama.cpp") as api:
        assert probe_draft_cap(api) is False
    (body,) = StockLlamaServerDouble.seen
    assert body[REQUEST_FIELD] == -1 and body["n_predict"] == 1  # cheap, and out of the patch's range


def test_other_engines_are_not_probed(stock_double: str) -> None:
    info = ServerInfo(url=stock_double, engine="vllm", spec_type="draft-eagle3", draft_cap=True)
    with ServerAPI(stock_double, None, "vllm") as api:
        adapter_for("vllm").describe(info, api)
    assert info.draft_cap is False and StockLlamaServerDouble.seen == []


def test_interpret_needs_a_400_that_names_the_field() -> None:
    assert interpret(400, f'{{"error":{{"message":"{REQUEST_FIELD} must be >= 0"}}}}')
    assert not interpret(400, '{"error":{"message":"prompt is missing"}}')
    assert not interpret(200, f'{{"echo":"{REQUEST_FIELD}"}}')
    assert not interpret(401, "Invalid API Key")


@pytest.mark.server
def test_probe_recognises_patched_build(demo_server: ServerInfo) -> None:
    with demo_server.api() as api:
        assert probe_draft_cap(api) is True
        resp = api.post("/completion", probe_body())
    assert resp.status_code == 400 and REQUEST_FIELD in resp.text
