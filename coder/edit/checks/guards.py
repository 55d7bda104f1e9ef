"""A fix that only adds a raise: a report of a wrong result answered with an error.

Seen applied on the H200 (Qwen2.5-Coder-1.5B, run 7 of 2026-12-03): told that after ``cancel`` the
scheduler's queue is no longer in time order, two wordings got ``if event not in self._queue: raise
ValueError(...)`` before ``self._queue.remove(event)`` and nothing else; the order stayed wrong. A
guard that raises changes what a caller sees only where the code used to go on, and the report
said nothing of an error to raise. So when the reading finds no word of an error in the instruction
(:attr:`coder.edit.intent.spec.Facts.errors`: "raise", "crash", "reject", "invalid", ``ValueError``...),
a change of code whose only difference is new ``if ...: raise`` or ``assert`` statements is refused,
and the one retry is told to change what the code computes.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from coder.edit.source.trees import fresh, parsed

if TYPE_CHECKING:
    from coder.edit.intent.spec import ChangeSpec


def _guard(node: ast.stmt) -> bool:
    """``if test: raise ...`` with no else (a body of only raises), or ``assert``."""
    if isinstance(node, ast.Assert):
        return True
    return isinstance(node, ast.If) and not node.orelse and all(isinstance(s, ast.Raise) for s in node.body)


class _Unguard(ast.NodeTransformer):
    """Drops every guard statement from the statement lists it visits (on a copy: it changes the tree)."""

    def __init__(self) -> None:
        self.dropped: list[ast.stmt] = []

    def generic_visit(self, node: ast.AST) -> ast.AST:
        for field in ("body", "orelse", "finalbody"):
            stmts = getattr(node, field, None)
            if isinstance(stmts, list) and stmts and all(isinstance(s, ast.stmt) for s in stmts):
                kept = [s for s in stmts if not _guard(s)]
                self.dropped += [s for s in stmts if _guard(s)]
                setattr(node, field, kept or [ast.Pass()])
        return super().generic_visit(node)


def only_guards_added(old: str, new: str, spec: ChangeSpec) -> str | None:
    """Why ``new`` answers ``spec``'s change with an error alone (None: it does more, or errors were asked)."""
    if spec.facts.errors or any(e.raises for e in spec.examples):
        return None
    try:
        parsed(old), parsed(new)  # both parse (shared trees): then each gets a fresh one to strip
    except (SyntaxError, ValueError, RecursionError):
        return None
    was, now = _Unguard(), _Unguard()
    a, b = was.visit(fresh(old)), now.visit(fresh(new))
    if len(now.dropped) <= len(was.dropped) or ast.dump(a) != ast.dump(b):
        return None
    olds = {ast.dump(s) for s in was.dropped}
    added = next((s for s in now.dropped if ast.dump(s) not in olds), now.dropped[-1])
    line = ast.unparse(added).splitlines()[0].removesuffix(":")
    return f"the reply only adds a check that raises one (`{line}`): what the code computes is unchanged"


def unasked_raises(old: str, new: str, spec: ChangeSpec) -> str | None:
    """Why a new parameter's change raises where the instruction asks for no error (None: it raises nothing new,
    or errors were asked). Seen on the 2-core CPU (tenth fresh set, run 24): "Could random.randint take an
    optional step, the way randrange does?" got ``randint(a, b, step=1)`` raising ``ValueError`` whenever
    ``b - a`` was no multiple of the step, and was applied."""
    if spec.action != "add_parameter" or spec.facts.errors or any(e.raises for e in spec.examples):
        return None
    try:
        before, after = parsed(old), parsed(new)
    except (SyntaxError, ValueError, RecursionError):
        return None
    had = {ast.dump(n) for n in ast.walk(before) if isinstance(n, ast.Raise)}
    added = [n for n in ast.walk(after) if isinstance(n, ast.Raise) and ast.dump(n) not in had]
    if not added:
        return None
    return f"the instruction asks for no error, but the change raises one (`{ast.unparse(added[0])}`)"
