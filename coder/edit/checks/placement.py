"""Where the instruction places a change, the change must be: the placement check.

"A comment above the function f", "at the top of the file", "after the imports", "move f so it
comes right after g" become the change spec's :class:`~coder.edit.intent.spec.Anchor`. A small
model asked for a comment *above* a function has put it inside, after the docstring: the file
parses, nothing is undefined, and the edit would be applied in the wrong place. So:

* a **moved or added def** (``move``, ``add_function``, ``add_method``) is placed by the syntax
  tree: in the new file it must be the def or class right after (or right before) the anchor's,
  among the same siblings;
* **any other change** is placed by its lines: the diff's added lines must include some at the
  anchor (the gap between the anchor's def and its neighbour, the top of the file, the lines
  after the last import, the end), and a comment asked for there may not also land elsewhere.

The anchor's symbol is found again by its qualified name in the old and the new text, so line
numbers the reading took never go stale. A spec without an anchor, or an anchor the new file no
longer has, passes: other checks judge those.
"""

from __future__ import annotations

import ast
import difflib
from dataclasses import dataclass

from coder.edit.intent.spec import Anchor, ChangeSpec
from coder.edit.source.trees import parsed

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_BEFORE = frozenset({"before", "above"})
_AFTER = frozenset({"after", "below"})
_WORDS = {"before": "before", "above": "above", "after": "after", "below": "below", "inside": "inside",
          "top": "at the top of the file", "end": "at the end of the file", "after_imports": "after the imports"}


@dataclass(frozen=True)
class _Added:
    """One run of lines the edit added: where it goes in the old file, and its text."""

    at: int  # inserted after this many old lines (0: before the first)
    upto: int  # the old lines it replaces end here (== at for a pure insertion)
    row: int  # its first line in the new file, 1-based
    lines: tuple[str, ...]


def where_words(anchor: Anchor) -> str:
    """The anchor in words: ``above C.m``, ``after the imports``, ``right above `while lo < hi:` in f``."""
    if anchor.line is not None and anchor.symbol is not None:
        which = "each line" if anchor.each else "the line"
        return f"right above {which} `{anchor.line}` in {anchor.symbol.qualname}"
    said = _WORDS[anchor.where]
    return f"{said} {anchor.symbol.qualname}" if anchor.symbol is not None else said


def _line_spans(old_tree: ast.Module, text: list[str], anchor: Anchor) -> list[tuple[int, int]] | None:
    """For each line of the anchor's symbol that reads ``anchor.line``: the old insertion points right above it."""
    assert anchor.symbol is not None and anchor.line is not None  # the caller checks
    found = _find(old_tree.body, anchor.symbol.qualname)
    if found is None:
        return None
    node = found[0][found[1]]
    spans = []
    for row in range(node.lineno, (node.end_lineno or node.lineno) + 1):
        if text[row - 1].strip() == anchor.line:
            lo = row - 1
            while lo > 0 and (not text[lo - 1].strip() or text[lo - 1].lstrip().startswith("#")):
                lo -= 1
            spans.append((lo, row - 1))
    return (spans if anchor.each else spans[:1]) or None  # a line spelled out: its first, as the plan writes it


def _line_misplaced(added: list[_Added], spans: list[tuple[int, int]], anchor: Anchor) -> str | None:
    """Why the added comments are not right above the anchor's line (each one, when asked so)."""
    comments = [a for a in added if any(line.lstrip().startswith("#") for line in a.lines)]
    if not comments:
        return None  # no comment added: the result check says what is missing
    for a in comments:
        if not any(lo <= a.at and a.upto <= hi for lo, hi in spans):
            return (f"a comment was asked {where_words(anchor)}, but it is at line {a.row} "
                    f"({a.lines[0].strip()[:60]!r})")
    got = sum(1 for lo, hi in spans if any(lo <= a.at and a.upto <= hi for a in comments))
    if anchor.each and got < len(spans):
        return f"a comment was asked {where_words(anchor)} ({len(spans)} of them), but {got} got one"
    return None


