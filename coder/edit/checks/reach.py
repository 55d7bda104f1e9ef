"""A change the spec holds to its targets changes the code of no other def.

A spec whose reach is ``symbol`` names the defs the change is about. Seen applied on the H200
(Qwen2.5-Coder-1.5B): asked to rename the local ``pieces`` to ``parts`` in ``Repr._repr_iterable``
("don't touch the other methods"), the model renamed ``pieces`` in ``repr_dict`` too; asked to rename
``i`` in ``Template._invalid``, it also renamed the loop variable ``i`` of ``Formatter.get_field``.
Each rename is harmless alone, but it is not what was asked, and the same drift elsewhere changes
code nobody looked at. A change of behaviour is not held here: the symptom an instruction names is
often in a function whose bug lies in a helper.

So, for type hints, a docstring, a comment, a new parameter, or a rename of a name local to its
targets: every def or class of the file that is not a target, does not hold one and is
not held by one (a class's own statements; a method of a class named) must keep its code. Docstrings,
comments and layout do not count, and neither do the arguments of calls to a target (a changed
signature's call sites follow it). Defs the edit adds or removes are other rules' business.
"""

from __future__ import annotations

import ast
import copy
from typing import TYPE_CHECKING

from coder.edit.source.trees import parsed

if TYPE_CHECKING:
    from coder.edit.intent.spec import ChangeSpec

_FUNC = (ast.FunctionDef, ast.AsyncFunctionDef)
# not "change": a bug is often fixed in a helper of the function whose symptom the instruction names
# (a dispatch table's entry, a subclass's override), so a fix reaches past its targets
_HELD = frozenset({"type_hints", "docstring", "comment", "add_parameter", "rename"})


def in_file(symbol_rel: str, rel: str) -> bool:
    """A symbol read from ``symbol_rel`` belongs to the file ``rel`` (compared as path suffixes)."""
    a, b = symbol_rel.replace("\\", "/"), rel.replace("\\", "/")
    return a == b or a.endswith("/" + b) or b.endswith("/" + a)


def _units(tree: ast.Module, lines: list[str]) -> dict[str, tuple[ast.AST, str]]:
    """Each def by qualified name (nested defs are part of theirs), with its text; a class stands for its own
    statements (its text is the whole class: when that is unchanged, so is all of it)."""
    out: dict[str, tuple[ast.AST, str]] = {}

    def text(node: ast.stmt) -> str:
        first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])
        return "\n".join(lines[first - 1:node.end_lineno or node.lineno])

    def visit(body: list[ast.stmt], prefix: str) -> None:
        for node in body:
            if isinstance(node, _FUNC):
                out.setdefault(prefix + node.name, (node, text(node)))
            elif isinstance(node, ast.ClassDef):
                own = copy.copy(node)
                own.body = [n for n in node.body if not isinstance(n, (*_FUNC, ast.ClassDef))]
                out.setdefault(prefix + node.name, (own, text(node)))
                visit(node.body, f"{prefix}{node.name}.")

    visit(tree.body, "")
    return out


class _Code(ast.NodeTransformer):
    """A def's code as compared here: no docstrings, and calls to the targets without their arguments."""

    def __init__(self, targets: set[str]) -> None:
        self.targets = targets

    def _body(self, node: ast.AST) -> ast.AST:
        body = getattr(node, "body", None)
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                and isinstance(body[0].value.value, str):
            node.body = body[1:]  # type: ignore[attr-defined]
        return self.generic_visit(node)

    visit_ClassDef = visit_FunctionDef = visit_AsyncFunctionDef = _body

    def visit_Call(self, node: ast.Call) -> ast.AST:
        f = node.func
        name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None
        if name in self.targets:
            return ast.Call(ast.Name("<a call to a target>", ast.Load()), [], [])
        return self.generic_visit(node)


def _code(node: ast.AST, targets: set[str]) -> str:
    return ast.dump(_Code(targets).visit(copy.deepcopy(node)))


def _local_names(tree: ast.Module, names: set[str]) -> bool:
    """Every one of ``names`` is bound only inside defs: no def, class, module name or attribute has it."""
    for node in ast.walk(tree):
        if isinstance(node, (*_FUNC, ast.ClassDef)) and node.name in names:
            return False
        if isinstance(node, ast.Attribute) and node.attr in names:
            return False
        if isinstance(node, ast.alias) and (node.asname or node.name).split(".")[0] in names:
            return False
    for node in tree.body:  # bound at module level (a global, a loop of the module)
        if not isinstance(node, (*_FUNC, ast.ClassDef)) and any(
                isinstance(n, ast.Name) and n.id in names and not isinstance(n.ctx, ast.Load) for n in ast.walk(node)):
            return False
    return True


def _covers(unit: str, target: str) -> bool:
    return unit == target or unit.startswith(target + ".") or target.startswith(unit + ".")


def outside_targets(old: str, new: str, spec: ChangeSpec, rel: str) -> str | None:
    """Why ``new`` changes the code of a def the spec does not reach (None: it changes none)."""
    targets = [t for t in spec.targets if in_file(t.rel, rel)]
    if spec.reach != "symbol" or spec.action not in _HELD or not targets:
        return None
    try:
        old_tree, new_tree = parsed(old), parsed(new)
    except (SyntaxError, ValueError, RecursionError):
        return None
    if spec.action == "rename" and not _local_names(old_tree, {a for a, _ in spec.renames}):
        return None  # a def, attribute or module name renamed: its uses anywhere follow it
    reached = [t.qualname for t in targets]
    for extra in (spec.owner, spec.anchor.symbol if spec.anchor is not None else None):
        if extra is not None and in_file(extra.rel, rel):
            reached.append(extra.qualname)
    names = {t.name for t in targets}
    before, after = _units(old_tree, old.splitlines()), _units(new_tree, new.splitlines())
    for qual, (node, text) in before.items():
        if qual not in after or after[qual][1] == text or any(_covers(qual, t) for t in reached):
            continue  # gone or new (other rules judge those), the same text, or reached
        if _code(node, names) != _code(after[qual][0], names):
            asked = ", ".join(t.qualname for t in targets)
            return f"it changes the code of {qual}, but the instruction asks to change only {asked}"
    return None


def reach_hint(spec: ChangeSpec) -> str:
    """What a retry is told about changes outside the targets."""
    asked = ", ".join(t.qualname for t in spec.targets)
    return f"Change only {asked}; leave every other function and class exactly as it was." if asked else ""
