"""coder's vLLM paths against traffic recorded from a REAL vLLM 0.26.0 on an H200 (2026-12-01).

The recordings are in tests/data/engines/real_vllm_0.26.0/ (tests/data/engines/SOURCES.md names the
command and versions). Where coder needs a live HTTP peer, :class:`ReplayVllm` serves the recorded
bytes from a loopback ``http.server``: it is a TEST DOUBLE (no GPU here), and it answers only with
what the real server sent, except the 404 body for a wrong model name, whose message is the one the
real server gave coder (recorded in coder_bench_quick.json).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from coder.backends.engines import logscan
from coder.backends.engines.detect import detect
from coder.backends.engines.vllm import VllmAdapter, _banner_check, _runner_checks
from coder.backends.runtime.handle import chat_client
from coder.backends.runtime.server import ServerAPI, ServerInfo
from coder.errors import CoderError
from coder.telemetry.metrics import parse_metrics
from coder.telemetry.stats import Chunk, Reply
from coder.testing import FAKE_VLLM

REAL = Path(__file__).parents[1] / "data" / "engines" / "real_vllm_0.26.0"
SERVED = "qwen2.5-coder-1.5b"  # --served-model-name of the recorded run


def real(name: str) -> str:
    return (REAL / name).read_text()


def sse_content(raw: str) -> tuple[str, int]:
    """The text a client should assemble from an SSE body, and how many events carried any."""
    parts = []
    for line in raw.splitlines():
        if not line.startswith("data: ") or line == "data: [DONE]":
            continue
        for choice in json.loads(line[len("data: "):])["choices"]:
            if choice["delta"].get("content"):
                parts.append(choice["delta"]["content"])
    return "".join(parts), len(parts)


class ReplayVllm:
    """TEST DOUBLE: a loopback server that replays the recorded vLLM 0.26.0 responses byte for byte.

    ``/metrics`` serves the page recorded before the streamed request on its first call and the one
    recorded after it from then on (the order the real run read them in). Chat bodies it receives
    are kept in ``requests``.
    """

    def __init__(self, metrics: bool = True) -> None:
        self.requests: list[dict[str, object]] = []
        self.metrics_calls = 0
        pages = [(REAL / "vllm_metrics_before.txt").read_bytes(), (REAL / "vllm_metrics.txt").read_bytes()]
        double = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, fmt: str, *args: object) -> None:
                pass

            def send(self, code: int, body: bytes, ctype: str = "application/json") -> None:
                self.send_response(code)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self) -> None:
                if self.path == "/metrics" and metrics:
                    page = pages[min(double.metrics_calls, 1)]
                    double.metrics_calls += 1
                    self.send(200, page, "text/plain; version=0.0.4; charset=utf-8")
                elif self.path in ("/version", "/v1/models"):
                    name = "vllm_version.json" if self.path == "/version" else "vllm_models.json"
                    self.send(200, (REAL / name).read_bytes())
                elif self.path == "/health":
                    self.send(200, b"")
                else:
                    self.send(404, b'{"detail":"Not Found"}')

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
                double.requests.append(body)
                if body.get("model") != SERVED:
                    err = {"message": f"The model `{body.get('model')}` does not exist.",
                           "type": "NotFoundError", "param": None, "code": 404}
                    self.send(404, json.dumps({"error": err}).encode())
                    return
                self.send(200, (REAL / "vllm_stream.sse").read_bytes(), "text/event-stream")

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> ReplayVllm:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def replay() -> Iterator[ReplayVllm]:
    with ReplayVllm() as double:
        yield double


# -- /metrics ------------------------------------------------------------------------------------------


def test_real_metrics_delta_gives_the_acceptance_length() -> None:
    before, after = parse_metrics(real("vllm_metrics_before.txt")), parse_metrics(real("vllm_metrics.txt"))
    assert before.engine == after.engine == "vllm" and before.has_spec_metrics
    assert (before.drafts, before.draft_tokens, before.accepted) == (0, 0, 0)
    delta = after - before
    assert (delta.drafts, delta.draft_tokens, delta.accepted) == (60, 300, 129)
    assert delta.accepted_per_pos == (30, 26, 25, 24, 24)
    assert delta.drafted_per_pos == ()  # vLLM 0.26.0 exports no drafted-per-position counter
    assert delta.acceptance_length == pytest.approx(1 + 129 / 60)
    assert delta.acceptance_rate == pytest.approx(129 / 300)
    assert (after.generated, after.prompt_tokens) == (199, 242)  # the stream's usage chunk says the same
    # the summary the recording script wrote from the same two pages
    counted = json.loads(real("vllm_summary.json"))["spec_counter_delta"]
    assert counted["vllm:spec_decode_num_drafts_total"] == delta.drafts
    assert counted["vllm:spec_decode_num_accepted_tokens_total"] == delta.accepted


def test_real_metrics_agree_with_vllms_own_log_line() -> None:
    """vLLM's periodic SpecDecoding line covers the same request: same counts, same per-position rates."""
    delta = parse_metrics(real("vllm_metrics.txt")) - parse_metrics(real("vllm_metrics_before.txt"))
    (line,) = logscan.vllm_spec_lines(real("vllm_serve.log"))
    assert (line.accepted, line.drafted) == (delta.accepted, delta.draft_tokens) == (129, 300)
    assert line.mean_acceptance_length == pytest.approx(delta.acceptance_length or 0, abs=0.005)  # 3.15
    assert line.per_position == tuple(round(s, 3) for s in delta.survival()) == (0.5, 0.433, 0.417, 0.4, 0.4)
    assert line.draft_acceptance_rate == 43.0


