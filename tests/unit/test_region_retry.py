"""A single region edit that a code rule refuses is asked once more, naming what went wrong (EditEngine.retry_request).

The observed case: "Extract ... into a new function and call it" came back as a new function nothing
calls, and the region edit was refused with no second try (a plan step would have had one). Rebuilt on
the shipped copy of ``getopt.py``, a line region holding ``getopt``; the replies are in the model's
fenced shape. The retry is the engine's, so the CLI, the TUI and the bench share it (``EditEngine.run``
streams it; tests/server/test_checks_server.py runs it against a real server).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_helpers import make_repo
from spec_helpers import region_reply, symbol

from coder.bench.edits.run import Outcome, _record
from coder.bench.edits.tasks import source
from coder.edit.intent.spec import ChangeSpec
from coder.edit.proposal import EditProposal, EditRequest
from coder.edit.run.engine import EditEngine

GETOPT = source("getopt.py")
HEAD = "def getopt(args, shortopts, longopts = []):"
TO_LIST = ('    if type(longopts) == type(""):\n        longopts = [longopts]\n'
           "    else:\n        longopts = list(longopts)\n")
HELPER = ("def _longopts_list(longopts):\n    if isinstance(longopts, str):\n        return [longopts]\n"
          "    return list(longopts)\n\n\n")
WORDINGS = ("Extract the code in `getopt` that turns `longopts` into a list into a new function `_longopts_list` "
            "and call it.", "pull the longopts-to-list conversion out of getopt into a helper _longopts_list",
            "getopt: factor out turning longopts into a list (new function _longopts_list), use it there")


def refused_then_mended(engine: EditEngine, request: EditRequest, first_body: str, code: str, hint: str,
                        second_body: str) -> tuple[EditProposal, EditRequest, EditProposal]:
    """A first region reply refused with ``code``, the one retry naming why and ``hint``, a second reply accepted."""
    first = engine.evaluate(request, region_reply(request, first_body), finish_reason="stop")
    assert not first.ok and first.refusal_code == code
    again = engine.retry_request(first)
    assert again is not None and again.retry_note == f"(A first reply was refused: {first.refusal}.) {hint}"
    assert again.retry_note in again.messages[-1]["content"] and again.instruction == request.instruction
    second = engine.evaluate(again, region_reply(again, second_body), finish_reason="stop")
    assert second.ok, second.refusal
    return first, again, second


@pytest.mark.parametrize("instruction", WORDINGS)
def test_an_uncalled_extraction_is_asked_once_more_saying_where_to_call_it(instruction: str,
                                                                          tmp_path: Path) -> None:
    make_repo(tmp_path / "r", {"getopt.py": GETOPT})
    engine = EditEngine(None, tmp_path / "r", ctx=32768)
    spec = ChangeSpec(instruction, "extract", targets=(symbol("getopt.py", GETOPT, "getopt"),),
                      new_names=("_longopts_list",))
    target = symbol("getopt.py", GETOPT, "getopt")
    request = engine.prepare(tmp_path / "r" / "getopt.py", instruction, mode="region",
                             lines=f"{target.start}-{target.end}", spec=spec)
    body = request.prompt.target
    assert body.startswith(HEAD) and TO_LIST in body
    called = HELPER + body.replace(TO_LIST, "    longopts = _longopts_list(longopts)\n", 1)
    note = "Put the extracted lines into the new function and call it from getopt in their place."
    _, _, second = refused_then_mended(engine, request, HELPER + body, "extract_uncalled", note, called)
    assert second.new == GETOPT.replace(body, called, 1)


def test_what_is_not_retried(tmp_path: Path) -> None:
    make_repo(tmp_path / "r", {"getopt.py": GETOPT})
    engine = EditEngine(None, tmp_path / "r", ctx=32768)
    target = symbol("getopt.py", GETOPT, "getopt")
    request = engine.prepare(tmp_path / "r" / "getopt.py", WORDINGS[0], mode="region",
                             lines=f"{target.start}-{target.end}")
    body = request.prompt.target
    broken = engine.evaluate(request, region_reply(request, body.replace("):", ")", 1)), finish_reason="stop")
    assert not broken.ok and engine.retry_request(broken) is None  # a syntax error: no rule a retry mends
    full = engine.prepare(tmp_path / "r" / "getopt.py", WORDINGS[0], mode="full")
    uncalled = engine.evaluate(full, region_reply(full, GETOPT.replace(HEAD, HELPER + HEAD, 1)), finish_reason="stop")
    assert uncalled.refusal_code == "extract_uncalled" and engine.retry_request(uncalled) is None  # a whole file


def test_a_region_that_loses_its_final_return_is_asked_once_more_with_what_to_keep(tmp_path: Path) -> None:
    # getopt-default on the H200: the None default was handled, and `return opts, prog_args` was gone
    make_repo(tmp_path / "r", {"getopt.py": GETOPT})
    engine = EditEngine(None, tmp_path / "r", ctx=32768)
    instruction = "gnu_getopt should take longopts=None (None meaning no long options)"
    target = symbol("getopt.py", GETOPT, "gnu_getopt")
    request = engine.prepare(tmp_path / "r" / "getopt.py", instruction, mode="region",
                             lines=f"{target.start}-{target.end}")
    body = request.prompt.target
    fixed = (body.replace("longopts = []):", "longopts = None):", 1)
             .replace("    if isinstance(longopts, str):", "    if longopts is None:\n        longopts = []\n"
                      "    elif isinstance(longopts, str):", 1))
    assert fixed.rstrip().endswith("return opts, prog_args")
    lost = fixed.rstrip()[:-len("return opts, prog_args")].rstrip() + "\n"
    _, again, _ = refused_then_mended(engine, request, lost, "contract", "Keep returning what the function "
                                      "returned and keep using every parameter it takes.", fixed)
    assert "returns None where it returned (opts, prog_args)" in again.retry_note


def test_a_reply_holding_more_than_the_region_is_asked_once_more_for_the_region_alone(tmp_path: Path) -> None:
    # netrc-class-hints on the 2-core CPU: the class region came back as an import, an assignment, a
    # shortened _netrclex and the class; it was refused as not one class, and (before) not asked again
    netrc = source("netrc.py")
    make_repo(tmp_path / "r", {"netrc.py": netrc})
    engine = EditEngine(None, tmp_path / "r", ctx=32768)
    instruction = "Add type hints to every method of the class `NetrcParseError`."
    request = engine.prepare(tmp_path / "r" / "netrc.py", instruction, mode="region", symbol="NetrcParseError")
    body = request.prompt.target
    assert body.startswith("class NetrcParseError(Exception):")
    typed = "def __init__(self, msg: str, filename: str | None = None, lineno: int | None = None) -> None:"
    hinted = (body.replace("def __init__(self, msg, filename=None, lineno=None):", typed, 1)
              .replace("def __str__(self):", "def __str__(self) -> str:", 1))
    more = "import os\n\n__all__ = []\n\n\nclass _netrclex:\n    pass\n\n\n" + hinted
    first, _, second = refused_then_mended(engine, request, more, "not_single_region", "Reply with only the one "
                                           "definition the region holds, nothing before or after it.", hinted)
    assert second.new == netrc.replace(body, hinted, 1)
    second.retried = first.refusal  # as EditEngine.run marks the one retry; the bench's row shows why
    row = Outcome("netrc-class-hints", "netrc.py", "class", "region", "correct", "")
    _record(second, row)
    assert row.retried == first.refusal and row.mode == "region"
