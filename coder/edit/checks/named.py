"""Which changes of a whole-file rewrite the names of the instruction explain: inside or near them.

The scope check (:mod:`coder.edit.checks.explained`) asks this when no region and no rename scopes
the change: a change lies inside a symbol the spec names (its targets, anchor, owner, the names and
statements it spells as code), or within :data:`NEAR` lines of a mention of one, or is the module
docstring asked for, or an import a type-hints edit needs.
"""

from __future__ import annotations

import ast
import re
from pathlib import PurePath
from typing import TYPE_CHECKING

from coder.edit.source.regions import Region, python_symbols, tree_sitter_symbols
from coder.edit.source.trees import parsed
from coder.errors import CoderError

if TYPE_CHECKING:
    from coder.edit.intent.spec import ChangeSpec

NEAR = 2  # lines around a mention of a named symbol that a change may touch (call sites, decorators)
Span = tuple[int, int, int, int]
IMPORT_LINE = re.compile(r"^\s*(?:from\s+[\w.]+\s+)?import\s+[\w., ()]+$")
_WORD = re.compile(r"[A-Za-z_]\w*")


def defs_of(rel: str, text: str) -> list[tuple[str, Region]]:
    """The file's symbols and their regions (none when it does not parse)."""
    try:
        if PurePath(rel).suffix.lower() in (".py", ".pyi"):
            return python_symbols(text)
        return tree_sitter_symbols(rel, text)
    except (SyntaxError, ValueError, RecursionError, CoderError):
        return []


def _named(spec: ChangeSpec, defs: list[tuple[str, Region]]) -> list[str]:
    """The symbols the spec is about (its targets and anchor), and the names it spells as code."""
    names = [t.qualname for t in spec.targets]
    if spec.anchor is not None and spec.anchor.symbol is not None:
        names.append(spec.anchor.symbol.qualname)
    if spec.owner is not None:
        names.append(spec.owner.qualname)
    # a statement the reading resolved ("the functools import") is named as much as a spelled-out one
    return list(dict.fromkeys(names + list(spec.facts.code_words) + list(spec.facts.statements)))


def _symbol_regions(defs: list[tuple[str, Region]], names: list[str]) -> list[Region]:
    return [r for q, r in defs for n in names if q == n or q.endswith("." + n)]


def _module_head(text: str) -> int:
    """The last line before the module's first statement after its docstring (0 when unknown)."""
    try:
        body = parsed(text).body
    except (SyntaxError, ValueError, RecursionError):
        return 0
    if not body:
        return len(text.splitlines())
    first = body[0]
    is_doc = isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(
        first.value.value, str)
    if is_doc:
        return (first.end_lineno or first.lineno) if len(body) == 1 else body[1].lineno - 1
    return first.lineno - 1


def _mentions(lines: list[str], lo: int, hi: int, words: set[str]) -> bool:
    """Any of ``lines[lo:hi]`` (clipped) has one of ``words`` as a whole identifier."""
    return any(words.intersection(_WORD.findall(line)) for line in lines[max(0, lo):max(0, hi)])


def by_symbols(old: str, old_lines: list[str], new_lines: list[str], spans: list[Span], spec: ChangeSpec,
                rel: str) -> tuple[str, list[tuple[bool, str]]] | None:
    """Whole-file rewrite: changes inside or near the symbols named (None: nothing is named)."""
    defs = defs_of(rel, old)
    names = _named(spec, defs)
    head = _module_head(old) if spec.facts.module_doc else -1
    if not names and head < 0:
        return None
    regions = _symbol_regions(defs, names)
    # a def the instruction creates ("add tokens(self) to shlex") explains the lines beside it: the H200 put
    # shlex.tokens after the class's trailing blank line, outside the class's old lines and naming no "shlex"
    words = {n.rsplit(".", 1)[-1] for n in names} | set(spec.new_names)
    hints = "annotations" in spec.allows and spec.only is not None
    out = []
    for i1, i2, j1, j2 in spans:
        inside = any(r.start <= i1 + 1 and i2 <= r.end for r in regions) or (head >= 0 and i2 <= head)
        near = (_mentions(old_lines, i1 - NEAR, i2 + NEAR, words)
                or _mentions(new_lines, j1 - NEAR, j2 + NEAR, words))
        # type hints may need an import (``from typing import Callable``): an added import line only
        hint_import = hints and i1 == i2 and all(IMPORT_LINE.match(x) for x in new_lines[j1:j2] if x.strip())
        why = "inside a named symbol" if inside else "near a named symbol" if near else "an import for type hints"
        out.append((bool(inside or near or hint_import), why))
    return "changes at " + (", ".join(names) if names else "the module docstring"), out
