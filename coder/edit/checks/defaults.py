"""A default changed to ``None`` must be handled: the half-done fix of a mutable default.

Seen applied on the 2-core CPU with Qwen2.5-Coder-1.5B: "getopt and gnu_getopt should take
longopts=None (None meaning no long options)" came back as ``def getopt(args, shortopts,
longopts = None)`` with the body unchanged, so ``getopt(['-a'], 'a')`` now raises TypeError in
``list(longopts)``. A body that does not test the parameter itself (``is None``, ``==``, truthiness, a
conditional, ``or``) uses ``None`` as it used the old default, which rarely does what the old
default did.

The same holds for a parameter that defaulted to None all along: seen applied on the H200, "capwords
should join with sep" came back as ``sep.join(...)`` where ``sep=None``, so ``capwords(s)`` raises
AttributeError. A changed def that newly takes an attribute or an item of such a parameter, calls it
or iterates it, and never tests it, breaks every call that leaves it out.
"""

from __future__ import annotations

import ast

from coder.edit.checks.param_effect import param_defaults
from coder.edit.checks.signature import Def
from coder.edit.source.trees import parsed, same_node

_FUNC = (ast.FunctionDef, ast.AsyncFunctionDef)


def _is_none(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def _handles(fn: Def, name: str) -> bool:
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


def _functions(tree: ast.Module) -> dict[str, Def]:
    out: dict[str, Def] = {}

    def visit(body: list[ast.stmt], prefix: str) -> None:
        for node in body:
            if isinstance(node, _FUNC):
                out[prefix + node.name] = node
            elif isinstance(node, ast.ClassDef):
                visit(node.body, f"{prefix}{node.name}.")
    visit(tree.body, "")
    return out


def _pairs(old: str, new: str) -> list[tuple[str, Def | None, Def]]:
    """Each def of ``new`` with what it was in ``old`` (None: a new def); none when either does not parse."""
    try:
        before, after = _functions(parsed(old)), _functions(parsed(new))
    except (SyntaxError, ValueError, RecursionError):
        return []
    return [(qual, before.get(qual), fn) for qual, fn in after.items()]


def unhandled_none_defaults(old: str, new: str) -> str | None:
    """Why ``new`` gives a parameter the default ``None`` its function never handles (None: it does not)."""
    for qual, was, fn in _pairs(old, new):
        if was is None:
            continue
        old_defaults = param_defaults(was)
        for name, default in param_defaults(fn).items():
            prior = old_defaults.get(name)
            if _is_none(default) and prior is not None and not _is_none(prior) and not _handles(fn, name):
                return (f"{qual}'s {name} now defaults to None, but {qual} never handles None "
                        f"(it used to default to {ast.unparse(prior)})")
    return None


def _derefs(fn: Def, name: str) -> list[str]:
    """Each use of ``name`` that fails on None: ``name.x``, ``name[i]``, ``name(...)``, ``for _ in name``."""
    def is_name(node: ast.AST) -> bool:
        return isinstance(node, ast.Name) and node.id == name

    out = []
    for node in ast.walk(fn):
        if isinstance(node, ast.Attribute | ast.Subscript) and is_name(node.value):
            out.append(ast.unparse(node))
        elif isinstance(node, ast.Call) and is_name(node.func):
            out.append(f"{name}(...)")
        elif isinstance(node, ast.For | ast.AsyncFor | ast.comprehension) and is_name(node.iter):
            out.append(f"for ... in {name}")
    return out


def _rebinds(fn: Def, name: str) -> bool:
    return any(isinstance(n, ast.Name) and n.id == name and not isinstance(n.ctx, ast.Load) for n in ast.walk(fn))


def none_dereferenced(old: str, new: str) -> str | None:
    """Why a def of ``new`` now uses a parameter defaulting to None as a value, never testing it (None: none does)."""
    for qual, was, fn in _pairs(old, new):
        if was is not None and same_node(was, fn):
            continue
        for name, default in param_defaults(fn).items():
            if not _is_none(default) or _handles(fn, name) or _rebinds(fn, name):
                continue
            had = _derefs(was, name) if was is not None else []
            if had and was is not None and not _handles(was, name):
                continue  # it never worked without the argument: the None default is a placeholder
            gained = _derefs(fn, name)
            for use in had:
                if use in gained:
                    gained.remove(use)
            if gained:
                return (f"{qual} uses {gained[0]}, but {name} defaults to None and {qual} never handles None "
                        f"(a call without {name} fails)")
    return None