# -- the serve log --------------------------------------------------------------------------------------


def test_real_serve_log_proves_the_ngram_speculator() -> None:
    text = real("vllm_serve.log")
    assert logscan.known_failures("vllm", text) == []  # the V2->V1 fallback WARN is no failure
    spec = logscan.vllm_spec_config(text)
    assert spec is not None and (spec.method, spec.model, spec.num_spec_tokens) == ("ngram", None, 5)
    assert logscan.vllm_version(text) == "0.26.0"
    assert logscan.vllm_v2_fallback(text) == "ngram/ngram_gpu speculative decoding"
    assert not logscan.vllm_v2_runner(text)
    assert _runner_checks(text, None) == []  # no runner requirement for a drafter-less speculator
    banner = _banner_check(text, "ngram", 5)
    assert banner.ok is True and banner.detail == "SpeculativeConfig(method=ngram, num_spec_tokens=5)"
    assert _banner_check(text, "ngram", 7).ok is False  # the check can fail: k differs from the banner


def test_real_serve_log_and_counters_verify(replay: ReplayVllm) -> None:
    """The whole vLLM verify: real log, then the probe moving the (replayed) real counters."""
    info = ServerInfo(url=replay.url, engine="vllm", spec_type="ngram", k=5)
    with ServerAPI(replay.url, None, "vllm") as api:
        verdict = VllmAdapter().verify(info, api, real("vllm_serve.log"))
    assert verdict.verified is True, verdict.summary
    assert "acceptance length 3.15" in verdict.summary
    assert replay.requests[0]["model"] == SERVED  # the probe names the served model


# -- detection ------------------------------------------------------------------------------------------


def test_real_bodies_detect_as_vllm(replay: ReplayVllm) -> None:
    found = detect(replay.url)
    assert (found.engine, found.evidence) == ("vllm", "metric names on /metrics")


def test_real_version_body_detects_without_metrics() -> None:
    with ReplayVllm(metrics=False) as double:
        found = detect(double.url)
    assert (found.engine, found.evidence) == ("vllm", "/version 0.26.0")


# -- the stream and the model name ------------------------------------------------------------------------


