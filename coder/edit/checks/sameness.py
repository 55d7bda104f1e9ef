"""When a change of code changes no behaviour: the same program after docstrings go and constants fold.

A request to change code is done only when something a caller can observe changes. Two replies seen
applied on the H200 (Qwen2.5-Coder-1.5B) changed nothing of the kind: asked to make ``_ishidden`` handle
bytes, one reworded a docstring of ``glob``; asked to fix ``unhex`` for lowercase digits, one rewrote
``ord(b'A')`` as ``ord('A')``, which is the same number. Both texts differ, both parse to different
trees, and both leave the bug where it was.

So two texts are compared as programs: docstrings dropped (layout and comments are not in the tree
anyway), and every expression built only of constants and a few pure builtins (``ord``, ``len``,
``abs``...) replaced by its value. A builtin the module binds itself is not folded.
"""

from __future__ import annotations

import ast
import copy
import math
from collections.abc import Callable
from typing import Any

from coder.edit.checks.code_rules import bindings
from coder.edit.source.trees import dumped, fresh, parsed

_PURE: dict[str, Callable[..., Any]] = {f.__name__: f for f in (ord, chr, len, abs, int, float, str, bool, min, max,
                                                                  round, hex, oct, bin)}
_VALUE = (int, float, complex, str, bytes, bool)
_LIMIT = 10_000  # a folded value larger than this (digits, characters) is left unfolded: no 2 ** 10 ** 9 here


def _small(value: object) -> bool:
    if isinstance(value, str | bytes):
        return len(value) <= _LIMIT
    if isinstance(value, int):
        return value.bit_length() <= _LIMIT
    return not isinstance(value, float) or math.isfinite(value)


def _too_long(a: object, b: object) -> bool:
    """``a * b`` repeats a sequence past the limit."""
    for seq, times in ((a, b), (b, a)):
        if isinstance(seq, str | bytes | tuple) and isinstance(times, int) and len(seq) * times > _LIMIT:
            return True
    return False


class _Fold(ast.NodeTransformer):
    """Replaces constant expressions by their values (on a copy: it changes the tree it visits)."""

    def __init__(self, bound: set[str]) -> None:
        self.pure = {name: f for name, f in _PURE.items() if name not in bound}

    def _value(self, node: ast.AST, compute: Callable[[], object]) -> ast.AST:
        try:
            value = compute()
        except Exception:  # noqa: BLE001 -- a constant expression that raises stays as it is
            return node
        if isinstance(value, _VALUE) and _small(value):
            return ast.Constant(value)
        return node

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        f = self.pure.get(node.func.id) if isinstance(node.func, ast.Name) else None
        args = node.args
        if f is None or node.keywords or not all(isinstance(a, ast.Constant) for a in args):
            return node
        return self._value(node, lambda: f(*(a.value for a in args)))  # type: ignore[attr-defined]

    def visit_BinOp(self, node: ast.BinOp) -> ast.AST:
        self.generic_visit(node)
        left, right = node.left, node.right
        if not (isinstance(left, ast.Constant) and isinstance(right, ast.Constant)):
            return node
        if isinstance(node.op, ast.Pow | ast.LShift) and isinstance(right.value, int) and abs(right.value) > 64:
            return node
        if isinstance(node.op, ast.Mult) and _too_long(left.value, right.value):
            return node  # "x" * 10 ** 9
        expr = ast.Expression(ast.BinOp(ast.Constant(left.value), node.op, ast.Constant(right.value)))
        code = compile(ast.fix_missing_locations(expr), "<fold>", "eval")
        return self._value(node, lambda: eval(code, {"__builtins__": {}}))  # constants only: nothing to call

    def visit_UnaryOp(self, node: ast.UnaryOp) -> ast.AST:
        self.generic_visit(node)
        if not isinstance(node.operand, ast.Constant):
            return node
        expr = ast.Expression(ast.UnaryOp(node.op, ast.Constant(node.operand.value)))
        code = compile(ast.fix_missing_locations(expr), "<fold>", "eval")
        return self._value(node, lambda: eval(code, {"__builtins__": {}}))  # constants only: nothing to call


_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