def _find(body: list[ast.stmt], qualname: str) -> tuple[list[ast.stmt], int] | None:
    """(the sibling list holding ``qualname``'s def or class, its index there)."""
    head, _, rest = qualname.partition(".")
    for i, node in enumerate(body):
        if isinstance(node, _DEFS) and node.name == head:
            if not rest:
                return body, i
            return _find(node.body, rest) if isinstance(node, ast.ClassDef) else None
    return None


def _first_line(node: ast.stmt) -> int:
    """A statement's first line, its decorators included."""
    decorators: list[ast.expr] = getattr(node, "decorator_list", [])
    return min([node.lineno, *(d.lineno for d in decorators)])


def _added(old: str, new: str) -> list[_Added]:
    """The runs of non-blank lines ``new`` adds or changes, by where they go in ``old``."""
    a, b = old.splitlines(), new.splitlines()
    out = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if op in ("insert", "replace"):
            lines = tuple(b[j1:j2])
            if any(line.strip() for line in lines):
                out.append(_Added(i1, i2, j1 + 1, lines))
    return out


def _span(body: list[ast.stmt], i: int, anchor: Anchor, text: list[str]) -> tuple[int, int]:
    """The old insertion points (``_Added.at``, ``upto``) that are at the anchor, as a closed interval."""
    node = body[i]
    start, end = _first_line(node), node.end_lineno or node.lineno
    if anchor.where in _BEFORE:  # the blank and comment lines right above the def (the first in a class too)
        lo = start - 1
        while lo > 0 and (not text[lo - 1].strip() or text[lo - 1].lstrip().startswith("#")):
            lo -= 1
        return lo, start - 1
    if anchor.where in _AFTER:
        next_start = _first_line(body[i + 1]) - 1 if i + 1 < len(body) else len(text)
        return end, max(end, next_start)
    return start, end  # inside


def _file_span(tree: ast.Module, anchor: Anchor, lines: int) -> tuple[int, int]:
    """The old insertion points at a place of the whole file: its top, its end, after its imports."""
    body = tree.body
    docstring = 1 if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
        and isinstance(body[0].value.value, str) else 0
    head = docstring
    while head < len(body) and isinstance(body[head], ast.Import | ast.ImportFrom):
        head += 1
    if anchor.where == "top":
        return 0, (_first_line(body[head]) - 1 if head < len(body) else lines)
    if anchor.where == "after_imports":
        last = (body[head - 1].end_lineno or 0) if head > 0 else 0
        return last, (_first_line(body[head]) - 1 if head < len(body) else lines)
    defs = [n for n in body if isinstance(n, _DEFS)]
    return ((defs[-1].end_lineno or lines) if defs else 0), lines  # end: after the last def or class


def _placed_names(spec: ChangeSpec, anchor: Anchor) -> list[str]:
    """The qualified names of the defs the change moves or adds (empty: it is placed by its lines)."""
    if spec.action == "move":
        return [s.qualname for s in spec.targets if s != anchor.symbol]
    if spec.action in ("add_function", "add_method"):
        prefix = f"{spec.owner.qualname}." if spec.owner is not None else ""
        return [n if "." in n else prefix + n for n in spec.new_names]
    return []


def _tree_placed(new_tree: ast.Module, name: str, anchor: Anchor) -> str | None:
    """Why the moved or new def ``name`` is not right before/after the anchor's def, or last in the file."""
    here = _find(new_tree.body, name)
    if here is None:
        return None  # not defined at all: the result check's other rules say so
    where = f"{name} is at line {_first_line(here[0][here[1]])}, not {where_words(anchor)} as the instruction asks"
    siblings = [n for n in here[0] if isinstance(n, _DEFS)]
    if anchor.symbol is None:  # the end of the file: the last def or class there
        return None if here[0] is new_tree.body and siblings[-1] is here[0][here[1]] else where
    found = _find(new_tree.body, anchor.symbol.qualname)
    if found is None:
        return None  # the anchor is gone: another rule judges that
    body, i = found
    defs = [n for n in body if isinstance(n, _DEFS)]
    k = defs.index(body[i])  # type: ignore[arg-type]  # body[i] is a def or class (_find)
    neighbour = defs[k + 1] if anchor.where in _AFTER and k + 1 < len(defs) else (
        defs[k - 1] if anchor.where in _BEFORE and k > 0 else None)
    return None if neighbour is here[0][here[1]] else where


