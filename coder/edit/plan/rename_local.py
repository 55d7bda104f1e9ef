"""A rename confined to one def ("in MimeTypes.guess_type rename the local type to mime_type"), by scope analysis.

:func:`coder.edit.plan.rename_scope.ambiguity` looks at the whole file: a name several defs bind on their own
(``type``, a parameter of three methods and a local of a fourth) is not one symbol there, so the plan asked the
model, and the 1.5B renamed the word in the docstring too (seen applied wrong on the H200, run 16). When the
reading confines the rename to one def, only that def's lines change, and the token rename of them is exact when
every token of the old name on those lines is the def's own local variable (no parameter: its callers may
pass it by keyword): bound in its scope, seen free
(never rebound) by the scopes nested in it, and never an attribute, a keyword of a call, a string or a default
or decorator evaluated outside it.
"""

from __future__ import annotations

import ast
import symtable
from collections.abc import Sequence

from coder.edit.checks.result import PARSE_LOCK
from coder.edit.plan.rename_scope import binds, collect, name_tokens, scope_tables
from coder.edit.source.trees import top_defs


def confined_ambiguity(text: str, pairs: Sequence[tuple[str, str]], qualname: str) -> str | None:
    """None when renaming ``pairs`` on the lines of the def ``qualname`` alone is exact; else why not."""
    if not pairs:
        return "no rename"
    try:
        with PARSE_LOCK:
            tree = ast.parse(text)
            table = symtable.symtable(text, "<file>", "exec")
    except (SyntaxError, ValueError, RecursionError) as exc:
        return f"does not parse ({exc})"
    node = dict(top_defs(tree)).get(qualname)
    if node is None:
        return f"no def {qualname}"
    scope = next((t for t in scope_tables(table) if t.get_type() == "function"
                  and t.get_name() == node.name and t.get_lineno() == node.lineno), None)
    if scope is None:
        return f"no scope for {qualname}"
    start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
    end = node.end_lineno or node.lineno
    tokens = name_tokens(text, (start, end))
    for old, new in pairs:
        why = _not_own(tree, node, scope, tokens, old, new, qualname)
        if why is not None:
            return why
    return None


def _not_own(tree: ast.Module, node: ast.AST, scope: symtable.SymbolTable, tokens: dict[str, int], old: str,
             new: str, qualname: str) -> str | None:
    """Why renaming ``old`` to ``new`` on the def's lines is not exactly its own local's rename (None: it is)."""
    if tokens.get(new):
        return f"`{new}` is already used in {qualname}"
    if old not in scope.get_identifiers() or not binds(scope, old):
        return f"`{old}` is not a variable of {qualname}"
    if scope.lookup(old).is_parameter():  # its callers may pass it by keyword, anywhere
        return f"`{old}` is a parameter of {qualname}"
    for inner in scope_tables(scope):
        if inner is not scope and old in inner.get_identifiers() and not inner.lookup(old).is_free():
            return f"{inner.get_type()} {inner.get_name()} (line {inner.get_lineno()}) has its own `{old}`"
    inside = [u for u in collect(tree, old) if node in u.funcs]
    stray = next((u for u in inside if u.kind not in ("name", "arg")), None)
    if stray is not None:
        return f"line {getattr(stray.node, 'lineno', 0)}: `{old}` as a {stray.kind}"
    if len(inside) != tokens.get(old, 0):  # a default, decorator or annotation evaluated outside the def
        return f"{tokens.get(old, 0) - len(inside)} use(s) of `{old}` on its lines are not its own"
    return None

