"""What a class's methods set on ``self``: one reading for the add-method prompt and the result checks.

The plan tells the model which attributes a class keeps before it writes a new method (shown only the
class's last method, a small model guesses names such as ``self.nodes``); the check refuses a new method
that reads one the class never sets. Both read the class the same way here.
"""

from __future__ import annotations

import ast

FUNC = (ast.FunctionDef, ast.AsyncFunctionDef)


def self_name(method: ast.FunctionDef | ast.AsyncFunctionDef) -> str | None:
    """The instance parameter's name (None for a static or class method, or one without parameters)."""
    decorators = {d.id for d in method.decorator_list if isinstance(d, ast.Name)}
    if decorators & {"staticmethod", "classmethod"}:
        return None
    params = [*method.args.posonlyargs, *method.args.args]
    return params[0].arg if params else None


def self_attrs(method: ast.FunctionDef | ast.AsyncFunctionDef, store: bool) -> set[str]:
    """The attributes of ``self`` the method sets (``store``) or reads."""
    me = self_name(method)
    if me is None:
        return set()
    want = (ast.Store, ast.Del) if store else (ast.Load,)
    return {n.attr for n in ast.walk(method) if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)
            and n.value.id == me and isinstance(n.ctx, want)}


def sets_own_attributes(cls: ast.ClassDef) -> bool:
    """Whether ``cls`` calls ``setattr`` on itself or its instance (``setattr(self, ...)``, ``setattr(C, ...)``): then
    any attribute may exist. A ``setattr`` on another object (modulefinder's ``setattr(parent, name, m)``, run 19)
    says nothing of the class."""
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "setattr"
               and (not n.args or ast.unparse(n.args[0]) in ("self", cls.name)) for n in ast.walk(cls))


def attributes_set(cls: ast.ClassDef) -> list[str]:
    """The attributes any method of ``cls`` sets on self, sorted."""
    return sorted({a for n in cls.body if isinstance(n, FUNC) for a in self_attrs(n, store=True)})


def listed(names: list[str], limit: int = 8) -> str:
    """``self.a, self.b ...``: at most ``limit`` of ``names`` for a prompt or a reason."""
    return ", ".join(f"self.{name}" for name in names[:limit]) + (" ..." if len(names) > limit else "")


def init_values(cls: ast.ClassDef, width: int = 30) -> dict[str, str]:
    """``{attr: value}`` for each ``self.attr = <literal>`` statement of ``cls.__init__``'s own body, in order.

    Only literals (``6``, ``'...'``, ``()``, ``-1``) no wider than ``width``: what a method that puts the
    state back ("reset the limits to their defaults") must write, and what the model cannot guess.
    """
    init = next((n for n in cls.body if isinstance(n, FUNC) and n.name == "__init__"), None)
    me = self_name(init) if init is not None else None
    out: dict[str, str] = {}
    for stmt in init.body if init is not None and me is not None else []:
        value = stmt.value if isinstance(stmt, ast.Assign | ast.AnnAssign) else None
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target] if isinstance(stmt, ast.AnnAssign) \
            else []
        if value is None or len(targets) != 1:
            continue
        target = targets[0]
        if not (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == me):
            continue
        try:
            ast.literal_eval(value)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            continue
        if len(text := ast.unparse(value)) <= width:
            out.setdefault(target.attr, text)
    return out


def state_listed(cls: ast.ClassDef, limit: int = 12) -> str:
    """``self.a = 6, self.b ...``: the attributes the methods of ``cls`` set, with ``__init__``'s literal values
    (those first, in its order), at most ``limit``; empty when the methods set none."""
    values = init_values(cls)
    names = [*values, *(n for n in attributes_set(cls) if n not in values)]
    shown = [f"self.{n} = {values[n]}" if n in values else f"self.{n}" for n in names[:limit]]
    return ", ".join(shown) + (" ..." if len(names) > limit else "")
