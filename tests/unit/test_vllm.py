"""vLLM adapter: argv building, verification against the recorded log lines, and the supervision flow
against the fake `vllm` test double (coder/testing/fake_vllm). No real vLLM runs on these machines."""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_preflight import DFLASH2_CONFIG, ckpt

from coder.backends.engines.detect import detect_engine
from coder.backends.engines.vllm import VllmAdapter, per_request_spec_metrics
from coder.backends.runtime.server import ServerInfo
from coder.config import Profile
from coder.errors import CoderError
from coder.testing import FAKE_VLLM

DATA = Path(__file__).parents[1] / "data" / "engines"


def spec_config(argv: list[str]) -> dict[str, object]:
    return json.loads(argv[argv.index("--speculative-config") + 1])


def profile(**kw: object) -> Profile:
    base = {
        "name": "v",
        "engine": "vllm",
        "model": "Qwen/Qwen3.8-27B-FP8",
        "drafter": "z-lab/Qwen3.8-27B-DFlash2",
        "spec_type": "dflash",
        "k": 7,
    }
    base.update(kw)
    return Profile(**base)  # type: ignore[arg-type]


# -- argv ---------------------------------------------------------------------------------------------


def test_dflash2_argv_done_when() -> None:
    """--engine vllm --model M --drafter D --spec-type dflash --k 7 -> the DFlash 2 launch line."""
    p = profile(
        model="M",
        drafter="D",
        max_model_len=131072,
        gpu_memory_utilization=0.8,
        max_num_batched_tokens=16384,
        enable_prefix_caching=True,
    )
    argv = VllmAdapter().build_argv(p, 8123, "KEY")
    assert argv[:3] == ["vllm", "serve", "M"]
    assert argv[argv.index("--host") + 1] == "127.0.0.1"
    assert argv[argv.index("--port") + 1] == "8123"
    assert argv[argv.index("--api-key") + 1] == "KEY"
    assert spec_config(argv) == {"method": "dflash", "model": "D", "num_speculative_tokens": 7}
    # the seeds' constant flags
    joined = shlex.join(argv)
    for flag in (
        "--max-model-len 131072",
        "--gpu-memory-utilization 0.8",
        "--max-num-batched-tokens 16384",
        "--enable-prefix-caching",
    ):
        assert flag in joined
    assert "--tensor-parallel-size" not in argv


@pytest.mark.parametrize(
    ("spec_type", "drafter", "expected"),
    [
        ("draft-dflash", "D", {"method": "dflash", "model": "D", "num_speculative_tokens": 5}),
        ("mtp", None, {"method": "mtp", "num_speculative_tokens": 5}),
        ("eagle3", "E", {"method": "eagle3", "model": "E", "num_speculative_tokens": 5}),
        ("dspark", "S", {"method": "dspark", "model": "S", "num_speculative_tokens": 5}),
        ("ngram", None, {"method": "ngram", "num_speculative_tokens": 5}),
        ("ngram-mod", None, {"method": "ngram", "num_speculative_tokens": 5}),
    ],
)
def test_spec_methods(spec_type: str, drafter: str | None, expected: dict[str, object]) -> None:
    argv = VllmAdapter().build_argv(profile(spec_type=spec_type, drafter=drafter, k=5), 1, "k")
    assert spec_config(argv) == expected


def test_no_speculation_and_extra_args_and_tp() -> None:
    argv = VllmAdapter().build_argv(
        profile(spec_type="none", tensor_parallel_size=4, extra_args=["--enforce-eager"]), 1, "k", dry_run=True
    )  # a dry run: no GPU here to count (test_vllm_tp.py covers the refusal)
    assert "--speculative-config" not in argv
    assert argv[argv.index("--tensor-parallel-size") + 1] == "4"
    assert argv[-1] == "--enforce-eager"


def test_binary_override() -> None:
    assert VllmAdapter().build_argv(profile(binary="/opt/vllm/bin/vllm"), 1, "k")[:2] == [
        "/opt/vllm/bin/vllm",
        "serve",
    ]
    py = VllmAdapter().build_argv(profile(binary="/opt/venv/bin/python3"), 1, "k")
    assert py[:5] == [
        "/opt/venv/bin/python3",
        "-m",
        "vllm.entrypoints.cli.main",
        "serve",
        "Qwen/Qwen3.8-27B-FP8",
    ]


@pytest.mark.parametrize(
    ("kw", "message"),
    [
        ({"model": None}, "no target model"),
        ({"drafter": None}, "needs a drafter"),
        ({"k": None}, "set k"),
        ({"spec_type": "draft-medusa"}, "not supported"),
    ],
)
def test_bad_profiles(kw: dict[str, object], message: str) -> None:
    with pytest.raises(CoderError, match=message):
        VllmAdapter().build_argv(profile(**kw), 1, "k")


# -- verification against recorded lines ---------------------------------------------------------------


class DeadAPI:
    """Stands in for a server that must not be contacted: verification must fail on the log alone."""

    def __getattr__(self, name: str) -> object:
        raise AssertionError(f"verification contacted the server ({name}) despite a failure line")


