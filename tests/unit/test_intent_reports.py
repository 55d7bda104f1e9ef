"""Bug reports and reaches read the same whatever the wording: the def at fault, not the symptom's calls.

Each case is worded the ways different people report a bug (an example call, "Fix f: ...", the
function's name spelled as words, a gerund, a class by an inherited method); none is a wording of
the edit suite. The files are the stdlib modules shipped in coder/bench/edits/files/.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_helpers import make_repo

from coder.edit.intent.describe import describe
from coder.edit.intent.read import read_instruction
from coder.edit.intent.words import ticked_words, value_pairs
from coder.edit.run.engine import EditEngine

FILES = Path(__file__).resolve().parents[2] / "coder" / "bench" / "edits" / "files"


def _text(rel: str) -> str:
    return (FILES / f"{rel}.txt").read_text(encoding="utf-8")


def _targets(rel: str, instruction: str) -> tuple[str, ...]:
    spec = read_instruction(instruction, {rel: _text(rel)}, home=rel)
    assert spec.anchor is None and not spec.ambiguous and not spec.facts.missing, describe(spec)
    return tuple(s.qualname for s in spec.targets)


REPORTS = [
    ("colorsys.py", ["`hsv_to_rgb(0.5, 1.0, 1.0)` returns the wrong colour",
                     "hsv_to_rgb(0.5, 1, 1) should give cyan, not red",
                     "The HSV to RGB conversion gives red for a hue of 0.5",  # the name spelled as words
                     "Fix hsv_to_rgb: a hue of 0.5 comes out red; rgb_to_hsv(0, 1, 1) round-trips fine"],
     ("hsv_to_rgb",)),
    ("wsgiref/util.py", ["request_uri(environ) drops the query string",
                         "The request URI loses its query string",
                         "Fix `request_uri`: `application_uri(env)` is right but the query string is lost",
                         "application_uri(env) is right, but the query string is lost because request_uri "
                         "doesn't keep it"],  # blamed over the example call
     ("request_uri",)),
    ("sched.py", ["Entering two events with the same time and priority raises TypeError",  # a gerund
                  "enter() raises TypeError for two events at the same time, then run() never starts",
                  "scheduler.enter crashes when two events tie; empty() and run() are fine",
                  "after enter() is called twice for one time, the queue property fails"],
     ("scheduler.enter",)),
    ("queue.py", ["LifoQueue.get() returns the oldest item instead of the newest",  # get is Queue's
                  "Fix LifoQueue: get() hands out items in FIFO order",
                  "the lifo queue hands out items oldest first"],
     ("LifoQueue",)),
    ("textwrap.py", ["shorten and dedent both crash on an empty string",
                     "shorten crashes on an empty string, and so does dedent",
                     "shorten crashes on an empty string; dedent too"],
     ("shorten", "dedent")),
]


@pytest.mark.parametrize(("rel", "wordings", "want"), REPORTS, ids=[r[1][0][:40] for r in REPORTS])
def test_a_report_is_about_the_def_at_fault_in_every_wording(rel: str, wordings: list[str],
                                                             want: tuple[str, ...]) -> None:
    for wording in wordings:
        assert _targets(rel, wording) == want, wording


def test_an_order_keeps_every_def_and_its_anchor() -> None:
    """Only reports are narrowed: an instruction that gives an order changes what it names."""
    assert _targets("textwrap.py", "In shorten and dedent, replace the default width 70 with 80") == (
        "shorten", "dedent")
    spec = read_instruction("shorten should come last, put it after dedent", {"t.py": _text("textwrap.py")},
                            home="t.py")
    assert spec.anchor is not None and spec.anchor.symbol is not None and spec.anchor.symbol.name == "dedent"
    # "put 3, 1, 2 then get them" gives no order: the steps of a report
    assert _targets("queue.py", "Fix LifoQueue: put 3, 1, 2 then get three times gives 3, 2, 1 reversed") == (
        "LifoQueue",)


def test_literals_and_example_calls_in_backticks_name_nothing_the_result_must_use() -> None:
    assert ticked_words("Fix `_ishidden`: `b'.git'` is not hidden, so `glob(b'*')` lists it") == (
        "_ishidden", "glob")
    assert ticked_words("with `{'b': ['a']}`, `static_order()` yields only `['a']`; `b` never gets ready") == (
        "static_order",)
    assert ticked_words("`is_hop_by_hop('Connection')` is False") == ("is_hop_by_hop",)
    # an existing def's call is an example; a new def's signature names its parameters
    assert ticked_words("`request_uri(env)` loses the query", lambda name: name == "request_uri") == (
        "request_uri",)
    assert ticked_words("add `_hue(r, g, b)`", lambda name: False) == ("_hue", "r", "g", "b")
    assert ticked_words("add `strict: bool = False`") == ("strict", "bool", "False")


def test_a_stretch_of_statements_is_no_substitution() -> None:
    assert value_pairs("pull out the lines from `rc = ...` to `h = (h/6.0) % 1.0` into a helper") == []
    assert value_pairs("change the default from `None` to `()`") == [("None", "()")]
    assert value_pairs("change width from 70 to 80") == [("70", "80")]


def test_a_new_parameter_is_not_added_to_the_defs_its_effect_mentions() -> None:
    glob = _text("glob.py")
    wordings = [
        "Add a parameter `include_hidden=True` to `_listdir`: when it is false, skip the names `_ishidden` says are "
        "hidden. Pass `include_hidden=include_hidden` at its calls in `_glob1` and `_rlistdir`.",
        "add include_hidden=True as a parameter of _listdir; if it's false, drop the names _ishidden calls hidden. "
        "pass include_hidden=include_hidden where _glob1 and _rlistdir call it",
        "_listdir should skip hidden names unless include_hidden (new parameter, default True); its callers "
        "_glob1 and _rlistdir pass include_hidden=include_hidden",
    ]
    for wording in wordings:
        spec = read_instruction(wording, {"glob.py": glob}, home="glob.py")
        # the callers named ("its calls in _glob1 and _rlistdir") are reached as callers, not given the parameter
        assert (spec.action, [s.qualname for s in spec.targets], spec.reach) == (
            "add_parameter", ["_listdir"], "callers"), wording


RENAMES = ["rename quote to shell_quote everywhere", "Rename the function `quote` to `shell_quote` everywhere",
           "Rename quote to shell_quote across the repo", "rename `quote` to `shell_quote` everywhere in this file"]


def test_everywhere_is_this_file_when_no_other_file_uses_the_name() -> None:
    shlex = _text("shlex.py")
    alone = {"shlex.py": shlex, "other.py": "import os\n\nprint(os.sep)\n"}
    read = [read_instruction(w, alone, home="shlex.py", repository=True) for w in RENAMES]
    assert {describe(s) for s in read} == {"rename quote -> shell_quote"}
    used = {"shlex.py": shlex, "other.py": "from shlex import quote\n"}
    assert read_instruction(RENAMES[0], used, home="shlex.py", repository=True).reach == "everywhere"
    # files that are not the whole repository settle nothing: the reach stays as worded
    assert read_instruction(RENAMES[0], {"shlex.py": shlex}, home="shlex.py").reach == "everywhere"


def test_the_engine_reads_everywhere_against_the_repository(tmp_path: Path) -> None:
    make_repo(tmp_path / "alone", {"shlex.py": _text("shlex.py"), "other.py": "import os\n"})
    make_repo(tmp_path / "used", {"shlex.py": _text("shlex.py"), "other.py": "from shlex import quote\n"})
    for name, reach in (("alone", "file"), ("used", "everywhere")):
        engine = EditEngine(None, tmp_path / name)
        snap, _ = engine.check_target(tmp_path / name / "shlex.py")
        assert engine.read(snap, RENAMES[0]).reach == reach, name


CHAINS = ["filter(['x', 'y'], '[!x]') gives ['x']: the negation is ignored",
          "fnmatch('b', '[!a]') is False though b is not a",
          "Character-class negation is broken, fnmatchcase('b', '[!a]') returns False"]
# named without example values: where the report points, nothing is handed on from it
ALONE = [("fnmatch.py", "the lru_cache on _compile_pattern should hold 1024 patterns, not 32768", "_compile_pattern"),
         ("sched.py", "enter() raises TypeError for two events at the same time", "scheduler.enter")]


@pytest.mark.parametrize("wording", CHAINS)
def test_a_report_on_a_def_that_hands_its_values_on_is_about_the_whole_chain(wording: str) -> None:
    """filter, fnmatch and fnmatchcase only pass the pattern on; translate reads it: none is left out."""
    got = _targets("fnmatch.py", wording)
    assert {"_compile_pattern", "translate"} <= set(got) and got[0] in ("filter", "fnmatch", "fnmatchcase"), got


def test_a_def_named_as_the_one_at_fault_stays_alone() -> None:
    for rel, wording, want in ALONE:
        assert _targets(rel, wording) == (want,), wording
    assert _targets("fnmatch.py", "Fix filter: with '[!x]' it keeps the names that match x") == ("filter",)
    assert _targets("fnmatch.py", "fnmatch('b', '[!a]') is False because fnmatchcase doesn't negate the set") == (
        "fnmatchcase",)
    # request_uri reads environ itself: what it calls with it is not in doubt
    assert _targets("wsgiref/util.py", "request_uri(environ) drops the query string") == ("request_uri",)


@pytest.mark.parametrize("wording", ["Dotfiles given as bytes are not treated as hidden",
                                     "a bytes name like b'.env' is not hidden, so it shows up in the listing",
                                     "b'.cache' isn't considered hidden when the pattern is bytes"])
def test_an_adjective_said_of_something_names_the_files_predicate_of_it(wording: str) -> None:
    assert _targets("glob.py", wording) == ("_ishidden",)


def test_an_adjective_before_its_noun_names_no_predicate() -> None:
    assert _targets("glob.py", "Hidden files show up in the listing") == ()