def test_real_stream_through_the_chat_client(replay: ReplayVllm) -> None:
    raw = real("vllm_stream.sse")
    text, pieces = sse_content(raw)
    assert text.startswith("```python\ndef g") and text.endswith("```")
    info = ServerInfo(url=replay.url, engine="vllm", served_model=SERVED)
    events = list(chat_client(info, timeout=30).stream([{"role": "user", "content": "x"}], max_tokens=256))
    reply = events[-1]
    assert isinstance(reply, Reply)
    assert reply.text == text
    # one update per network read (a burst of events is one Chunk; its count says how many)
    assert sum(e.count for e in events[:-1] if isinstance(e, Chunk)) == pieces
    stats = reply.stats
    assert (stats.prompt_tokens, stats.completion_tokens, stats.finish_reason) == (242, 199, "stop")
    assert stats.draft_n is None  # vLLM streams no draft counters: acceptance comes from /metrics
    assert replay.requests[-1]["model"] == SERVED and replay.requests[-1]["stream"] is True


def test_attach_reads_the_served_model_and_requests_name_it(replay: ReplayVllm) -> None:
    info = ServerInfo(url=replay.url, engine="vllm")
    with info.api() as api:
        VllmAdapter().check_attached(info, api)
    assert info.served_model == SERVED  # from the real /v1/models body
    assert info.verdict == "spec-decode metrics exported; acceptance proven once counters move"
    assert info.verdict == json.loads(real("coder_attach.json"))["verdict"]  # what coder said on the device
    list(chat_client(info, timeout=30).stream([{"role": "user", "content": "x"}], max_tokens=8))
    assert replay.requests[-1]["model"] == SERVED


def test_default_model_name_is_refused_like_the_real_server(replay: ReplayVllm) -> None:
    """Before the fix coder sent ``default``; the real server's 404 message is in the recorded bench JSON."""
    message = "The model `default` does not exist."
    assert f"backend refused the request (404): {message}" in real("coder_bench_quick.json")
    info = ServerInfo(url=replay.url, engine="vllm")  # served_model unknown: the old behaviour
    with pytest.raises(CoderError, match="backend refused the request \\(404\\): The model `default` does not"):
        list(chat_client(info, timeout=30).stream([{"role": "user", "content": "x"}], max_tokens=8))


# -- the fake vllm TEST DOUBLE answers as the recorded server does where coder relies on it ---------------


def _families(text: str) -> dict[str, tuple[str, str]]:
    """``# TYPE`` and ``# HELP`` of every ``vllm:spec_decode_*`` family on a page."""
    kinds = {ln.split()[2]: ln.split()[3] for ln in text.splitlines() if ln.startswith("# TYPE vllm:spec_decode")}
    helps = {ln.split()[2]: ln.split(" ", 3)[3] for ln in text.splitlines() if ln.startswith("# HELP vllm:spec_decode")}
    return {name: (kind, helps[name]) for name, kind in kinds.items()}


def _label_keys(text: str) -> set[tuple[str, ...]]:
    from prometheus_client.parser import text_string_to_metric_families

    return {(s.name, *sorted(s.labels)) for f in text_string_to_metric_families(text) for s in f.samples
            if s.name.startswith("vllm:spec_decode")}


def test_fake_vllm_matches_the_recording(tmp_path: Path) -> None:
    import socket
    import subprocess
    import sys
    import time

    from coder.backends.runtime import http

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = int(s.getsockname()[1])

    argv = [sys.executable, str(FAKE_VLLM), "serve", "/root/vllm/hf", "--port", str(port),
            "--served-model-name", SERVED,
            "--speculative-config", json.dumps({"method": "ngram", "num_speculative_tokens": 5})]
    with (tmp_path / "log").open("wb") as log:
        proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, env={"FAKE_VLLM_LOAD_DELAY": "0"})
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(200):
            try:
                http.get(url + "/health")
                break
            except http.HTTPError:
                time.sleep(0.05)
        assert [m["id"] for m in http.get(url + "/v1/models").json()["data"]] == [SERVED]
        bad = http.post(url + "/v1/chat/completions", json={"model": "default", "messages": []})
        assert bad.status_code == 404 and bad.json()["error"]["message"] == "The model `default` does not exist."
        ok = http.post(url + "/v1/chat/completions", json={"model": SERVED, "messages": [], "max_tokens": 32})
        assert ok.status_code == 200
        page = http.get(url + "/metrics").text
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    recorded = real("vllm_metrics.txt")
    assert _families(page) == _families(recorded)
    assert _label_keys(page) == _label_keys(recorded)
    assert parse_metrics(page).drafts > 0