def info_for(drafter: str | None, k: int = 7) -> ServerInfo:
    return ServerInfo(
        url="http://127.0.0.1:9",
        engine="vllm",
        model="Qwen/Qwen3.8-27B-FP8",
        drafter=drafter,
        spec_type="dflash",
        k=k,
    )


@pytest.mark.parametrize(
    ("log", "needle"),
    [
        ("vllm_quant_head.log", "LM head is quantized"),
        ("vllm_quant_head_seed.log", "LM head is quantized"),
        ("vllm_dflash2_v1_refused.log", "V1 model runner"),
        ("vllm_dflash1_fallback.log", "DFlash 1"),
        ("vllm_no_spec.log", "without a speculator"),
        ("vllm_illegal_memory.log", "#57964"),
    ],
)
def test_each_known_failure_is_not_verified(tmp_path: Path, log: str, needle: str) -> None:
    drafter = ckpt(tmp_path / "d2", DFLASH2_CONFIG, ["x.weight"])
    verdict = VllmAdapter().verify(info_for(str(drafter)), DeadAPI(), (DATA / log).read_text())  # type: ignore[arg-type]
    assert verdict.verified is False
    assert needle in verdict.summary
    assert verdict.summary.startswith("NOT VERIFIED")


def test_banner_k_mismatch_not_verified(tmp_path: Path) -> None:
    verdict = VllmAdapter().verify(
        info_for(None, k=5),
        DeadAPI(),  # type: ignore[arg-type]
        (DATA / "vllm_dflash2_ok.log").read_text(),
    )
    assert not verdict.verified and "k=5" in verdict.summary


# -- the supervision flow against the fake vllm double --------------------------------------------------


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def launch(tmp_path: Path) -> Iterator[object]:
    procs: list[subprocess.Popen[bytes]] = []

    def start(p: Profile, scenario: str = "ok") -> tuple[ServerInfo, subprocess.Popen[bytes], Path]:
        port = free_port()
        argv = VllmAdapter().build_argv(p, port, "sekrit")
        log = tmp_path / f"{scenario}.log"
        env = {**os.environ, "FAKE_VLLM_SCENARIO": scenario}
        with log.open("wb") as out:
            proc = subprocess.Popen([sys.executable, *argv], stdout=out, stderr=subprocess.STDOUT, env=env)
        procs.append(proc)
        info = ServerInfo(
            url=f"http://127.0.0.1:{port}",
            engine="vllm",
            api_key="sekrit",
            managed=True,
            argv=argv,
            log_path=str(log),
            model=p.model,
            drafter=p.drafter,
            spec_type=p.spec_type,
            k=p.k,
        )
        return info, proc, log

    yield start
    for proc in procs:
        proc.terminate()
        proc.wait(timeout=10)


def wait_ready(info: ServerInfo, proc: subprocess.Popen[bytes]) -> bool:
    adapter = VllmAdapter()
    with info.api(timeout=2) as api:
        for _ in range(200):
            if adapter.ready(api):
                return True
            if proc.poll() is not None:
                return False
            time.sleep(0.05)
    raise AssertionError("fake vllm never became ready")


def test_supervision_dflash2_verified(tmp_path: Path, launch) -> None:  # type: ignore[no-untyped-def]
    drafter = ckpt(tmp_path / "Qwen3.8-27B-DFlash2", DFLASH2_CONFIG, ["x.weight"])
    info, proc, log = launch(profile(binary=str(FAKE_VLLM), drafter=str(drafter), ctx=4096))
    with info.api() as api:
        assert api.health_status() is None  # refuses connections while "loading"
    assert wait_ready(info, proc)
    with info.api() as api:
        verdict = VllmAdapter().verify(info, api, log.read_text())
    assert verdict.verified, verdict.summary
    names = {c.name: c for c in verdict.checks}
    assert names["model runner"].ok and names["speculator"].ok and names["banner"].ok
    assert "acceptance length" in names["counters"].detail
    assert detect_engine(info.url, info.api_key) == "vllm"


def test_supervision_stuck_counters_not_verified(tmp_path: Path, launch) -> None:  # type: ignore[no-untyped-def]
    info, proc, log = launch(profile(binary=str(FAKE_VLLM), spec_type="ngram", drafter=None), "stuck-counters")
    assert wait_ready(info, proc)
    with info.api() as api:
        verdict = VllmAdapter().verify(info, api, log.read_text())
    assert not verdict.verified and "drafted nothing" in verdict.summary


@pytest.mark.parametrize(
    ("scenario", "needle"), [("quant-head", "LM head is quantized"), ("v1-refused", "V1 model runner")]
)
def test_supervision_early_exit(tmp_path: Path, launch, scenario: str, needle: str) -> None:  # type: ignore[no-untyped-def]
    drafter = ckpt(tmp_path / "d2", DFLASH2_CONFIG, ["x.weight"])
    info, proc, log = launch(profile(binary=str(FAKE_VLLM), drafter=str(drafter)), scenario)
    assert proc.wait(timeout=30) == 1
    assert not wait_ready(info, proc)
    with info.api() as api:
        verdict = VllmAdapter().verify(info, api, log.read_text())
    assert not verdict.verified and needle in verdict.summary


