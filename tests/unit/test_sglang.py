"""SGLang adapter: argv (the k+1 unit), and verification against recorded lines and metric text.

No SGLang can run here; the HTTP side uses ``SglangDouble``, an in-test double that serves the
recorded ``sglang:`` exposition text (tests/data/engines/sglang_metrics.txt) and SGLang's routes.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from coder.backends.engines.detect import detect_engine
from coder.backends.engines.sglang import SglangAdapter, num_draft_tokens
from coder.backends.engines.vllm import VllmAdapter
from coder.backends.runtime.server import ServerInfo
from coder.config import Profile
from coder.errors import CoderError

DATA = Path(__file__).parents[1] / "data" / "engines"


def profile(**kw: object) -> Profile:
    base = {"name": "s", "engine": "sglang", "model": "M", "drafter": "D", "spec_type": "dflash", "k": 7}
    base.update(kw)
    return Profile(**base)  # type: ignore[arg-type]


def flag(argv: list[str], name: str) -> str:
    return argv[argv.index(name) + 1]


def test_dflash2_argv_done_when() -> None:
    """--engine sglang ... --spec-type dflash --k 7 -> --speculative-num-draft-tokens 8 (anchor included)."""
    argv = SglangAdapter().build_argv(profile(), 30000, "KEY")
    assert argv[:3] == ["python3", "-m", "sglang.launch_server"]
    assert flag(argv, "--model-path") == "M"
    assert (flag(argv, "--host"), flag(argv, "--port"), flag(argv, "--api-key")) == (
        "127.0.0.1",
        "30000",
        "KEY",
    )
    assert "--enable-metrics" in argv
    assert flag(argv, "--speculative-algorithm") == "DFLASH"
    assert flag(argv, "--speculative-draft-model-path") == "D"
    assert flag(argv, "--speculative-num-draft-tokens") == "8"


@pytest.mark.parametrize("k", [1, 3, 7, 15])
def test_k_unit_is_converted_only_for_sglang(k: int) -> None:
    """The same profile k is vLLM's num_speculative_tokens and SGLang's num-draft-tokens minus one."""
    s_argv = SglangAdapter().build_argv(profile(k=k), 1, "x")
    v_argv = VllmAdapter().build_argv(profile(engine="vllm", k=k), 1, "x")
    vllm_k = json.loads(flag(v_argv, "--speculative-config"))["num_speculative_tokens"]
    assert vllm_k == k
    assert int(flag(s_argv, "--speculative-num-draft-tokens")) == num_draft_tokens(k) == k + 1


def test_eagle3_and_mtp_chain() -> None:
    e3 = SglangAdapter().build_argv(profile(spec_type="eagle3", drafter="E", k=5), 1, "x")
    assert (
        flag(e3, "--speculative-algorithm"),
        flag(e3, "--speculative-num-steps"),
        flag(e3, "--speculative-eagle-topk"),
        flag(e3, "--speculative-num-draft-tokens"),
    ) == ("EAGLE3", "5", "1", "6")
    mtp = SglangAdapter().build_argv(profile(spec_type="mtp", drafter=None, k=3), 1, "x")
    assert flag(mtp, "--speculative-algorithm") == "EAGLE" and "--speculative-draft-model-path" not in mtp


def test_options_binary_and_extra_args() -> None:
    argv = SglangAdapter().build_argv(
        profile(
            binary="/opt/sgl/bin/python",
            max_model_len=65536,
            tensor_parallel_size=2,
            gpu_memory_utilization=0.85,
            extra_args=["--speculative-draft-attention-backend", "fa4"],
        ),
        1,
        "x",
    )
    assert argv[0] == "/opt/sgl/bin/python"
    assert (flag(argv, "--context-length"), flag(argv, "--tp-size"), flag(argv, "--mem-fraction-static")) == (
        "65536",
        "2",
        "0.85",
    )
    assert argv[-2:] == ["--speculative-draft-attention-backend", "fa4"]
    none = SglangAdapter().build_argv(profile(spec_type="none"), 1, "x")
    assert "--speculative-algorithm" not in none


@pytest.mark.parametrize(
    ("kw", "msg"),
    [
        ({"spec_type": "dspark"}, "does not build SGLang flags"),
        ({"drafter": None}, "needs a drafter"),
        ({"k": 0}, "set k"),
        ({"model": None}, "no target model"),
    ],
)
def test_bad_profiles(kw: dict[str, object], msg: str) -> None:
    with pytest.raises(CoderError, match=msg):
        SglangAdapter().build_argv(profile(**kw), 1, "x")


# -- verification ----------------------------------------------------------------------------------------


class SglangDouble:
    """TEST DOUBLE of an SGLang server's HTTP surface: 503 on /health while starting, recorded metrics."""

    def __init__(self, metrics: str, server_info: dict[str, object] | None, api_key: str = "k"):
        self.starting = True
        double = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def reply(self, code: int, body: str) -> None:
                data = body.encode()
                self.send_response(code)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                if self.path.startswith("/health"):
                    self.reply(503 if double.starting else 200, "")
                elif self.path == "/metrics":
                    self.reply(200, metrics)
                elif self.headers.get("Authorization") != f"Bearer {api_key}":
                    self.reply(401, "{}")
                elif self.path in ("/server_info", "/get_server_info") and server_info is not None:
                    self.reply(200, json.dumps(server_info))
                elif self.path == "/v1/models":
                    self.reply(200, json.dumps({"data": [{"id": "M"}]}))
                else:
                    self.reply(404, "{}")

            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("Content-Length", 0)))
                self.reply(200, json.dumps({"choices": [{"message": {"content": "ok"}}]}))

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def double() -> Iterator[SglangDouble]:
    d = SglangDouble(
        (DATA / "sglang_metrics.txt").read_text(), {"internal_states": [{"avg_spec_accept_length": 3.9}]}
    )
    yield d
    d.close()


