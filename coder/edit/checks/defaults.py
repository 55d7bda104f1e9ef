"""A default changed to ``None`` must be handled: the half-done fix of a mutable default.

Seen applied on the 2-core CPU with Qwen2.5-Coder-1.5B: "getopt and gnu_getopt should take
longopts=None (None meaning no long options)" came back as ``def getopt(args, shortopts,
longopts = None)`` with the body unchanged, so ``getopt(['-a'], 'a')`` now raises TypeError in
``list(longopts)``. A body that does not test the parameter itself (``is None``, ``==``, truthiness, a
conditional, ``or``) uses ``None`` as it used the old default, which rarely does what the old
default did.
"""

from __future__ import annotations

import ast

_FUNC = (ast.FunctionDef, ast.AsyncFunctionDef)


def _defaults(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> dict[str, ast.expr]:
    """Each parameter with a default, and that default."""
    args = fn.args
    positional = [*args.posonlyargs, *args.args]
    out = {a.arg: d for a, d in zip(positional[len(positional) - len(args.defaults):], args.defaults, strict=True)}
    out.update({a.arg: d for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True) if d is not None})
    return out


def _is_none(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def _handles(fn: ast.FunctionDef | ast.AsyncFunctionDef, name: str) -> bool:
    """True when the body tests ``name`` itself: a comparison, a truth test, ``name or ...``."""
    def is_name(node: ast.AST) -> bool:
        return isinstance(node, ast.Name) and node.id == name

    for node in ast.walk(fn):
        if isinstance(node, ast.Compare) and (is_name(node.left) or any(is_name(c) for c in node.comparators)):
            return True
        if isinstance(node, (ast.If, ast.While, ast.IfExp, ast.Assert)) and is_name(node.test):
            return True
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not) and is_name(node.operand):
            return True
        if isinstance(node, ast.BoolOp) and any(is_name(v) for v in node.values):
            return True
    return False  # rebinding alone is no handling: getopt's `longopts = list(longopts)` still fails on None


def _functions(tree: ast.Module) -> dict[str, ast.FunctionDef | ast.AsyncFunctionDef]:
    out: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = {}

    def visit(body: list[ast.stmt], prefix: str) -> None:
        for node in body:
            if isinstance(node, _FUNC):
                out[prefix + node.name] = node
            elif isinstance(node, ast.ClassDef):
                visit(node.body, f"{prefix}{node.name}.")
    visit(tree.body, "")
    return out


def unhandled_none_defaults(old: str, new: str) -> str | None:
    """Why ``new`` gives a parameter the default ``None`` its function never handles (None: it does not)."""
    try:
        before, after = _functions(ast.parse(old)), _functions(ast.parse(new))
    except (SyntaxError, ValueError, RecursionError):
        return None
    for qual, fn in after.items():
        was = before.get(qual)
        if was is None:
            continue
        old_defaults = _defaults(was)
        for name, default in _defaults(fn).items():
            prior = old_defaults.get(name)
            if _is_none(default) and prior is not None and not _is_none(prior) and not _handles(fn, name):
                return (f"{qual}'s {name} now defaults to None, but {qual} never handles None "
                        f"(it used to default to {ast.unparse(prior)})")
    return None
