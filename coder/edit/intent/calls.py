"""Which defs of a file a def calls, and whether it only hands its arguments on to them.

A bug report names the def it calls ("filter(['a', 'b'], '[!a]') returns ..."), which is not
always the def that holds the behaviour: ``filter`` hands its pattern to ``_compile_pattern``,
which hands it to ``translate``, and the negation is read there. A def that does nothing with a
parameter but pass it to calls (or, for ``self``, call its own methods with it) does not decide
what is done with that value; the defs of the file it calls may. :func:`file_calls` gives, for
each def of a Python file, the defs of the same file it calls and whether it hands a parameter on
that way; :mod:`coder.edit.intent.report` uses both to keep every def that may hold a reported
behaviour, rather than guess one.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

_Def = ast.FunctionDef | ast.AsyncFunctionDef


@dataclass(frozen=True)
class Calls:
    """One def's calls into its own file."""

    callees: tuple[str, ...]  # qualified names of the file's defs it calls, in the order of the calls
    hands_on: bool  # some parameter is only passed on to calls, one of them a def of the file
    # a module-level function that calls a method of its own name ("def fill(text, ...): ... w.fill(text)"):
    # a convenience wrapper, so its name may as well mean the method, which does the work
    wraps_method: bool = False
    # such a wrapper whose every return hands back that method's call as it is ("return w.fill(text)"): what
    # it returns is built by the method alone
    hands_back: bool = False


def file_calls(tree: ast.Module) -> dict[str, Calls]:
    """Each def's :class:`Calls` by qualified name (``C.m``, ``f.inner``), for a parsed Python file."""
    functions = {n.name for n in tree.body if isinstance(n, _Def)}
    out: dict[str, Calls] = {}

    def walk(body: list[ast.stmt], prefix: str, owner: ast.ClassDef | None) -> None:
        for node in body:
            if isinstance(node, _Def):
                methods = {m.name for m in owner.body if isinstance(m, _Def)} if owner is not None else set()
                out[prefix + node.name] = _calls(node, functions, methods, owner.name if owner else "")
                walk(node.body, prefix + node.name + ".", None)
            elif isinstance(node, ast.ClassDef):
                walk(node.body, prefix + node.name + ".", node)

    walk(tree.body, "", None)
    return out


def _callee(call: ast.Call, functions: set[str], methods: set[str], cls: str, me: str) -> str | None:
    """The file's def ``call`` calls: a module-level function by name, or ``self.m(...)`` of the same class."""
    f = call.func
    if isinstance(f, ast.Name) and f.id in functions:
        return f.id
    if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == me and f.attr in methods:
        return f"{cls}.{f.attr}"
    return None


def _calls(node: _Def, functions: set[str], methods: set[str], cls: str) -> Calls:
    args = node.args
    params = [a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)]
    me = params[0] if cls and params and not any(
        isinstance(d, ast.Name) and d.id == "staticmethod" for d in node.decorator_list) else ""
    callees: list[str] = []
    handed: dict[str, bool] = {p: False for p in params}  # passed to a def of the file at least once
    passed_ids: set[int] = set()  # the Name nodes that stand as a call's argument or as its receiver
    for sub in ast.walk(node):
        if not isinstance(sub, ast.Call):
            continue
        name = _callee(sub, functions, methods, cls, me)
        if name is not None:
            callees.append(name)
        given = [*sub.args, *(k.value for k in sub.keywords)]
        given = [g.value if isinstance(g, ast.Starred) else g for g in given]
        if isinstance(sub.func, ast.Attribute) and name is not None:
            given.append(sub.func.value)  # self.m(...): self is handed to m
        for g in given:
            if isinstance(g, ast.Name) and g.id in handed:
                passed_ids.add(id(g))
                handed[g.id] = handed[g.id] or name is not None
    used = {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
            and n.id in handed and id(n) not in passed_ids}  # a use of its own: it reads the value
    hands_on = any(handed[p] and p not in used for p in params)
    wraps = not cls and any(_of_name(c, node.name) for c in ast.walk(node))
    returns = [r.value for r in _returns(node)]
    hands_back = wraps and bool(returns) and all(_of_name(r, node.name) for r in returns)
    return Calls(tuple(dict.fromkeys(callees)), hands_on, wraps, hands_back)


def _of_name(node: ast.AST | None, name: str) -> bool:
    """Whether ``node`` is a call of a method called ``name`` (``w.fill(text)``, ``Timer(...).repeat(...)``)."""
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == name


def _returns(node: _Def) -> list[ast.Return]:
    """The return statements of ``node`` itself, not of the defs or classes nested in it."""
    out: list[ast.Return] = []
    todo: list[ast.AST] = list(node.body)
    while todo:
        sub = todo.pop()
        if isinstance(sub, ast.Return):
            out.append(sub)
        elif not isinstance(sub, _Def | ast.ClassDef | ast.Lambda):
            todo.extend(ast.iter_child_nodes(sub))
    return out
