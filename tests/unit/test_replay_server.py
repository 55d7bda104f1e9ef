"""scripts/dev/replay_server.py: the split's double sends each request once and replays it (issue 35)."""

from __future__ import annotations

import http.server
import importlib.util
import json
import threading
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

REPO = Path(__file__).resolve().parents[2]
SSE = b'data: {"choices": [{"delta": {"content": "hi"}}]}\n\ndata: [DONE]\n\n'
AUTH: list[str | None] = []  # the Authorization header of each request upstream saw


def _module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("replay_server", REPO / "scripts" / "dev" / "replay_server.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def upstream() -> Iterator[tuple[str, list[str]]]:
    """A stand-in llama-server: a chat stream, a /metrics counter; the paths it was asked, in order."""
    asked: list[str] = []
    AUTH.clear()

    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:
            pass

        def _reply(self, ctype: str, data: bytes) -> None:
            self.send_response(200)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            asked.append(self.path)
            AUTH.append(self.headers.get("Authorization"))
            self._reply("text/plain", b"llamacpp:tokens_predicted_total 100\n")

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers["Content-Length"]))
            asked.append(self.path)
            AUTH.append(self.headers.get("Authorization"))
            self._reply("text/event-stream", SSE)

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}", asked
    httpd.shutdown()
    httpd.server_close()


def _post(url: str, body: dict[str, object]) -> bytes:
    req = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as resp:
        return bytes(resp.read())


def test_a_chat_completion_is_sent_once_then_replayed_and_the_counters_move(
        upstream: tuple[str, list[str]], tmp_path: Path) -> None:
    url, asked = upstream
    double = _module().ReplayServer(url, tmp_path / "replies")
    try:
        body = {"messages": [{"role": "user", "content": "x"}], "stream": True}
        assert _post(f"{double.url}/v1/chat/completions", body) == SSE
        assert _post(f"{double.url}/v1/chat/completions", body) == SSE
        with urllib.request.urlopen(f"{double.url}/metrics", timeout=10) as resp:
            metrics = resp.read().decode()
    finally:
        double.close()
    assert asked == ["/v1/chat/completions", "/metrics"]  # the second reply came from the recording
    assert metrics == "llamacpp:tokens_predicted_total 200\n"  # two replies replayed, 50 each
    assert len(list((tmp_path / "replies").glob("*.req"))) == 1


def test_a_managed_servers_key_is_sent_upstream_by_the_double(upstream: tuple[str, list[str]], tmp_path: Path) -> None:
    """edit_split --profile --replay: the runs attach to the double with no key; the managed server wants one."""
    url, _ = upstream
    double = _module().ReplayServer(url, tmp_path / "replies", api_key="k-123")
    try:
        _post(f"{double.url}/v1/chat/completions", {"messages": [], "stream": True})
        with urllib.request.urlopen(f"{double.url}/metrics", timeout=10):
            pass
    finally:
        double.close()
    assert AUTH == ["Bearer k-123", "Bearer k-123"]
