"""Phrasings that say an action or its target another way, read as the usual wording is.

Each rule is general (a module's own name before its function, a rename said in the next sentence, a place
said without a verb of moving, every method of a class with one of them named beside it); the wordings here are
written on the suite's files, apart from the tasks the rules were found on (the fresh set's refusals, run 15).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from coder.edit.intent.read import read_instruction

FILES = Path(__file__).resolve().parents[2] / "coder" / "bench" / "edits" / "files"

# (file, [wordings], (action, targets, anchor, reach))
CASES = [
    # the module's name before its own function: shlex.quote is quote, and it is the one target
    ("shlex.py", ["shlex.quote returns '' for an empty string, it should return \"''\"",
                  "quote returns '' for an empty string, it should return \"''\""],
     ("change", ("quote",), None, "symbol")),
    # a rename whose "it" is the subject of the sentence before
    ("shlex.py", ["read_token is a confusing name. call it next_token", "rename read_token to next_token"],
     ("rename", ("shlex.read_token",), None, "symbol")),
    # where a def should be, said without "move"
    ("glob.py", ["escape should go right after iglob", "move escape so it comes right after iglob"],
     ("move", ("escape",), ("after", "iglob"), "symbol")),
    ("glob.py", ["escape belongs directly before glob0", "move escape to just before glob0"],
     ("move", ("escape",), ("before", "glob0"), "symbol")),
    # every method of a class, one of them named for what it takes or returns
    ("netrc.py", ["annotate every method in the NetrcParseError class (__str__ returns a str)",
                  "add type hints to all the methods of NetrcParseError"],
     ("type_hints", ("NetrcParseError",), None, "symbol")),
]


@pytest.mark.parametrize(("rel", "wordings", "want"), CASES, ids=[c[1][0][:40] for c in CASES])
def test_the_other_phrasing_reads_as_the_usual_one(rel: str, wordings: list[str], want: tuple[object, ...]) -> None:
    text = (FILES / f"{rel}.txt").read_text(encoding="utf-8")
    for wording in wordings:
        spec = read_instruction(wording, {rel: text}, home=rel)
        anchor = None if spec.anchor is None else (spec.anchor.where, spec.anchor.symbol.qualname
                                                   if spec.anchor.symbol else None)
        assert (spec.action, tuple(s.qualname for s in spec.targets), anchor, spec.reach) == want, wording


def test_a_dotted_name_of_another_module_names_nothing_here() -> None:
    # only the file's own module name is dropped: os.path.join is no name of shlex.py
    text = (FILES / "shlex.py.txt").read_text(encoding="utf-8")
    spec = read_instruction("use os.path.join in join", {"shlex.py": text}, home="shlex.py")
    assert [s.qualname for s in spec.targets] == ["join"]
