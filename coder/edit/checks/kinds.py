"""What a change spec that allows only comments, docstrings or type hints may change.

"Add a comment above the loop" explains a new comment line, never a changed condition on
the next line, even inside the named function. For such instructions each change must
keep the code the same: for comments, the lines that are not comments stay as they were;
for docstrings and type hints, the module's syntax tree stays the same once docstrings or
annotations (and imports, which hints may need) are taken out. Each change must also do
what was asked: a change that only moves blank lines or reformats code explains nothing.
Python files only.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import PurePath
from typing import TYPE_CHECKING

from coder.edit.source.trees import dumped, parsed

if TYPE_CHECKING:
    from coder.edit.intent.spec import ChangeSpec

_TRAILING = re.compile(r"\s+#.*")
_PROSE = re.compile(r"[A-Za-z]{3,}")
CARRIED = 0.8  # share of a deleted comment's words the reply's new prose must hold for the comment to count as moved
MAX_CHANGES = 60  # beyond this many changes, judge the whole proposal once instead of each change


def _code_lines(lines: list[str]) -> list[str]:
    return [x for x in lines if x.strip() and not x.lstrip().startswith("#")]


def comment_only(old: list[str], new: list[str]) -> bool:
    """``new`` is ``old`` plus or minus comment lines, blank lines and trailing comments, and adds a comment."""
    a, b = _code_lines(old), _code_lines(new)
    if len(a) != len(b):
        return False
    kept = all(y == x or (y.startswith(x) and _TRAILING.fullmatch(y[len(x):]) is not None)
               for x, y in zip(a, b, strict=True))
    return kept and any("#" in y and y not in old for y in new)  # blank lines alone are not a comment


def comment_words(lines: list[str]) -> set[str] | None:
    """The words of ``lines`` when they are comments and blank lines only, with a comment (None: code too)."""
    if not lines or any(x.strip() and not x.lstrip().startswith("#") for x in lines):
        return None
    words = {w.lower() for x in lines for w in _PROSE.findall(x)}
    return words if any(x.strip() for x in lines) else None


def carried(words: set[str], prose: set[str]) -> bool:
    """A deleted comment's ``words`` reappear in the reply's new ``prose``: it was moved there, not lost.

    "Turn the comment block describing the members into a class docstring" deletes the block on purpose:
    its words are in the new docstring. A comment line the reply dropped elsewhere has its words nowhere.
    """
    return bool(words) and len(words & prose) >= CARRIED * len(words)


def new_prose(old: str, new: str) -> set[str]:
    """The words of the docstrings and comment lines of ``new`` that ``old`` does not hold."""
    had = set(old.splitlines())
    words = {w.lower() for x in new.splitlines() if x not in had and x.lstrip().startswith("#")
             for w in _PROSE.findall(x)}
    for doc in set(_docstrings(new)) - set(_docstrings(old)):
        words |= {w.lower() for w in _PROSE.findall(doc)}
    return words


def docstrings_of(tree: ast.AST) -> list[str]:
    """Every docstring of ``tree`` (module, classes, defs) in walk order; ``""`` where a node has none."""
    return [ast.get_docstring(n, clean=False) or "" for n in ast.walk(tree)
            if isinstance(n, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)]


def _docstrings(text: str) -> list[str]:
    try:
        return docstrings_of(parsed(text))
    except (SyntaxError, ValueError, RecursionError):
        return []


@lru_cache(maxsize=32)  # each kind rule asks it of the same texts: one parse per (text, kinds), not one per rule
def _normal(text: str, docstrings: bool, hints: bool) -> str | None:
    try:
        if not (docstrings or hints):  # nothing taken out: the shared tree's dump (one parse the checks share)
            return dumped(text)
        tree = ast.parse(text)  # its own: the kinds asked are taken out of it below
    except (SyntaxError, ValueError, RecursionError):  # NUL bytes, absurd nesting: not Python
        return None
    for node in ast.walk(tree):
        if hints and isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            node.returns = None
            a = node.args
            for arg in [*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg]:
                if arg is not None:
                    arg.annotation = None
        if docstrings and isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            first = body[0] if body else None
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(
                    first.value.value, str):
                node.body = body[1:] or [ast.Pass()]
    if hints:
        tree.body = [n for n in tree.body if not isinstance(n, ast.Import | ast.ImportFrom)]
        tree = _Unannotated().visit(tree)
    return ast.dump(tree)


class _Unannotated(ast.NodeTransformer):
    """Variable annotations taken out: ``x: str = ''`` is ``x = ''``, and a bare ``x: str`` is nothing.

    Seen on the H200: "add type hints to every method of GetoptError (msg and opt are str)" annotated the
    class's ``opt = ''`` as well; an annotation that keeps the value is a type hint, one that drops it is not.
    """

    def visit_AnnAssign(self, node: ast.AnnAssign) -> ast.stmt | None:
        if node.value is None:
            return None
        return ast.copy_location(ast.Assign(targets=[node.target], value=node.value), node)


def same_code(old: str, new: str) -> bool:
    """True when both texts parse and differ only in docstrings, annotations, imports, comments or layout."""
    a = _normal(old, True, True)
    return a is not None and a == _normal(new, True, True)


@dataclass(frozen=True)
class Invariant:
    """What must stay the same: ``only comments``, ``only docstrings``, ``only type hints``..."""

    label: str
    docstrings: bool
    hints: bool

    def keeps(self, old: list[str], new: list[str], spans: list[tuple[int, int, int, int]]) -> list[bool]:
        """Per change in ``spans`` (from ``old`` to ``new`` lines): True when it keeps the code the same."""
        if not (self.docstrings or self.hints):
            return [comment_only(old[i1:i2], new[j1:j2]) for i1, i2, j1, j2 in spans]
        text = "\n".join(old) + "\n"
        base, full = _normal(text, self.docstrings, self.hints), _normal(text, False, False)
        if len(spans) > MAX_CHANGES:
            whole = "\n".join(new) + "\n"
            same = _normal(whole, self.docstrings, self.hints) == base and _normal(whole, False, False) != full
            return [same] * len(spans)
        out = []
        prose: set[str] | None = None
        for i1, i2, j1, j2 in spans:
            if self.docstrings and j1 == j2 and (words := comment_words(old[i1:i2])) is not None:
                # a comment deleted: kept only when the reply's new docstrings carry it (a tree never holds comments)
                prose = new_prose(text, "\n".join(new) + "\n") if prose is None else prose
                out.append(carried(words, prose))
                continue
            # this change alone, on the original: keeps the code, and does what was asked
            alone = "\n".join(old[:i1] + new[j1:j2] + old[i2:]) + "\n"
            out.append(base is not None and _normal(alone, self.docstrings, self.hints) == base
                       and _normal(alone, False, False) != full)
        return out


def invariant_for(spec: ChangeSpec, rel: str) -> Invariant | None:
    """The invariant the spec implies (None: it may change code): exactly the kinds it allows."""
    only = spec.only
    if PurePath(rel).suffix.lower() not in (".py", ".pyi") or only is None:
        return None
    docstrings, hints = "docstrings" in only, "annotations" in only
    if docstrings or hints:
        what = " and ".join(w for w, on in (("docstrings", docstrings), ("type hints", hints)) if on)
        return Invariant(f"only {what}", docstrings, hints)
    return Invariant("only comments", False, False)