def test_per_request_metrics_on_final_usage_chunk(tmp_path: Path, launch) -> None:  # type: ignore[no-untyped-def]
    p = profile(
        binary=str(FAKE_VLLM),
        spec_type="ngram",
        drafter=None,
        extra_args=["--per-request-spec-decode-metrics", "summary"],
    )
    info, proc, _ = launch(p)
    assert wait_ready(info, proc)
    body = {
        "model": p.model,
        "messages": [{"role": "user", "content": "hi"}],
        "max_tokens": 40,
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    with info.api() as api:
        resp = api.post("/v1/chat/completions", body)
    chunks = [
        json.loads(line[6:])
        for line in resp.text.splitlines()
        if line.startswith("data: ") and line != "data: [DONE]"
    ]
    found = [m for c in chunks if (m := per_request_spec_metrics(c)) is not None]
    assert len(found) == 1 and chunks[-1]["choices"] == []  # only the final usage chunk carries it
    m = found[0]
    assert m.num_spec_tokens == 7 and m.num_spec_steps > 0
    assert m.mean_acceptance_length == pytest.approx(1 + m.num_accepted_draft_tokens / m.num_spec_steps)


def test_per_request_metrics_documented_shape() -> None:
    chunk = {
        "choices": [],
        "usage": {"completion_tokens": 120},
        "metrics": {
            "speculative_decoding": {
                "mean_acceptance_length": 3.4,
                "draft_acceptance_rate": 0.34,
                "acceptance_histogram": [3, 1, 4],
                "num_spec_steps": 35,
                "num_accepted_draft_tokens": 84,
                "num_draft_tokens": 245,
                "num_spec_tokens": 7,
            }
        },
    }
    m = per_request_spec_metrics(chunk)
    assert m is not None and m.num_spec_steps == 35 and m.acceptance_histogram == [3, 1, 4]
    assert per_request_spec_metrics({"metrics": {"speculative_decoding": None}}) is None  # n>1
    assert per_request_spec_metrics({"choices": [{"delta": {"content": "x"}}]}) is None


def _reap(pid: int | None) -> None:
    """Kill the double's process group if it outlived the test (we started it)."""
    import signal

    if pid is None:
        return
    try:
        os.killpg(pid, signal.SIGKILL)
    except ProcessLookupError:
        return
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, 0)


def _gone(pid: int) -> bool:
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def test_manager_start_verifies_with_fake_vllm(tmp_path: Path) -> None:
    """The lead's manager drives the adapter: launch, wait for /health, verify from log + probe + counters."""
    from coder.backends.runtime import manager

    drafter = ckpt(tmp_path / "Qwen3.8-27B-DFlash2", DFLASH2_CONFIG, ["x.weight"])
    p = profile(name=f"fake-vllm-{os.getpid()}", binary=str(FAKE_VLLM), drafter=str(drafter), ctx=4096)
    info = manager.start(p)
    try:
        assert info.engine == "vllm" and info.verified, info.verdict
        assert "acceptance length" in info.verdict and "DFlash2" in info.verdict
    finally:
        manager.stop(p.name)
        _reap(info.pid)


def test_manager_tracks_and_stops_script_engine(tmp_path: Path) -> None:
    from coder.backends.runtime import manager

    drafter = ckpt(tmp_path / "d2", DFLASH2_CONFIG, ["x.weight"])
    p = profile(name=f"fake-vllm-track-{os.getpid()}", binary=str(FAKE_VLLM), drafter=str(drafter))
    info = manager.start(p)
    try:
        assert manager.current(p.name) is not None
        manager.stop(p.name)
        assert info.pid is not None and _gone(info.pid)
    finally:
        manager.stop(p.name)
        _reap(info.pid)


def test_manager_reports_early_exit_with_log_tail(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from coder.backends.runtime import manager

    monkeypatch.setenv("FAKE_VLLM_SCENARIO", "quant-head")
    drafter = ckpt(tmp_path / "d2", DFLASH2_CONFIG, ["x.weight"])
    p = profile(name=f"fake-vllm-bad-{os.getpid()}", binary=str(FAKE_VLLM), drafter=str(drafter))
    with pytest.raises(CoderError, match="unquantized target LM head"):
        manager.start(p)
    assert manager.current(p.name) is None


def test_hub_drafter_named_dflash2_still_requires_the_dflash2_speculator() -> None:
    """A Hub id cannot be read here; its name is enough to demand the DFlash2 capture line."""
    text = (DATA / "vllm_dflash1_fallback.log").read_text()
    verdict = VllmAdapter().verify(info_for("incoai/Qwen3.8-27B-DFlash2"), DeadAPI(), text)  # type: ignore[arg-type]
    assert not verdict.verified and "DFlash 1" in verdict.summary
