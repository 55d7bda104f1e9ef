"""Process identity of managed servers: pid + kernel start time, whatever the command line says.

Before this, ``manager._alive`` compared the profile's ``binary`` with ``/proc/PID/cmdline``: a
``vllm`` found on PATH runs as ``python3 /…/vllm``, so a live server was declared dead, its state
and key deleted, and ``stop`` said "stopped" while it kept running (the seams issue, defect 1;
the hostile-input issue, item 7). The server here is the fake vLLM TEST DOUBLE (coder/testing), run
through PATH exactly as a user's ``binary = "vllm"`` would be.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from coder.backends.runtime import manager, proc
from coder.config import Profile
from coder.testing import FAKE_VLLM


def _running(pid: int) -> bool:
    return proc.is_running(pid, None)


def test_start_time_tells_a_reused_pid_apart() -> None:
    me = os.getpid()
    started = proc.start_time(me)
    assert started is not None and proc.is_running(me, started)
    assert not proc.is_running(me, started + 1)  # same pid, another process
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    assert not proc.is_running(child.pid, None)  # gone (and reaped)
    assert not proc.is_running(None, None) and not proc.is_running(0, None)


def test_a_vllm_found_on_path_is_managed_not_orphaned(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CODER_HOME", str(tmp_path / "home"))
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    shutil.copy(FAKE_VLLM, bin_dir / "vllm")
    (bin_dir / "vllm").chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    profile = Profile(name="v", engine="vllm", binary="vllm", model="m", spec_type="ngram", k=4)
    info = manager.start(profile, timeout=60)
    assert info.pid is not None and info.pid_start is not None
    cmdline = Path(f"/proc/{info.pid}/cmdline").read_bytes().split(b"\0")
    assert info.argv[0] == "vllm" and b"python" in cmdline[0]  # the old check compared these two
    try:
        again = manager.current("v")
        assert again is not None and again.pid == info.pid  # alive, state and key kept
        assert manager.key_path("v").exists()
    finally:
        assert manager.stop("v") is True
    deadline = time.monotonic() + 10
    while _running(info.pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _running(info.pid), "stop() left the server running"
    assert manager.current("v") is None


@pytest.mark.server
def test_a_wrapper_binary_that_execs_llama_server_is_managed(tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """A ``binary`` wrapper that execs llama-server: after exec the command line names llama-server,
    not the wrapper, and the old check called the live server dead (status and stop said none)."""
    from coder.backends.installed import find_installed
    from coder.config import builtin_profiles

    build = find_installed()
    assert build is not None, "coder's llama-server build is not installed"
    wrapper = tmp_path / "my-llama"
    wrapper.write_text(f'#!/bin/sh\nexec "{build.binary}" "$@"\n')
    wrapper.chmod(0o755)
    monkeypatch.setenv("CODER_HOME", str(tmp_path / "home"))
    profile = builtin_profiles()["demo"].with_overrides(name="wrapped", binary=str(wrapper))
    info = manager.start(profile, verify=False)
    assert info.pid is not None
    try:
        assert Path(f"/proc/{info.pid}/cmdline").read_bytes().startswith(build.binary.encode())
        assert manager.current("wrapped") is not None
    finally:
        assert manager.stop("wrapped") is True
    deadline = time.monotonic() + 15
    while _running(info.pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _running(info.pid)