class _Differences:
    """The pairs of statements (or def headers) where two trees differ, docstrings aside."""

    def __init__(self) -> None:
        self.pairs: list[tuple[ast.AST, ast.AST]] = []
        self.docstrings = False  # some docstring differs

    def _split(self, body: list[ast.stmt]) -> tuple[str | None, list[ast.stmt]]:
        first = body[0] if body else None
        if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
            return first.value.value, body[1:]
        return None, body

    def bodies(self, a: list[ast.stmt], b: list[ast.stmt]) -> bool:
        """Record where ``a`` and ``b`` differ; False when they differ in shape (then no fold can match them)."""
        doc_a, a = self._split(a)
        doc_b, b = self._split(b)
        self.docstrings = self.docstrings or doc_a != doc_b
        if len(a) != len(b):
            return False
        for x, y in zip(a, b, strict=True):
            if type(x) is not type(y):
                return False
            if isinstance(x, _DEFS) and isinstance(y, _DEFS):
                head_x, head_y = copy.copy(x), copy.copy(y)
                head_x.body, head_y.body = [], []
                if ast.dump(head_x) != ast.dump(head_y):
                    self.pairs.append((head_x, head_y))
                if not self.bodies(x.body, y.body):
                    return False
            elif ast.dump(x) != ast.dump(y):
                self.pairs.append((x, y))
        return True


class _Branches(ast.NodeTransformer):
    """``if c: return a`` / ``else: return b`` as ``return a if c else b`` (also ``yield`` and one assignment).

    Seen applied on the H200 as a fix of textwrap's ``indent``: ``yield (prefix + line if predicate(line) else
    line)`` rewritten as the same choice in an if/else, which is the same program (on a copy: it changes the tree).
    """

    def visit_If(self, node: ast.If) -> ast.AST:
        self.generic_visit(node)
        if len(node.body) != 1 or len(node.orelse) != 1:
            return node
        a, b = node.body[0], node.orelse[0]
        if isinstance(a, ast.Return) and isinstance(b, ast.Return) and a.value is not None and b.value is not None:
            return ast.Return(ast.IfExp(node.test, a.value, b.value))
        if isinstance(a, ast.Expr) and isinstance(b, ast.Expr) and isinstance(a.value, ast.Yield) \
                and isinstance(b.value, ast.Yield) and a.value.value is not None and b.value.value is not None:
            return ast.Expr(ast.Yield(ast.IfExp(node.test, a.value.value, b.value.value)))
        if isinstance(a, ast.Assign) and isinstance(b, ast.Assign) and len(a.targets) == len(b.targets) == 1 \
                and ast.dump(a.targets[0]) == ast.dump(b.targets[0]):
            return ast.Assign([a.targets[0]], ast.IfExp(node.test, a.value, b.value))
        return node


def same_behaviour(old: str, new: str) -> str | None:
    """How ``new`` differs from ``old`` without changing behaviour, in words (None: it changes some).

    Also None when the texts parse to the same tree (layout and comments only: the caller's own
    rule), or either does not parse.
    """
    try:
        before, after = parsed(old), parsed(new)
    except (SyntaxError, ValueError, RecursionError):
        return None
    if old == new or dumped(old) == dumped(new):
        return None
    if (same := _verdict(before, after)) is not None:
        return same
    branches = _Branches()
    a, b = branches.visit(fresh(old)), branches.visit(fresh(new))
    if ast.dump(a) == dumped(old) and ast.dump(b) == dumped(new):
        return None  # no choice spelled as an if/else: the change stands
    if ast.dump(a) == ast.dump(b) or _verdict(a, b) is not None:
        return "it only spells a choice as an if/else that makes the same choice"
    return None


def _verdict(before: ast.Module, after: ast.Module) -> str | None:
    """:func:`same_behaviour` of two trees as they are: docstrings aside, constants folded."""
    found = _Differences()
    if not found.bodies(before.body, after.body):
        return None
    if not found.pairs:
        return "it changes only docstrings, comments or layout" if found.docstrings else None
    calls = {n.func.id for pair in found.pairs for side in pair for n in ast.walk(side)
             if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
    bound = (set(bindings(before)) | set(bindings(after))) & set(_PURE) if calls & set(_PURE) else set()
    for x, y in found.pairs:
        fold = _Fold(bound)
        if ast.dump(fold.visit(copy.deepcopy(x))) != ast.dump(fold.visit(copy.deepcopy(y))):
            return None
    pair = _first_difference(*found.pairs[0])
    if pair is None:
        return "it only rewrites expressions as others of the same value"
    x, y = pair
    return f"it only rewrites {ast.unparse(x)} as {ast.unparse(y)}, which has the same value"


def _first_difference(a: ast.AST, b: ast.AST) -> tuple[ast.expr, ast.expr] | None:
    """The outermost pair of expressions where two trees of the same shape differ (None: no such pair)."""
    if ast.dump(a) == ast.dump(b):
        return None
    if isinstance(a, ast.expr) and isinstance(b, ast.expr):
        return a, b
    for field in a._fields:
        x, y = getattr(a, field, None), getattr(b, field, None)
        xs, ys = (x, y) if isinstance(x, list) and isinstance(y, list) else ([x], [y])
        for p, q in zip(xs, ys, strict=False):
            if isinstance(p, ast.AST) and isinstance(q, ast.AST) and (found := _first_difference(p, q)) is not None:
                return found
    return None
