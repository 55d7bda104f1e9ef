"""Where coder shows a managed server's log (``coder backend logs``, the failure tail, the TUI's backend
screen), the server's API key never appears: vLLM logs its arguments, the key among them."""

from __future__ import annotations

import contextlib
import os
import signal
from pathlib import Path

import pytest

from coder.backends.runtime.server import ServerInfo
from coder.config import Profile
from coder.testing import FAKE_VLLM

KEY = "sk-live-0123456789abcdef"
VLLM_ARGS = ("(APIServer pid=9435) INFO 12-01 21:46:27 [api_utils.py:273] non-default args: "
             f"{{'model_tag': '/root/vllm/hf', 'port': 35739, 'api_key': ['{KEY}'], 'max_model_len': 8192}}")


def test_log_tail_redacts_the_key_and_shows_control_characters(tmp_path: Path) -> None:
    log = tmp_path / "v.log"
    log.write_text(f"first\n{VLLM_ARGS}\nprompt was \x1b[2Jcleared\n")
    info = ServerInfo(url="http://127.0.0.1:1", engine="vllm", api_key=KEY, log_path=str(log), managed=True)
    tail = info.log_tail(2)
    assert len(tail) == 2 and KEY not in "\n".join(tail)
    assert "'api_key': ['<redacted>']" in tail[0]
    assert "\x1b" not in tail[1] and "cleared" in tail[1]


def test_backend_logs_of_a_managed_vllm_hides_its_key(capsys: pytest.CaptureFixture[str]) -> None:
    from coder.backends.runtime import manager
    from coder.cli.main import main

    name = f"fake-vllm-logs-{os.getpid()}"
    p = Profile(name=name, engine="vllm", model="Qwen/Qwen2.5-Coder-1.5B-Instruct", binary=str(FAKE_VLLM),
                spec_type="ngram", k=5)
    info = manager.start(p)
    try:
        assert info.api_key and len(info.api_key) >= 4
        logged = Path(info.log_path or "").read_text()
        assert f"'api_key': ['{info.api_key}']" in logged  # the engine did log it
        capsys.readouterr()
        assert main(["backend", "logs", name, "-n", "400"]) == 0
        shown = capsys.readouterr().out
        assert "non-default args" in shown and "'api_key': ['<redacted>']" in shown
        assert info.api_key not in shown
    finally:
        manager.stop(name)
        if info.pid:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(info.pid, signal.SIGKILL)
            with contextlib.suppress(ChildProcessError):
                os.waitpid(info.pid, 0)
