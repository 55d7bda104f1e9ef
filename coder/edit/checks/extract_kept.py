"""An extraction moves code: none of the lines it takes out of a function may vanish on the way.

Seen applied on the H200 (run 9, held-out copy-extract w1): asked to extract ``_apply_state(y, state)`` from
``_reconstruct``, the 1.5B moved the ``__setstate__`` / ``__dict__`` / slots handling into the new function
and dropped ``if deep: state = deepcopy(state, memo)`` on the way, in neither function. The file parses,
both functions exist, the new one is called, and every deep copy of an object with state now shares it.

So for an extraction, each simple statement (an assignment, a call, a raise...) of the functions it takes
code from must still be in the file after the edit, in those functions or in the new one, as the same
syntax tree (once is enough: code two callers shared is one copy in the new function). A ``return`` or
``pass`` may change, and ``x = [x]`` may come back as the new function's ``return [x]`` (what the caller
assigns from it).
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from coder.edit.source.trees import parsed, top_defs

if TYPE_CHECKING:
    from coder.edit.intent.spec import ChangeSpec

_COMPOUND = (ast.If, ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith, ast.Try, ast.FunctionDef,
             ast.AsyncFunctionDef, ast.ClassDef, ast.Match)
_FREE = (ast.Return, ast.Pass)


def dropped_in_extraction(old: str, new: str, spec: ChangeSpec) -> str | None:
    """Why an extraction lost a statement of the functions it takes code from (None: every one is still there)."""
    if spec.action != "extract" or not spec.targets:
        return None
    try:
        before, after = parsed(old), parsed(new)
    except (SyntaxError, ValueError, RecursionError):
        return None
    sources = {t.qualname for t in spec.targets}
    made = {n for n in (*spec.new_names, spec.facts.extract_into) if n}
    # as sets: extracting a block two callers share leaves one copy of it, in the new function
    lost = {ast.dump(s) for s in _statements(before, sources)} - {
        ast.dump(s) for s in _statements(after, sources | made)}
    # `x = [x]` may come back as the new function's `return [x]`: the caller assigns what it returns
    returned = {ast.dump(n.value) for n in ast.walk(after) if isinstance(n, ast.Return) and n.value is not None
                and _in(after, n, made)}
    lost = {d for d in lost if not _returned_as(d, before, sources, returned)}
    if lost and (renames := _passed_as(after, sources, made)):
        # `_check(self, name)` into `def _check(obj, name)`: the moved lines say obj where they said self
        kept = {ast.dump(s) for s in _statements(after, sources | made)}
        for s in _statements(before, sources):
            moved = _renamed(s, renames)
            if ast.dump(s) in lost and (ast.dump(moved) in kept or _returned_as(
                    ast.dump(moved), ast.Module([moved], []), {"<stmt>"}, returned, alone=True)):
                lost.discard(ast.dump(s))
    if not lost:
        return None
    text = next(ast.unparse(s) for s in _statements(before, sources) if ast.dump(s) in lost)
    return (f"the extraction dropped `{text}`: it is neither in {', '.join(sorted(sources))} nor in the new "
            "function any more (an extraction moves lines, it does not drop them)")


def _in(tree: ast.Module, node: ast.AST, names: set[str]) -> bool:
    """True when ``node`` is inside one of the defs ``names`` of ``tree``."""
    return any(node in set(ast.walk(fn)) for qualname, fn in top_defs(tree) if qualname in names)


def _passed_as(tree: ast.Module, sources: set[str], made: set[str]) -> dict[str, str]:
    """The names the source functions pass to a new function, by its parameter's name: ``_check(self, name)`` of
    ``def _check(obj, name)`` gives ``{"self": "obj"}``."""
    defs = {q: fn for q, fn in top_defs(tree) if q in made and isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef)}
    out: dict[str, str] = {}
    for qualname, fn in top_defs(tree):
        if qualname not in sources:
            continue
        for call in (n for n in ast.walk(fn) if isinstance(n, ast.Call)):
            if not isinstance(call.func, ast.Name) or (callee := defs.get(call.func.id)) is None:
                continue
            params = [a.arg for a in (*callee.args.posonlyargs, *callee.args.args)]
            out.update((arg.id, p) for arg, p in zip(call.args, params, strict=False)
                       if isinstance(arg, ast.Name) and arg.id != p)
    return out


def _renamed(stmt: ast.stmt, renames: dict[str, str]) -> ast.stmt:
    """A copy of ``stmt`` with its names read under ``renames``."""
    copy = ast.parse(ast.unparse(stmt)).body[0]
    for node in ast.walk(copy):
        if isinstance(node, ast.Name) and node.id in renames:
            node.id = renames[node.id]
    return copy


def _returned_as(dump: str, tree: ast.Module, names: set[str], returned: set[str], *, alone: bool = False) -> bool:
    """True when the statement ``dump`` of ``tree`` is ``name = value`` and the new function returns ``value``
    (``alone``: ``tree`` is that one statement, in no def)."""
    for s in (tree.body if alone else _statements(tree, names)):
        if ast.dump(s) == dump and isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(
                s.targets[0], ast.Name):
            return ast.dump(s.value) in returned
    return False


def _statements(tree: ast.Module, names: set[str]) -> list[ast.stmt]:
    """The simple statements (no compound ones, no return or pass) inside the defs ``names`` of ``tree``."""
    out: list[ast.stmt] = []
    for qualname, fn in top_defs(tree):
        if qualname in names:
            out += [n for n in ast.walk(fn) if isinstance(n, ast.stmt) and n is not fn
                    and not isinstance(n, _COMPOUND + _FREE)]
    return out
