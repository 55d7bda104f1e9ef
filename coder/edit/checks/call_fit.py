"""Calls that cannot bind to the def they call: the arity rule's signature test, calls on an instance made right
there, and calls of a class of the file (by name, or as ``type(self)`` in its own methods) against its ``__init__``.

Seen applied on the 2-core CPU (run 17, fresh3 code-param, both wordings): ``interact`` gained ``filename`` and
passed it on as ``console.interact(banner, exitmsg, filename)``, where ``console = InteractiveConsole(local)`` two
lines up and ``InteractiveConsole.interact`` takes two arguments. :func:`instance_call_problems` follows such a
local to its class: assigned once in the function, from a call of a class the module defines once, and called
with a method that class defines itself.
"""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Sequence

from coder.edit.source.attrs import FUNC


def mismatch(fn: ast.FunctionDef | ast.AsyncFunctionDef, call: ast.Call, bound: bool) -> str | None:
    """Why ``call`` cannot bind to ``fn``'s parameters (``bound``: the first one is self or cls); None: it can."""
    if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
        return None  # *args or **kwargs at the call: the count is not known
    spec = fn.args
    positional = [a.arg for a in [*spec.posonlyargs, *spec.args]][1 if bound else 0:]
    posonly = {a.arg for a in spec.posonlyargs}
    required = positional[:len(positional) - len(spec.defaults)]
    kwonly = {a.arg: d is not None for a, d in zip(spec.kwonlyargs, spec.kw_defaults, strict=True)}
    given = len(call.args)
    if given > len(positional) and spec.vararg is None:
        return f"takes {len(positional)} positional argument(s) but the call gives {given}"
    taken = set(positional[:given])
    for kw in call.keywords:
        name = kw.arg or ""
        if name in taken:
            return f"gets {name} twice"
        if (name not in positional or name in posonly) and name not in kwonly and spec.kwarg is None:
            return f"has no parameter {name}"
        taken.add(name)
    missing = [p for p in required if p not in taken] + [k for k, has in kwonly.items() if not has and k not in taken]
    return f"is called without {missing[0]}" if missing else None


def instance_call_problems(tree: ast.Module, bound: Counter[str]) -> Counter[str]:
    """Each ``x.m(...)`` where ``x = C(...)`` in the same function, C a class of the module (bound once there) and
    ``m`` its own plain method, whose arguments cannot bind; ``bound``: how often each name is bound in the module."""
    classes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef) and bound[n.name] == 1}
    out: Counter[str] = Counter()
    for fn in (n for n in ast.walk(tree) if isinstance(n, FUNC)):
        made: dict[str, ast.ClassDef] = {}
        stores: Counter[str] = Counter(n.id for n in ast.walk(fn) if isinstance(n, ast.Name)
                                       and not isinstance(n.ctx, ast.Load))
        for node in ast.walk(fn):
            if (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
                    and isinstance(node.value, ast.Call) and isinstance(node.value.func, ast.Name)
                    and node.value.func.id in classes and stores[node.targets[0].id] == 1):
                made[node.targets[0].id] = classes[node.value.func.id]
        for call in (n for n in ast.walk(fn) if isinstance(n, ast.Call)):
            f = call.func
            if not (isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id in made):
                continue
            cls = made[f.value.id]
            callee = next((m for m in cls.body if isinstance(m, FUNC) and m.name == f.attr), None)
            if callee is None or callee.decorator_list:
                continue  # inherited, a property, a static or wrapped method: its signature is not read here
            if (why := mismatch(callee, call, bound=True)) is not None:
                out[f"{cls.name}.{f.attr} {why}"] += 1
    return out


def constructor_problems(tree: ast.Module, every: Sequence[ast.AST], bound: Counter[str]) -> Counter[str]:
    """Each call of a class of this file whose arguments cannot bind to its own ``__init__``: ``C(...)``, and in a
    method of C, ``type(self)(...)`` or ``self.__class__(...)`` where no class of the file derives from C with an
    ``__init__`` or ``__new__`` of its own.

    "DbfilenameShelf(filename, flag, protocol, writeback, keyencoding)" (run 21, H100: a new parameter passed on to
    a class that takes none, applied); a new ``Random.clone`` returning ``type(self)(self.gauss_next,
    self._randbelow)`` (tenth fresh set, run 24, H200: applied, every call raised TypeError). Only classes bound
    once, undecorated, with no ``__new__`` and no metaclass.
    """
    inits = {n.name: init for n in tree.body if isinstance(n, ast.ClassDef) and not n.decorator_list
             and bound[n.name] == 1 and not n.keywords and (init := _own(n, "__init__")) is not None
             and _own(n, "__new__") is None}
    out: Counter[str] = Counter()
    for node in every:
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in inits and (
                why := mismatch(inits[node.func.id], node, bound=True)) is not None:
            out[f"{node.func.id}() {why}"] += 1
    # a subclass here with its own __init__ or __new__ may be what type(self) is
    derived = {b.id for n in every if isinstance(n, ast.ClassDef) and (_own(n, "__init__") or _own(n, "__new__"))
               for b in n.bases if isinstance(b, ast.Name)}
    for cls in (n for n in tree.body if isinstance(n, ast.ClassDef) and n.name in inits and n.name not in derived):
        for method in (m for m in cls.body if isinstance(m, FUNC) and m.args.args):
            me = method.args.args[0].arg
            for call in (n for n in ast.walk(method) if isinstance(n, ast.Call) and _own_class(n.func, me)):
                if (why := mismatch(inits[cls.name], call, bound=True)) is not None:
                    out[f"{cls.name}() {why}"] += 1
    return out


def _own_class(func: ast.expr, me: str) -> bool:
    """``func`` is ``type(me)`` or ``me.__class__``."""
    if isinstance(func, ast.Attribute):
        return func.attr == "__class__" and isinstance(func.value, ast.Name) and func.value.id == me
    return (isinstance(func, ast.Call) and isinstance(func.func, ast.Name) and func.func.id == "type"
            and len(func.args) == 1 and not func.keywords and isinstance(func.args[0], ast.Name)
            and func.args[0].id == me)


def _own(cls: ast.ClassDef, name: str) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The undecorated method ``name`` that ``cls`` defines itself (None: it inherits it, or wraps it)."""
    return next((n for n in cls.body if isinstance(n, FUNC) and n.name == name and not n.decorator_list), None)
