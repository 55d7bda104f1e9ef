"""A hints edit whose annotations name typing/types names the file lacks gets the import (checks.hint_imports).

The reply is real: Qwen2.5-Coder-1.5B's on the H200 (run 16) to "annotate every method of a class" on CPython's
codeop.py, ``-> CodeType`` and ``**kwargs: Any`` with neither imported; it was refused as using names nothing
defines. Only the server is replaced here; the reading, the splice, the checks and the scope guard are real.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_helpers import make_repo

from coder.bench.edits.taskdef import source
from coder.edit.checks.hint_imports import hints_imported
from coder.edit.checks.result import gained_undefined
from coder.edit.intent.read import read_instruction
from coder.edit.run import engine as engine_module
from coder.edit.run.engine import EditEngine
from coder.testing.replies import ScriptedStream, streamed

REPLY = json.loads((Path(__file__).parents[1] / "data" / "edit" / "hint_imports" / "compile_reply.json")
                   .read_text())
CODEOP = source("fresh2/codeop.py")


def test_the_recorded_hints_reply_gets_its_imports_and_is_applied(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    make_repo(tmp_path / "r", {"codeop.py": CODEOP})
    engine = EditEngine(None, tmp_path / "r", ctx=32768)
    request = engine.prepare(tmp_path / "r" / "codeop.py", "add type annotations to all the methods of Compile",
                             mode="region", symbol="Compile")
    monkeypatch.setattr(engine_module, "stream_edit", ScriptedStream([REPLY["reply"]] * 2))
    proposal = streamed(engine, request)
    assert proposal.ok, proposal.refusal
    new = proposal.new
    assert "import warnings\nfrom types import CodeType\nfrom typing import Any\n" in new
    assert "def __call__(self, source: str, filename: str, symbol: str, **kwargs: Any) -> CodeType:" in new
    # __init__(self) had nothing the model could annotate: its class is the target, so it returns None too
    assert "    def __init__(self) -> None:\n" in new
    # the import lines count as part of a hints edit
    assert proposal.scope is not None and not proposal.scope.unexplained


def test_only_names_used_in_annotations_and_known_to_the_standard_library_are_imported() -> None:
    spec = read_instruction("annotate f", {"m.py": "def f(x):\n    return x\n"}, home="m.py")
    old = '"""doc."""\nimport os\n\n\ndef f(x):\n    return x\n'
    hinted = old.replace("def f(x):", "def f(x: Optional[int]) -> Any:")
    got = hints_imported(old, hinted, spec)
    assert got == hinted.replace("import os\n", "import os\nfrom typing import Any, Optional\n")
    assert gained_undefined(old, got) == []
    # a name the standard library does not give (Foo), or one also read as a value: left undefined, refused as before
    assert hints_imported(old, hinted.replace("-> Any", "-> Foo"), spec) == hinted.replace("-> Any", "-> Foo")
    valued = hinted.replace("return x", "return Any")
    assert hints_imported(old, valued, spec) == valued
    # not a hints edit: nothing added
    other = read_instruction("fix f", {"m.py": old}, home="m.py")
    assert hints_imported(old, hinted, other) == hinted


def test_an_init_with_nothing_to_annotate_returns_none_when_it_or_its_class_is_asked() -> None:
    from coder.edit.checks.hints import complete_init_returns

    old = "class C:\n    def __init__(self):\n        self.n = 0\n\n    def m(self, x):\n        return x\n"
    new = old.replace("def m(self, x):", "def m(self, x: int) -> int:")
    for wording in ("annotate C.__init__ and C.m", "add type hints to every method of C"):
        spec = read_instruction(wording, {"m.py": old}, home="m.py")
        assert "def __init__(self) -> None:" in complete_init_returns(old, new, spec), wording
    # a hints edit of m alone leaves __init__ as it is
    spec = read_instruction("annotate C.m", {"m.py": old}, home="m.py")
    assert complete_init_returns(old, new, spec) == new


def test_a_module_spelled_in_an_annotation_is_imported_as_a_module() -> None:
    # ninth set, bdb-hints w0 on the CPU (run 23): "frame a frame object (types.FrameType)" written as `types.FrameType`
    spec = read_instruction("annotate f", {"m.py": "def f(x):\n    return x\n"}, home="m.py")
    old = '"""doc."""\nimport os\n\n\ndef f(frame):\n    return frame\n'
    hinted = old.replace("def f(frame):", "def f(frame: types.FrameType) -> Optional[int]:")
    got = hints_imported(old, hinted, spec)
    assert got == hinted.replace("import os\n", "import os\nimport types\nfrom typing import Optional\n")
    assert gained_undefined(old, got) == []
    valued = hinted.replace("return frame", "return types.FrameType")  # the module read as a value too: left alone
    assert hints_imported(old, valued, spec) == valued
