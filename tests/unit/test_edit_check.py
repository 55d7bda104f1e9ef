"""The result check: a proposal's whole new file must parse and gain no undefined name (pyflakes).

Run on CPython's shlex.py (the shipped byte-copy) through the engine's own evaluation, for a
full rewrite and for a region edit, in a real repository; the file stays untouched.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_helpers import make_repo
from spec_of import check_result

from coder.bench.edits.tasks import source
from coder.edit.checks.result import gained_undefined, undefined_names
from coder.edit.run.engine import EditEngine

SHLEX = source("shlex.py")
SPLIT_BODY = "    lex = shlex(s, posix=posix)\n"


@pytest.fixture
def engine(tmp_path: Path) -> EditEngine:
    make_repo(tmp_path / "r", {"shlex.py": SHLEX})
    return EditEngine(None, tmp_path / "r", ctx=32768)


def test_a_full_rewrite_that_drops_a_used_import_is_refused(engine: EditEngine) -> None:
    request = engine.prepare(engine.root / "shlex.py", "Add a docstring to the function `split`.", mode="full")
    new = SHLEX.replace("import os\n", "", 1)
    proposal = engine.evaluate(request, "```python\n" + new + "```\n", finish_reason="stop")
    assert proposal.refusal_code == "undefined"
    assert (proposal.refusal or "").startswith("the edited file uses names nothing defines: os (line ")
    assert (engine.root / "shlex.py").read_text() == SHLEX


def test_a_region_reply_that_calls_a_name_nothing_defines_is_refused(engine: EditEngine) -> None:
    request = engine.prepare(engine.root / "shlex.py", "Make `split` use a fresh lexer.", mode="region",
                             symbol="split")
    region = request.prompt.target.replace(SPLIT_BODY, "    lex = make_lexer(s, posix=posix)\n")
    proposal = engine.evaluate(request, "```python\n" + region + "```\n", finish_reason="stop")
    assert proposal.refusal_code == "undefined" and "make_lexer" in (proposal.refusal or "")
    fine = request.prompt.target.replace(SPLIT_BODY, "    lex = shlex(s, posix=bool(posix))\n")
    assert engine.evaluate(request, "```python\n" + fine + "```\n", finish_reason="stop").ok


def test_names_undefined_before_do_not_count_and_moving_them_is_no_gain() -> None:
    old = "def f():\n    return missing\n\n\ndef g():\n    return 1\n"
    moved = "def g():\n    return 1\n\n\ndef f():\n    return missing\n"
    assert undefined_names(old) == [("missing", 2)]
    assert gained_undefined(old, moved) == [] and check_result("m.py", moved, old=old) is None
    twice = old + "\n\ndef h():\n    return missing\n"
    assert gained_undefined(old, twice) == [("missing", 10)]  # a second use is a new one


def test_a_file_that_no_longer_parses_is_refused_and_one_that_never_did_is_left_alone() -> None:
    broken = check_result("shlex.py", SHLEX.replace("def split(", "def split(("), old=SHLEX)
    assert broken is not None and broken.code == "syntax" and "line " in broken.reason
    assert check_result("m.py", "def (:\n", old="def (\n") is None


def test_the_current_text_is_read_from_the_path_and_other_languages_pass(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text("import os\nprint(os.sep)\n")
    refused = check_result(tmp_path / "m.py", "print(os.sep)\n")
    assert refused is not None and refused.reason == "the edited file uses names nothing defines: os (line 1)"
    assert check_result(tmp_path / "m.js", "this is not python(\n", old="let x = 1;\n") is None


def test_a_module_name_assigned_after_its_read_in_a_def_is_said_as_python_fails_on_it() -> None:
    # held-out quopri-param w1 on the H200 (runs 10 and 11), the retry's reply: `HEX = HEX.lower()` inside quote.
    # HEX is the module's constant; the assignment makes it local to quote, and the read before it fails
    from coder.bench.edits.tasks_heldout import HELDOUT

    task = next(t for t in HELDOUT if t.name == "quopri-param")
    old = task.originals()[task.file]
    reply = ('def quote(c, lower=False):\n    """Quote a single character."""\n'
             "    assert isinstance(c, bytes) and len(c)==1\n    c = ord(c)\n    if lower:\n        HEX = HEX.lower()\n"
             "    return ESCAPE + bytes((HEX[c//16], HEX[c%16]))\n")
    start = old.index("def quote(c):")
    new = old[:start] + reply + old[old.index("\n\n", start) + 1:]
    refused = check_result("quopri.py", new, old=old)
    assert refused is not None and refused.code == "undefined"
    assert refused.reason == ("the edited file reads HEX (line 41) in a function that assigns HEX later: the "
                              "assignment makes HEX local there, so the read raises UnboundLocalError; give the new "
                              "value another name")
