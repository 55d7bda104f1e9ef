"""coder.lazy.regex: a module-level pattern compiled on first use, answering as re.compile's would."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from coder import lazy, regex_store

SOURCE, FLAGS = r"\b(add|rename)\s+`?([A-Za-z_]\w*)`?", re.I
TEXT = "Add foo, then RENAME `bar` and add baz"


@pytest.mark.parametrize("call", [
    lambda p: p.search(TEXT), lambda p: p.search(TEXT, 5), lambda p: p.match(TEXT), lambda p: p.fullmatch("add x"),
    lambda p: [m.span() for m in p.finditer(TEXT)], lambda p: p.findall(TEXT), lambda p: p.sub(r"<\2>", TEXT),
    lambda p: p.sub(lambda m: m[2].upper(), TEXT, 1),
])
def test_every_method_answers_as_the_compiled_pattern(call: object) -> None:
    assert callable(call)
    want = call(re.compile(SOURCE, FLAGS))
    got = call(lazy.regex(SOURCE, FLAGS))
    if isinstance(want, re.Match):
        assert isinstance(got, re.Match) and got.span() == want.span() and got.groups() == want.groups()
    else:
        assert got == want


def test_nothing_compiles_before_the_first_use_and_later_calls_go_straight_to_re(
        monkeypatch: pytest.MonkeyPatch) -> None:
    compiled: list[str] = []
    real = regex_store.compile_pattern  # re.compile, or the store of patterns compiled before

    def counting(pattern: str, flags: int = 0) -> re.Pattern[str]:
        compiled.append(pattern)
        return real(pattern, flags)

    monkeypatch.setattr(regex_store, "compile_pattern", counting)
    pattern = lazy.regex(SOURCE + "x?", FLAGS)
    assert compiled == [] and pattern.pattern == SOURCE + "x?"  # built from other patterns' text: no compile
    assert pattern.finditer(TEXT) is not None and compiled == [SOURCE + "x?"]
    assert pattern.search(TEXT) is not None and pattern.match("nothing") is None
    assert compiled == [SOURCE + "x?"]  # compiled once, for every method
    assert pattern.__dict__["search"].__self__.pattern == SOURCE + "x?"  # the bound method of re.Pattern


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty store of this test's own (CODER_CACHE), nothing loaded in this process yet."""
    monkeypatch.setenv("CODER_CACHE", str(tmp_path))
    monkeypatch.setattr(regex_store, "_STORE", None)
    monkeypatch.setattr(regex_store, "_ADDED", [])
    return regex_store.path()


def test_a_stored_pattern_is_built_without_re_and_answers_the_same(store: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    named_source = r"(?P<verb>add|insert|append)\s+(?P<name>\w+)(?:\s+to\s+\w+)?"  # long enough to keep
    first, named = regex_store.compile_pattern(SOURCE, FLAGS), regex_store.compile_pattern(named_source, re.I)
    regex_store.save()
    assert store.is_file()
    monkeypatch.setattr(regex_store, "_STORE", None)  # a later process: the store read from its file

    def never(pattern: str, flags: int = 0) -> re.Pattern[str]:
        raise AssertionError(f"re.compile({pattern!r}) with the pattern stored")

    monkeypatch.setattr(re, "compile", never)
    again, named_again = regex_store.compile_pattern(SOURCE, FLAGS), regex_store.compile_pattern(named_source, re.I)
    assert again == first and again.flags == first.flags and named_again == named
    assert [m.span(2) for m in again.finditer(TEXT)] == [m.span(2) for m in first.finditer(TEXT)]
    match = named_again.match("ADD x")
    assert named_again.groupindex == {"verb": 1, "name": 2} and match is not None and match["name"] == "x"


def test_short_patterns_are_not_kept(store: Path) -> None:
    """A short pattern compiles in microseconds; one built from a file's names would differ every edit."""
    regex_store.compile_pattern(r"\bupdatecache\b", 0)
    regex_store.save()
    assert not store.exists()


def test_a_store_that_does_not_load_falls_back_to_re(store: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store.parent.mkdir(parents=True, exist_ok=True)
    store.write_bytes(b"not marshal data")
    assert regex_store.compile_pattern(SOURCE, FLAGS) == re.compile(SOURCE, FLAGS)
    monkeypatch.setattr(regex_store, "_STORE", {(SOURCE, int(FLAGS)): (0, [1, 2, 3], 0, {}, ())})  # bad code
    assert regex_store.compile_pattern(SOURCE, FLAGS) == re.compile(SOURCE, FLAGS)  # _sre refused it: re


def test_a_process_writes_what_it_compiled_and_the_next_reads_it(store: Path, tmp_path: Path) -> None:
    root = str(Path(regex_store.__file__).resolve().parents[1])
    env = {**os.environ, "CODER_CACHE": str(tmp_path),
           "PYTHONPATH": os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")]))}
    script = ("import re, sys\nfrom coder import lazy, regex_store\nreal = re.compile\ncalls = []\n"
              f"re.compile = lambda p, f=0: (p == {SOURCE!r} and calls.append(p)) or real(p, f)\n"
              f"assert lazy.regex({SOURCE!r}, {int(FLAGS)}).findall({TEXT!r})\nprint(len(calls))\n")
    runs = [subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=60)
            for _ in range(2)]
    assert [r.stdout.strip() for r in runs] == ["1", "0"], [r.stderr for r in runs]
    assert store.is_file() and not list(tmp_path.glob("*.tmp"))
