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


def attributes_set(cls: ast.ClassDef) -> list[str]:
    """The attributes any method of ``cls`` sets on self, sorted."""
    return sorted({a for n in cls.body if isinstance(n, FUNC) for a in self_attrs(n, store=True)})


def listed(names: list[str], limit: int = 8) -> str:
    """``self.a, self.b ...``: at most ``limit`` of ``names`` for a prompt or a reason."""
    return ", ".join(f"self.{name}" for name in names[:limit]) + (" ..." if len(names) > limit else "")
