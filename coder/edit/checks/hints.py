"""A type-hints edit that gives some defs a return annotation gives one to every def it annotates.

Seen applied on the H200 (Qwen2.5-Coder-1.5B): "add type hints to all of NannyNag's methods" came back
with ``-> int`` and ``-> str`` on the three getters and no return annotation on ``__init__``. A
return left out next to others given is an oversight, not a choice (mypy then treats ``__init__``'s
return as unchecked). Judged among the defs whose annotations the edit changes: a def the request
names only in passing ("memo is the dict deepcopy passes around") and the edit leaves alone is not held.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from coder.edit.checks.signature import Def, defs
from coder.edit.checks.trees import parsed

if TYPE_CHECKING:
    from coder.edit.intent.spec import ChangeSpec


def _notes(fn: Def) -> str:
    """Everything ``fn`` says about types: its parameters' annotations and its return's."""
    a = fn.args
    params = [p for p in [*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg] if p is not None]
    notes = [p.annotation or ast.Constant(None) for p in params] + [fn.returns or ast.Constant(None)]
    return ast.dump(ast.Tuple(notes))


def partial_returns(old: str, new: str, spec: ChangeSpec) -> str | None:
    """Why ``new`` gives some defs it annotates a return annotation and leaves one without (None: it does not)."""
    if spec.action != "type_hints":
        return None
    try:
        before = {q: fn for q, (fn, _) in defs(parsed(old)).items()}
        after = {q: fn for q, (fn, _) in defs(parsed(new)).items()}
    except (SyntaxError, ValueError, RecursionError):
        return None
    covered = [q for q, fn in after.items() if q in before and _notes(before[q]) != _notes(fn)]
    given = [q for q in covered if after[q].returns is not None and before[q].returns is None]
    bare = [q for q in covered if after[q].returns is None]
    if not given or not bare:
        return None
    return (f"{bare[0]} has no return annotation, while {', '.join(given[:3])} got one "
            "(the instruction asks for type hints on each of them)")
