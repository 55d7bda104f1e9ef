"""A hints- or docstrings-only reply that rewrote code besides: the asked kind put on the original instead.

Seen on the H200 (Qwen2.5-Coder-1.5B, run 7 of 2026-12-03), every wording refused:
* "add type hints to every method of GetoptError (msg and opt are str)": ``__init__`` and ``__str__`` annotated
  right, and in the same hunk the class attributes ``opt = ''`` made ``opt: str``, the value gone;
* "add a docstring to every method of TopologicalSorter that has none": every docstring written, and besides,
  ``prepare``'s condition inverted and ``__class_getitem__`` dropped.

:mod:`~coder.edit.checks.trim` cannot give those changes back: they share lines with what was asked, or rewrite
code in place. But what was asked has a shape that can be read off the reply on its own: a def header whose
parameters, defaults and decorators are the original's with annotations added, and a docstring at the top of a
def or class the original has none of. Those, and only those, are put on the original text; every other change of the
reply is left out, and said. A variable's annotation is not taken: it is code the defs asked for do not need
(``opt: str`` dropped a value), and the reply's other annotations stand without it. The result is judged
as any reply is: every change explained, the result check passes. When the reply holds nothing of the kind asked,
nothing is grafted and the reply is refused as before.
"""

from __future__ import annotations

import ast
import copy
import io
import tokenize
from typing import TYPE_CHECKING

from coder.edit.checks.hints import header_colon, type_notes
from coder.edit.checks.kinds import same_code
from coder.edit.source.trees import parsed

if TYPE_CHECKING:
    from coder.edit.checks.kinds import Invariant

_Node = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
Edit = tuple[int, int, list[str]]  # original rows first..last (1-based; last = first - 1: an insertion) and lines


def grafted(old: str, new: str, invariant: Invariant, within: tuple[int, int] | None = None, *,
            every: bool = False) -> str | None:
    """``old`` with the annotations and docstrings of ``new`` that ``invariant`` allows put on it; None when there
    are none, when the result does not keep ``old``'s code, or when it is partial (below).

    ``within``: the original rows the request replaced (None: the whole file). When the reply gives two or more
    defs there the kind asked ("every method"), each def there that has none must get it from the graft: a
    reply that mangled one method and documented the others would otherwise land with that method bare.
    ``every``: each def there must get the hints it lacks whatever the count (the rows are a class, and hints on
    a class are its methods' hints: on the CPU the 1.5B annotated ``GetoptError.__init__`` and left ``__str__``)."""
    if not (invariant.hints or invariant.docstrings):
        return None
    try:
        before, after = parsed(old), parsed(new)
        comments = _comment_rows(old)
    except (SyntaxError, ValueError, RecursionError, tokenize.TokenError):
        return None
    a, b = _nodes(before), _nodes(after)
    old_lines, new_lines = old.splitlines(keepends=True), new.splitlines(keepends=True)
    edits: list[Edit] = []
    for kind, take in (("hints", invariant.hints), ("docstrings", invariant.docstrings)):
        if not take:
            continue
        made = {q: e for q in a.keys() & b.keys() if (e := _made(kind, old, new, a[q], b[q], old_lines, new_lines,
                                                                  comments))}
        lacking = {q for q, x in a.items() if not isinstance(x, ast.ClassDef) and _lacks(kind, x)
                   and (within is None or (within[0] <= x.lineno and (x.end_lineno or x.lineno) <= within[1]))}
        several = sum(not isinstance(a[q], ast.ClassDef) for q in made) >= 2 or (every and kind == "hints")
        if several and lacking - made.keys():
            return None
        edits += [e for es in made.values() for e in es]
    out = _applied(old_lines, edits)
    if out is None or out == old or not same_code(old, out):
        return None
    return out


def _made(kind: str, old: str, new: str, x: _Node, y: _Node, old_lines: list[str], new_lines: list[str],
          comments: set[int]) -> list[Edit]:
    if kind == "docstrings":
        return _docstring(old, x, y, old_lines, new_lines)
    if isinstance(x, ast.ClassDef) or isinstance(y, ast.ClassDef):
        return []
    return _header(old, new, x, y, old_lines, new_lines, comments)


