"""The start-up probe's timings become auto mode's first costs, on the real llama-server.

Verification runs one ``/completion`` on a fresh managed server; its timings give the prefill
cost per prompt token and the decode speed. They are saved with the server's record, so
``coder edit`` in another process predicts from them instead of "not measured yet: default".
"""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_helpers import make_repo

from coder.backends.runtime.handle import BackendHandle
from coder.backends.runtime.server import ServerInfo
from coder.edit.run.engine import EditEngine

pytestmark = pytest.mark.server


def test_the_verified_start_measures_prefill_and_decode(demo_server: ServerInfo, tmp_path: Path) -> None:
    assert demo_server.prefill_s_per_token is not None and 0 < demo_server.prefill_s_per_token < 1
    assert demo_server.decode_tps is not None and demo_server.decode_tps > 1
    saved = ServerInfo.from_json(demo_server.to_json())
    assert (saved.prefill_s_per_token, saved.decode_tps) == (demo_server.prefill_s_per_token, demo_server.decode_tps)
    make_repo(tmp_path / "r", {"m.py": "def f(x):\n    return x\n\n\ndef g(y):\n    return y\n"})
    engine = EditEngine(BackendHandle(saved), tmp_path / "r", ctx=4096)
    request = engine.prepare(tmp_path / "r" / "m.py", "Add type hints to `f`.", mode="auto")
    per_token_ms = f"{demo_server.prefill_s_per_token * 1000:.1f} ms [start-up probe]"
    assert per_token_ms in request.mode_reason and "not measured yet" not in request.mode_reason
