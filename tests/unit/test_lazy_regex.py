"""coder.lazy.regex: a module-level pattern compiled on first use, answering as re.compile's would."""

from __future__ import annotations

import re

import pytest

from coder import lazy

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
    real = re.compile

    def counting(pattern: str, flags: int = 0) -> re.Pattern[str]:
        compiled.append(pattern)
        return real(pattern, flags)

    monkeypatch.setattr(re, "compile", counting)
    pattern = lazy.regex(SOURCE + "x?", FLAGS)
    assert compiled == [] and pattern.pattern == SOURCE + "x?"  # built from other patterns' text: no compile
    assert pattern.finditer(TEXT) is not None and compiled == [SOURCE + "x?"]
    assert pattern.search(TEXT) is not None and pattern.match("nothing") is None
    assert compiled == [SOURCE + "x?"]  # compiled once, for every method
    assert pattern.__dict__["search"].__self__.pattern == SOURCE + "x?"  # the bound method of re.Pattern
