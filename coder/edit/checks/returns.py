"""A new def that the instruction says gives something back must return a value.

Seen on the H200 (run 11, graphlib-method w2): "TopologicalSorter needs a node_count method: return the number
of nodes in the graph". The greedy reply was right (``return len(self._node2info)``), but one of the replies sampled
to check it returned None. The agreement check (:mod:`coder.edit.run.agree`) then found the two disagreeing and
refused the right edit. A def the instruction describes as returning something, and whose body never returns a
value, is not an answer to that instruction. So it is refused like any reply that breaks a rule, and a plan step
asks it once more; a sample that does so does not count as a passing one.

Only the defs the edit adds under a name the reading resolved as new (``spec.new_names``), only when the reading
found "return(s) ..." or a return annotation other than None (``spec.facts.returns``), and never a generator (its
values are yielded) or a def whose body only raises (a stub that says it is not written).
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from coder.edit.checks.signature import defs
from coder.edit.source.trees import parsed

if TYPE_CHECKING:
    from coder.edit.intent.spec import ChangeSpec

_Def = ast.FunctionDef | ast.AsyncFunctionDef


def returns_nothing(old: str, new: str, spec: ChangeSpec) -> str | None:
    """Why a def ``new`` adds, that ``spec`` says returns a value, cannot (None: each returns one, or none is due)."""
    if spec.action not in ("add_method", "add_function") or not spec.facts.returns or not spec.new_names:
        return None
    try:
        before, after = defs(parsed(old)), defs(parsed(new))
    except (SyntaxError, ValueError, RecursionError):
        return None
    for name in spec.new_names:
        for qual, (fn, _) in after.items():
            if qual.rsplit(".", 1)[-1] != name or qual in before or _gives_back(fn):
                continue
            return (f"{qual} never returns a value (every call of it gives None), but the instruction says what it "
                    f"returns")
    return None


def _gives_back(fn: _Def) -> bool:
    """Whether ``fn`` returns a value somewhere, yields, or only raises (a stub); nested defs are not its own."""
    if any(isinstance(s, ast.Raise) for s in fn.body) and all(isinstance(s, ast.Raise) or _docstring(s)
                                                              for s in fn.body):
        return True
    stack: list[ast.AST] = list(fn.body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Return) and node.value is not None \
                and not (isinstance(node.value, ast.Constant) and node.value.value is None):
            return True
        if isinstance(node, ast.Yield | ast.YieldFrom):
            return True
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef):
            stack.extend(ast.iter_child_nodes(node))
    return False


def _docstring(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str)