def _at(tree: ast.Module, name: str) -> ast.stmt:
    found = _find(tree.body, name)
    assert found is not None
    return found[0][found[1]]


def _not_together(tree: ast.Module, names: list[str]) -> str | None:
    """Why defs moved as one block are not one after another (None: they are)."""
    found = [_find(tree.body, n) for n in names]
    if any(f is None for f in found) or len({id(f[0]) for f in found if f is not None}) != 1:
        return "the moved defs are not side by side"
    body = found[0][0] if found[0] is not None else []
    defs = [n for n in body if isinstance(n, _DEFS)]
    at = sorted(defs.index(f[0][f[1]]) for f in found if f is not None)  # type: ignore[arg-type]
    return None if at[-1] - at[0] == len(at) - 1 else "the moved defs are not side by side"


def misplaced(old: str, new: str, spec: ChangeSpec) -> str | None:
    """Why the change of ``old`` into ``new`` is not where ``spec.anchor`` places it (None: it is, or no anchor)."""
    anchor = spec.anchor
    if anchor is None or old == new:
        return None
    try:
        old_tree, new_tree = parsed(old), parsed(new)
    except (SyntaxError, ValueError, RecursionError):
        return None
    names = _placed_names(spec, anchor)
    by_tree = (anchor.symbol is not None and anchor.where in _BEFORE | _AFTER) or anchor.where == "end"
    if names and by_tree:
        # several moved as one block: the one nearest the anchor is its neighbour, the others follow it
        placed = [n for n in names if _find(new_tree.body, n) is not None]
        if len(placed) > 1:
            rows = {n: _first_line(_at(new_tree, n)) for n in placed}
            names = sorted(placed, key=rows.__getitem__, reverse=anchor.where in _BEFORE)
            why = _tree_placed(new_tree, names[0], anchor) or _not_together(new_tree, names)
            return why
        return _tree_placed(new_tree, names[0], anchor)
    lines = len(old.splitlines())
    if anchor.line is not None and anchor.symbol is not None and spec.action == "comment":
        spans = _line_spans(old_tree, old.splitlines(), anchor)
        return None if spans is None else _line_misplaced(_added(old, new), spans, anchor)
    if anchor.symbol is not None:
        found = _find(old_tree.body, anchor.symbol.qualname)
        if found is None or _find(new_tree.body, anchor.symbol.qualname) is None:
            return None
        lo, hi = _span(*found, anchor, old.splitlines())
    elif anchor.where in ("top", "end", "after_imports"):
        lo, hi = _file_span(old_tree, anchor, lines)
    else:
        return None
    added = _added(old, new)
    if not added:
        return None  # only deletions: nothing was placed
    there = [a for a in added if lo <= a.at and a.upto <= hi]
    if not there:
        first = added[0]
        return (f"the change was asked {where_words(anchor)}, but it is at line {first.row} "
                f"({first.lines[0].strip()[:60]!r})")
    return _also_elsewhere(added, there, anchor) if spec.action == "comment" else None


def _also_elsewhere(added: list[_Added], there: list[_Added], anchor: Anchor) -> str | None:
    """Why a comment asked at the anchor also lands somewhere else (None: it does not)."""
    for a in added:
        if a not in there and any(line.lstrip().startswith("#") for line in a.lines):
            return (f"a comment was asked {where_words(anchor)}, but one is also at line {a.row} "
                    f"({a.lines[0].strip()[:60]!r})")
    return None


def placement_hint(spec: ChangeSpec) -> str:
    """What a retry is told about the placement."""
    return f"Put it {where_words(spec.anchor)}, nowhere else." if spec.anchor is not None else ""
