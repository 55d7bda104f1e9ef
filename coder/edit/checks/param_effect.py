"""What a new parameter does to the calls that leave it out, and whether its value is used at all.

Two kinds of wrong edit the 1.5B made on the fresh sets, both applied before these checks (run 16, H200):

- "let me pick the column separator in Cmd.columnize ... default stays two spaces" came back as
  ``sep=' '`` in place of the ``"  "`` the body joined with, so every existing call printed one space.
  :func:`default_changes_calls` puts the new default in place of the parameter, folds what that makes
  constant (``None is None``, ``if True:``), and compares the body with the old one: when the only
  differences are literals where the parameter stood, the default is not what the code did.
- "tell getuser() which environment variables to check" came back as ``if env_vars is None:`` around the
  old loop and nothing else: the list given is never looked in. :func:`value_unused` finds a parameter
  defaulting to ``None`` whose every use is a test against ``None`` or of its truth.

Anything the folding cannot line up (a restructured body, a parameter assigned to) proves nothing and
is let through: these checks only ever name a problem they can show.
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Iterator
from typing import Any

Def = ast.FunctionDef | ast.AsyncFunctionDef  # as coder.edit.checks.signature's, which imports this module
_SUBST = "_coder_substituted"  # marks a literal that stands where the parameter stood


def default_changes_calls(old: Def, new: Def, name: str, default: ast.expr) -> str | None:
    """Why calling ``new`` without ``name`` no longer does what ``old`` did (None: the same, or not shown)."""
    if not isinstance(default, ast.Constant) or _stored(new, name):
        return None
    body = _Fold(name, default.value).fold(copy.deepcopy(_code(new)))
    found: list[tuple[ast.Constant, ast.Constant]] = []
    if not _same(_code(old), body, found) or not found:
        return None
    was, now = found[0]
    return (f"called without {name}, {new.name} now uses {ast.unparse(now)} where it used {ast.unparse(was)}: "
            f"{name}'s default must keep what existing calls do ({name}={ast.unparse(was)})")


def value_unused(fn: Def, name: str, default: ast.expr) -> str | None:
    """Why ``name`` (defaulting to None) is never used for its value in ``fn``: only tested (None: it is used)."""
    # rebinding it proves nothing ("if argv is None: argv = sys.argv" with argv never read again, run 17 on the
    # CPU): what counts is whether any value it holds is read other than to test it
    if not (isinstance(default, ast.Constant) and default.value is None):
        return None
    loads = [n for n in _walk_code(fn) if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)]
    if not loads or any(not _tested(n, fn) for n in loads):
        return None
    return (f"{name} is only tested in {fn.name} (against None or for its truth); the value it is given is "
            f"never used")


def param_defaults(fn: Def) -> dict[str, ast.expr]:
    """Each parameter with a default, and that default."""
    args = fn.args
    positional = [*args.posonlyargs, *args.args]
    out = {a.arg: d for a, d in zip(positional[len(positional) - len(args.defaults):], args.defaults, strict=True)}
    out.update({a.arg: d for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True) if d is not None})
    return out


def _code(fn: Def) -> list[ast.stmt]:
    body = fn.body
    first = body[0] if body else None
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
        return body[1:]  # the docstring may say what the parameter does
    return body


def _walk_code(fn: Def) -> Iterator[ast.AST]:
    for stmt in _code(fn):
        yield from ast.walk(stmt)


def _stored(fn: Def, name: str) -> bool:
    return any(isinstance(n, ast.Name) and n.id == name and not isinstance(n.ctx, ast.Load) for n in _walk_code(fn))


def _tested(node: ast.AST, fn: Def) -> bool:
    """Whether ``node`` is compared with None, or stands as a condition (``if p:``, ``not p``, ``if p and q:``);
    ``p or default`` is a value, unless the whole ``or`` is a condition."""
    for parent in _walk_code(fn):
        if isinstance(parent, ast.Compare) and node in (parent.left, *parent.comparators):
            return all(isinstance(c, ast.Constant) and c.value is None for c in (parent.left, *parent.comparators)
                       if c is not node)
        if isinstance(parent, ast.If | ast.IfExp | ast.While | ast.Assert) and parent.test is node:
            return True
        if isinstance(parent, ast.UnaryOp) and isinstance(parent.op, ast.Not) and parent.operand is node:
            return True
        if isinstance(parent, ast.BoolOp) and node in parent.values:
            return _tested(parent, fn)
    return False


class _Fold(ast.NodeTransformer):
    """The parameter replaced by its default, and what that makes constant folded away."""

    def __init__(self, name: str, value: Any) -> None:
        self.name, self.value = name, value

    def fold(self, body: list[ast.stmt]) -> list[ast.stmt]:
        return self._stmts(body)

    def _stmts(self, body: list[ast.stmt]) -> list[ast.stmt]:
        out: list[ast.stmt] = []
        for stmt in body:
            stmt = self.visit(stmt)
            if isinstance(stmt, ast.If) and isinstance(stmt.test, ast.Constant):
                out += stmt.body if stmt.test.value else stmt.orelse
            elif not (isinstance(stmt, ast.While) and isinstance(stmt.test, ast.Constant) and not stmt.test.value):
                out.append(stmt)
        return out

    def generic_visit(self, node: ast.AST) -> ast.AST:
        for field, value in ast.iter_fields(node):
            if isinstance(value, list) and value and isinstance(value[0], ast.stmt):
                setattr(node, field, self._stmts(value))
            elif isinstance(value, list):
                setattr(node, field, [self.visit(v) if isinstance(v, ast.AST) else v for v in value])
            elif isinstance(value, ast.AST):
                setattr(node, field, self.visit(value))
        return node

    def visit_Name(self, node: ast.Name) -> ast.AST:
        if node.id != self.name or not isinstance(node.ctx, ast.Load):
            return node
        const = ast.Constant(self.value)
        setattr(const, _SUBST, True)
        return const

    def visit_Compare(self, node: ast.Compare) -> ast.AST:
        self.generic_visit(node)
        left, ops, right = node.left, node.ops, node.comparators
        if len(ops) != 1 or not (isinstance(left, ast.Constant) and isinstance(right[0], ast.Constant)):
            return node
        a, b, op = left.value, right[0].value, ops[0]
        if isinstance(op, ast.Is | ast.IsNot):
            return ast.Constant((a is b) == isinstance(op, ast.Is))
        if isinstance(op, ast.Eq | ast.NotEq):
            return ast.Constant((a == b) == isinstance(op, ast.Eq))
        return node

    def visit_UnaryOp(self, node: ast.UnaryOp) -> ast.AST:
        self.generic_visit(node)
        if isinstance(node.op, ast.Not) and isinstance(node.operand, ast.Constant):
            return ast.Constant(not node.operand.value)
        return node

    def visit_BoolOp(self, node: ast.BoolOp) -> ast.AST:
        self.generic_visit(node)
        first = node.values[0]
        if not isinstance(first, ast.Constant):
            return node
        decides = bool(first.value) if isinstance(node.op, ast.Or) else not first.value
        if decides:
            return first
        rest = node.values[1:]
        return rest[0] if len(rest) == 1 else ast.BoolOp(node.op, rest)

    def visit_IfExp(self, node: ast.IfExp) -> ast.AST:
        self.generic_visit(node)
        if isinstance(node.test, ast.Constant):
            return node.body if node.test.value else node.orelse
        return node


def _same(a: object, b: object, found: list[tuple[ast.Constant, ast.Constant]]) -> bool:
    """Whether ``b`` is ``a`` but for literals that stand where the parameter stood (each added to ``found``)."""
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y, found) for x, y in zip(a, b, strict=True))
    if not (isinstance(a, ast.AST) and isinstance(b, ast.AST)):
        return a == b
    if isinstance(a, ast.Constant) and isinstance(b, ast.Constant):
        if type(a.value) is type(b.value) and a.value == b.value:
            return True
        if getattr(b, _SUBST, False):
            found.append((a, b))
            return True
        return False
    if type(a) is not type(b):
        return False
    return all(_same(getattr(a, f, None), getattr(b, f, None), found) for f in a._fields
               if f not in ("ctx", "type_comment", "kind"))