def _lacks(kind: str, x: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """The def has nothing of ``kind``: no docstring, or not one annotation."""
    if kind == "docstrings":
        return _doc(x) is None
    return type_notes(x) == type_notes(_unannotated(x))


def _nodes(tree: ast.Module) -> dict[str, _Node]:
    """Every def and class by qualified name (``C``, ``C.m``, ``f``); a name bound twice is left out (ambiguous)."""
    out: dict[str, _Node] = {}
    twice: set[str] = set()

    def visit(body: list[ast.stmt], prefix: str) -> None:
        for node in body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                q = prefix + node.name
                (twice.add(q) if q in out else out.__setitem__(q, node))
                if isinstance(node, ast.ClassDef):
                    visit(node.body, q + ".")

    visit(tree.body, "")
    return {q: n for q, n in out.items() if q not in twice}


def _comment_rows(text: str) -> set[int]:
    return {t.start[0] for t in tokenize.generate_tokens(io.StringIO(text).readline) if t.type == tokenize.COMMENT}


def _unannotated(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> ast.FunctionDef | ast.AsyncFunctionDef:
    """A copy of the def with every annotation taken out."""
    bare = copy.deepcopy(fn)
    a = bare.args
    for p in [*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg]:
        if p is not None:
            p.annotation = None
    bare.returns = None
    return bare


def _bare(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> str:
    """The def's header without its annotations: kind, name, parameters, defaults, decorators."""
    return f"{type(fn).__name__} {fn.name} {ast.dump(_unannotated(fn).args)} {[ast.dump(d) for d in fn.decorator_list]}"


def _header(old: str, new: str, x: _Node, y: _Node, old_lines: list[str], new_lines: list[str],
            comments: set[int]) -> list[Edit]:
    """The reply's header of a def put in place of the original's, when only annotations differ."""
    assert not isinstance(x, ast.ClassDef) and not isinstance(y, ast.ClassDef)
    if _bare(x) != _bare(y) or type_notes(x) == type_notes(y):
        return []  # code changed in the header, or no annotation did
    first, second = header_colon(old, x.lineno), header_colon(new, y.lineno)
    if first is None or second is None:
        return []
    (r1, c1), (r2, c2) = first, second
    if any(r in comments for r in range(x.lineno, r1 + 1)) or _after(old_lines[r1 - 1], c1) \
            or _after(new_lines[r2 - 1], c2):
        return []  # a comment in the header, or a body on the header's line: not a header alone
    lines = _reindent(new_lines[y.lineno - 1:r2], _indent(new_lines[y.lineno - 1]), _indent(old_lines[x.lineno - 1]))
    return [(x.lineno, r1, lines)]


def _after(line: str, col: int) -> bool:
    """Code after the header's colon on its line (a one-line body)."""
    rest = line[col + 1:].strip()
    return bool(rest) and not rest.startswith("#")


def _docstring(old: str, x: _Node, y: _Node, old_lines: list[str], new_lines: list[str]) -> list[Edit]:
    """The reply's docstring of a def or class that has none, put on the original's.

    A docstring the original has is kept as it is: "add a docstring to every method that has none" came back
    with the existing ones reworded, which nobody asked for."""
    dy = _doc(y)
    if _doc(x) is not None or dy is None or not x.body or not _alone(dy, new_lines):
        return []
    end = header_colon(old, x.lineno)
    if end is None or _after(old_lines[end[0] - 1], end[1]):
        return []
    lines = _reindent(new_lines[dy.lineno - 1:dy.end_lineno], " " * dy.col_offset, " " * x.body[0].col_offset)
    return [(end[0] + 1, end[0], lines)]


def _doc(node: _Node) -> ast.Expr | None:
    first = node.body[0] if node.body else None
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
        return first
    return None


def _alone(doc: ast.Expr, lines: list[str]) -> bool:
    """The docstring has its lines to itself (nothing before it on its first, nothing after it on its last)."""
    end = doc.end_lineno or doc.lineno
    return (not lines[doc.lineno - 1][:doc.col_offset].strip()
            and not lines[end - 1][doc.end_col_offset or 0:].strip())


def _indent(line: str) -> str:
    return line[:len(line) - len(line.lstrip())]


def _reindent(lines: list[str], was: str, now: str) -> list[str]:
    """``lines`` moved from indentation ``was`` to ``now`` (a line indented less is kept as it is: a string's)."""
    return [now + line[len(was):] if line.startswith(was) and line.strip() else line for line in lines]


def _applied(lines: list[str], edits: list[Edit]) -> str | None:
    """``lines`` with every edit made, bottom up; None when two edits overlap."""
    out, floor = list(lines), len(lines) + 1
    for first, last, new in sorted(edits, key=lambda e: (e[0], e[1]), reverse=True):
        if last >= floor:
            return None
        if new and not new[-1].endswith("\n"):
            new = [*new[:-1], new[-1] + "\n"]
        out[first - 1:last] = new
        floor = first
    return "".join(out)