def info_for(url: str) -> ServerInfo:
    return ServerInfo(url=url, engine="sglang", api_key="k", spec_type="dflash", k=7, model="M", drafter="D")


def test_ready_waits_for_503_to_end(double: SglangDouble) -> None:
    with info_for(double.url).api() as api:
        assert not SglangAdapter().ready(api)
        double.starting = False
        assert SglangAdapter().ready(api)


def test_verified_by_gauge(double: SglangDouble) -> None:
    with info_for(double.url).api() as api:
        verdict = SglangAdapter().verify(
            info_for(double.url), api, (DATA / "sglang_dflash_ok.log").read_text()
        )
    assert verdict.verified, verdict.summary
    assert "sglang:spec_accept_length 4.02" in verdict.summary


def test_verified_by_log_line_when_gauge_absent() -> None:
    d = SglangDouble("", None)
    try:
        with info_for(d.url).api() as api:
            verdict = SglangAdapter().verify(
                info_for(d.url), api, (DATA / "sglang_dflash_ok.log").read_text()
            )
            assert verdict.verified and "log accept len 4.02" in verdict.summary
            unproven = SglangAdapter().verify(info_for(d.url), api, "")
            assert not unproven.verified and unproven.summary.startswith("NOT VERIFIED")
    finally:
        d.close()


def test_accept_length_of_one_not_verified() -> None:
    flat = (DATA / "sglang_metrics.txt").read_text().replace("} 4.02", "} 1.0")
    d = SglangDouble(flat, {"internal_states": [{"avg_spec_accept_length": 1.0}]})
    try:
        with info_for(d.url).api() as api:
            verdict = SglangAdapter().verify(info_for(d.url), api, "")
        assert not verdict.verified and "not above 1" in verdict.summary
    finally:
        d.close()


def test_dense_head_failure_line_not_verified(double: SglangDouble) -> None:
    with info_for(double.url).api() as api:
        verdict = SglangAdapter().verify(
            info_for(double.url), api, (DATA / "sglang_quant_head.log").read_text()
        )
    assert not verdict.verified and "lm_head is quantized" in verdict.summary


def test_detect_sglang_by_metric_names_and_server_info(double: SglangDouble) -> None:
    assert detect_engine(double.url, "k") == "sglang"
    bare = SglangDouble("", {"internal_states": []})
    try:
        assert detect_engine(bare.url, "k") == "sglang"  # no metrics: /server_info decides
    finally:
        bare.close()
