"""Tensor parallelism on vLLM: the pre-flight refusal (GPU count, attention and KV heads), the argv,
the NVLink-multicast defaults of the launch environment, and stopping a multi-process engine.

The heads come from Qwen2.5-Coder-1.5B-Instruct's real config.json (12 attention heads, 2 KV heads:
tests/data/engines/SOURCES.md). No GPU is here: where a test needs GPUs to be counted, nvidia-smi's
answer is given as data (``physical``) or ``coder.hardware.gpus`` is replaced by two lines. The server
is the fake ``vllm`` TEST DOUBLE (coder/testing/fake_vllm), which forks an engine core and one worker
per rank like vLLM's multiprocess executor; process state is read from /proc.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from coder.backends.engines.preflight import (
    MULTICAST_OFF,
    format_report,
    run_preflight,
    tensor_parallel_problem,
    visible_gpus,
)
from coder.backends.engines.vllm import VllmAdapter
from coder.backends.runtime import manager, proc
from coder.config import Profile
from coder.errors import CoderError
from coder.testing import FAKE_VLLM

CONFIG = Path(__file__).parents[1] / "data" / "engines" / "qwen2.5-coder-1.5b-instruct.config.json"
TWO_H200 = ["NVIDIA H200, 143771 MiB, 580.159.04"] * 2
PID_PREFIX = re.compile(r"^\((\w+) pid=(\d+)\)", re.M)


@pytest.fixture
def qwen(tmp_path: Path) -> Path:
    root = tmp_path / "Qwen2.5-Coder-1.5B-Instruct"
    root.mkdir()
    shutil.copy(CONFIG, root / "config.json")
    return root


@pytest.fixture
def two_gpus(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("coder.hardware.gpus", lambda: list(TWO_H200))
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)


# -- pre-flight ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(("tp", "refusal"), [
    (1, None), (2, None), (4, None),  # 4 ranks share the 2 KV heads (each replicated twice)
    (3, "2 KV heads and 3 do not divide one by the other"),
    (5, "12 attention heads do not divide by 5"),
    (8, "12 attention heads do not divide by 8"),
])
def test_heads_of_the_real_config(qwen: Path, tp: int, refusal: str | None) -> None:
    eight = TWO_H200 * 4
    problem = tensor_parallel_problem(tp, qwen, {}, physical=eight)
    if refusal is None:
        assert problem is None
    else:
        assert problem is not None and refusal in problem and "\n" not in problem
        assert problem.startswith(f"tensor_parallel_size = {tp} refused: ")


@pytest.mark.parametrize(("env", "physical", "count"), [
    ({}, [], 0), ({}, TWO_H200, 2), ({"CUDA_VISIBLE_DEVICES": "0"}, TWO_H200, 1),
    ({"CUDA_VISIBLE_DEVICES": ""}, TWO_H200, 0), ({"CUDA_VISIBLE_DEVICES": "-1"}, TWO_H200, 0),
    ({"CUDA_VISIBLE_DEVICES": "1,0"}, TWO_H200, 2), ({"CUDA_VISIBLE_DEVICES": "0,5,1"}, TWO_H200, 1),
    ({"CUDA_VISIBLE_DEVICES": "GPU-8f2c,GPU-77aa"}, TWO_H200, 2), ({"CUDA_VISIBLE_DEVICES": "0,1,2"}, TWO_H200, 2),
])
def test_visible_gpus(env: dict[str, str], physical: list[str], count: int) -> None:
    assert visible_gpus(env, physical)[0] == count


def test_more_ranks_than_gpus_is_refused_in_one_line(qwen: Path) -> None:
    problem = tensor_parallel_problem(2, qwen, {"CUDA_VISIBLE_DEVICES": "1"}, physical=TWO_H200)
    assert problem == "tensor_parallel_size = 2 refused: 2 GPUs asked, 1 of 2 GPU(s) visible (CUDA_VISIBLE_DEVICES='1')"
    none_here = tensor_parallel_problem(2, qwen, {}, physical=[])
    assert none_here is not None and "no NVIDIA GPU on this machine" in none_here
    both = tensor_parallel_problem(3, qwen, {}, physical=TWO_H200)
    assert both is not None and "3 GPUs asked, 2 GPU(s)" in both and "KV heads" in both


def test_a_hub_id_is_checked_for_gpus_only() -> None:
    assert tensor_parallel_problem(3, "Qwen/Qwen2.5-Coder-1.5B-Instruct", {}, physical=TWO_H200 * 2) is None


def test_preflight_report_has_the_tp_line(qwen: Path, two_gpus: None) -> None:
    ok = run_preflight("vllm", qwen, tensor_parallel_size=2, env={})
    assert ok.verdict == "ok", format_report(ok)
    bad = run_preflight("vllm", qwen, tensor_parallel_size=3, env={})
    assert bad.refused
    lines = [line for line in format_report(bad).splitlines() if "[FAIL]" in line]
    assert len(lines) == 1 and "tensor_parallel_size = 3 refused" in lines[0]


# -- argv ---------------------------------------------------------------------------------------------


def tp_profile(model: Path, tp: int, **kw: object) -> Profile:
    base: dict[str, object] = {
        "name": "tp", "engine": "vllm", "model": str(model), "spec_type": "ngram", "k": 5, "binary": "vllm",
        "tensor_parallel_size": tp, "gpu_memory_utilization": 0.4, "ctx": 8192, "extra_args": ["--enforce-eager"],
    }
    return Profile(**{**base, **kw})  # type: ignore[arg-type]


def test_tp2_argv_is_pinned(qwen: Path, two_gpus: None) -> None:
    argv = VllmAdapter().build_argv(tp_profile(qwen, 2), 8000, "sekrit")
    assert argv == [
        "vllm", "serve", str(qwen), "--host", "127.0.0.1", "--port", "8000", "--api-key", "sekrit",
        "--speculative-config", '{"method":"ngram","num_speculative_tokens":5}',
        "--max-model-len", "8192", "--gpu-memory-utilization", "0.4", "--tensor-parallel-size", "2", "--enforce-eager",
    ]


def test_start_refuses_tp3_before_launch(qwen: Path, two_gpus: None, tmp_path: Path,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CODER_HOME", str(tmp_path / "home"))
    with pytest.raises(CoderError) as err:
        manager.start(tp_profile(qwen, 3, name="tp3").with_overrides(binary=str(FAKE_VLLM)), timeout=30)
    assert "\n" not in str(err.value) and "2 KV heads" in str(err.value)
    assert manager.current("tp3") is None and not manager.key_path("tp3").exists()
    assert not list((tmp_path / "home").rglob("tp3.log"))


def test_dry_run_shows_tp_argv_without_gpus(qwen: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("coder.hardware.gpus", lambda: [])
    argv = VllmAdapter().build_argv(tp_profile(qwen, 2), 1, "k", dry_run=True)
    assert argv[argv.index("--tensor-parallel-size") + 1] == "2"
    with pytest.raises(CoderError, match="12 attention heads do not divide by 5"):
        VllmAdapter().build_argv(tp_profile(qwen, 5), 1, "k", dry_run=True)
    with pytest.raises(CoderError, match="no NVIDIA GPU on this machine"):
        VllmAdapter().build_argv(tp_profile(qwen, 2), 1, "k")


# -- the managed multi-process engine -----------------------------------------------------------------


def environ(pid: int) -> dict[str, str]:
    raw = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    return dict(item.decode().split("=", 1) for item in raw if b"=" in item)


def logged_pids(log: Path, want: int, timeout: float = 180.0) -> dict[str, int]:
    """The ``(Name pid=N)`` prefixes of the engine log (vLLM's own), once ``want`` names appeared.

    A loaded CI box can take seconds to schedule the last forked worker: wait for every name (the
    processes are the double's), and fail here, not in the caller's assertion, when one never logs.
    """
    deadline = time.monotonic() + timeout
    while True:
        found = {name: int(pid) for name, pid in PID_PREFIX.findall(log.read_text())}
        if len(found) >= want:
            return found
        if time.monotonic() >= deadline:  # say what the double did and which of its processes live
            ps = subprocess.run(["ps", "-eo", "pid,ppid,pgid,stat,etimes,args"], capture_output=True, text=True)
            doubles = "\n".join(line for line in ps.stdout.splitlines() if "fake_vllm" in line or "PID" in line)
            pytest.fail(f"only {sorted(found)} logged their pid within {timeout:.0f} s\nthe log:\n"
                        f"{log.read_text()[-4000:]}\nprocesses:\n{doubles}")
        time.sleep(0.05)


def alive(pids: dict[str, int], starts: dict[int, int | None]) -> list[str]:
    return sorted(name for name, pid in pids.items() if proc.is_running(pid, starts[pid]))


@pytest.fixture
def managed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, qwen: Path, two_gpus: None) -> Iterator[object]:
    monkeypatch.setenv("CODER_HOME", str(tmp_path / "home"))
    seen: list[int] = []

    def start(tp: int = 2, grace: float = 10.0, **env: str) -> tuple[object, dict[str, int], dict[int, int | None]]:
        for key, value in env.items():
            monkeypatch.setenv(key, value)
        info = manager.start(tp_profile(qwen, tp, binary=str(FAKE_VLLM)), timeout=60)
        pids = logged_pids(Path(info.log_path or ""), 2 + tp)
        seen.extend(pids.values())
        return info, pids, {pid: proc.start_time(pid) for pid in pids.values()}

    yield start
    for pid in seen:  # whatever a failed test left running (these are the double's processes)
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


def test_stop_ends_the_engine_core_and_every_worker(managed) -> None:  # type: ignore[no-untyped-def]
    info, pids, starts = managed(tp=2)
    assert sorted(pids) == ["APIServer", "EngineCore_DP0", "Worker_TP0", "Worker_TP1"]
    assert sorted(proc.group_members(info.pid, info.pid_start)) == sorted(pids.values())
    assert manager.stop("tp") is True
    assert alive(pids, starts) == []
    assert manager.current("tp") is None


def test_stop_ends_children_the_api_server_left_behind(managed) -> None:  # type: ignore[no-untyped-def]
    """The API server crashed (SIGKILL here); its engine core and workers keep the GPUs busy."""
    info, pids, starts = managed(tp=2, FAKE_VLLM_ORPHANS="1")
    os.kill(pids["APIServer"], signal.SIGKILL)
    deadline = time.monotonic() + 10
    while proc.is_running(info.pid, info.pid_start) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert alive(pids, starts) == ["EngineCore_DP0", "Worker_TP0", "Worker_TP1"]
    assert manager.stop("tp") is True
    assert alive(pids, starts) == []


def test_workers_that_ignore_sigterm_get_sigkill(managed) -> None:  # type: ignore[no-untyped-def]
    _info, pids, starts = managed(tp=2, FAKE_VLLM_STUBBORN="1")
    began = time.monotonic()
    assert manager.stop("tp", grace=1.0) is True
    assert alive(pids, starts) == [] and time.monotonic() - began < 10


def test_the_launch_keeps_nvlink_multicast_off(managed) -> None:  # type: ignore[no-untyped-def]
    _info, pids, _ = managed(tp=2)
    env = environ(pids["APIServer"])
    assert {k: env.get(k) for k in MULTICAST_OFF} == MULTICAST_OFF
    manager.stop("tp")


def test_the_users_multicast_setting_is_kept(managed) -> None:  # type: ignore[no-untyped-def]
    _info, pids, _ = managed(tp=2, NCCL_NVLS_ENABLE="1", NVSHMEM_DISABLE_NVLS="1")
    env = environ(pids["APIServer"])
    assert env["NCCL_NVLS_ENABLE"] == "1" and env["NVSHMEM_DISABLE_NVLS"] == "1"
    assert env["TORCH_SYMM_MEM_DISABLE_MULTICAST"] == "1"
    manager.stop("tp")


def test_status_ends_what_a_dead_server_left_behind(managed) -> None:  # type: ignore[no-untyped-def]
    """`coder backend status`/`stop` without a name look the server up with current(): once the API
    server is gone, the record goes, and so do the engine core and workers it left."""
    info, pids, starts = managed(tp=2, FAKE_VLLM_ORPHANS="1")
    os.kill(pids["APIServer"], signal.SIGKILL)
    deadline = time.monotonic() + 10
    while proc.is_running(info.pid, info.pid_start) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert manager.current() is None
    assert alive(pids, starts) == []


def test_a_descendant_that_left_the_session_is_found_and_ended(tmp_path: Path) -> None:
    """A child that called setsid() is in neither the group nor the session: it is found as a descendant."""
    code = ("import os, subprocess, sys, time\n"
            "c = subprocess.Popen([sys.executable, '-c', 'import os, time; os.setsid(); time.sleep(60)'])\n"
            "print(c.pid, flush=True); time.sleep(60)")
    leader = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True, start_new_session=True)
    escaped = 0
    try:
        escaped = int((leader.stdout.readline() if leader.stdout else "0").strip())
        deadline = time.monotonic() + 10
        while Path(f"/proc/{escaped}/stat").read_text().split(")")[-1].split()[3] != str(escaped):
            assert time.monotonic() < deadline, "the child never left the session"
            time.sleep(0.05)
        started = proc.start_time(leader.pid)
        assert set(proc.group_members(leader.pid, started)) == {leader.pid, escaped}
        assert manager._kill_group(leader.pid, 5.0, started) == []
        assert not proc.is_running(escaped, None) and leader.wait(5) is not None
    finally:  # what a failed test left running (both were started here)
        for pid in (leader.pid, escaped):
            with contextlib.suppress(ProcessLookupError):
                if pid > 0:
                    os.kill(pid, signal.SIGKILL)
        leader.wait(5)
