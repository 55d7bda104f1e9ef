"""The model's reading of an ambiguous instruction, by a real coding model (Qwen2.5-Coder-0.5B Q4_K_M) on the CPU.

"Add a docstring to put" on queue.py (a CPython 3.11 module nobody here wrote) could mean the
method ``Queue.put`` or ``_PySimpleQueue.put``. The grammar says so; the model is asked once,
under a JSON schema whose target is an enum of the file's real symbols. Its reply is pinned byte
for byte, and the HTTP exchange is kept for the unit tests that replay it
(``tests/unit/test_intent_model_read.py``). ``CODER_RECORD_REAL=1`` records instead of asserting.
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest
from cli_helpers import make_repo

from coder.backends.runtime.handle import BackendHandle
from coder.backends.runtime.server import ServerInfo
from coder.config import QWEN_0_5B
from coder.edit.run.engine import EditEngine
from coder.testing.record import RecordingProxy

pytestmark = pytest.mark.server

FILES = Path(__file__).parents[2] / "coder" / "bench" / "edits" / "files"
DATA = Path(__file__).parents[1] / "data" / "intent"
RECORD = os.environ.get("CODER_RECORD_REAL") == "1"
INSTRUCTION = "Add a docstring to put"


@pytest.fixture(scope="module")
def real_model() -> Path:
    """The 0.5B model, fetched once."""
    from coder.models.catalog import MODELS
    from coder.models.store import fetch_model

    return fetch_model(MODELS[QWEN_0_5B])


def test_the_model_settles_an_ambiguous_name(server_factory: Callable[..., ServerInfo], real_model: Path,
                                            tmp_path: Path) -> None:
    info = server_factory(model=QWEN_0_5B, ctx=4096)
    root = tmp_path / "repo"
    make_repo(root, {"queue.py": (FILES / "queue.py.txt").read_text()})
    server = {k: v for k, v in dataclasses.asdict(info).items() if k not in ("url", "api_key", "pid", "log_path")}
    meta: dict[str, object] = {"how": "tests/server/test_intent_server.py through RecordingProxy, "
                                      "Qwen2.5-Coder-0.5B Q4_K_M on the CPU", "server": server}
    with RecordingProxy(info.url, info.api_key, meta) as proxy:  # type: ignore[arg-type]
        proxied = dataclasses.replace(info, url=proxy.url, api_key=None, managed=False, pid=None, log_path=None)
        engine = EditEngine(BackendHandle(proxied), root)
        snap, _ = engine.check_target(root / "queue.py")
        spec = engine.read(snap, INSTRUCTION)
        proxy.wait_idle()
    chats = proxy.recording.chats
    assert len(chats) == 1  # asked once
    reply = proxy.recording.reply_text(0)
    expected = DATA / "read_put.json"
    if RECORD:
        proxy.recording.save(expected)
        (DATA / "read_put.reply.txt").write_text(reply)
    assert reply == (DATA / "read_put.reply.txt").read_text()  # byte for byte
    assert spec.read_by == "model" and spec.action == "docstring"
    assert [s.qualname for s in spec.targets] == [json.loads(reply)["target"]]
    assert spec.seconds < 60
