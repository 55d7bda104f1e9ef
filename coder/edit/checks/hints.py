"""A type-hints edit that gives some defs a return annotation gives one to every def it annotates.

Seen applied on the H200 (Qwen2.5-Coder-1.5B): "add type hints to all of NannyNag's methods" came back
with ``-> int`` and ``-> str`` on the three getters and no return annotation on ``__init__``. A
return left out next to others given is an oversight, not a choice (mypy then treats ``__init__``'s
return as unchecked). Judged among the defs whose annotations the edit changes: a def the request
names only in passing ("memo is the dict deepcopy passes around") and the edit leaves alone is not held.
"""

from __future__ import annotations

import ast
import io
import tokenize
from typing import TYPE_CHECKING

from coder.edit.checks.signature import Def, defs
from coder.edit.source.trees import parsed

if TYPE_CHECKING:
    from coder.edit.intent.spec import ChangeSpec


def type_notes(fn: Def) -> str:
    """Everything ``fn`` says about types: its parameters' annotations and its return's."""
    a = fn.args
    params = [p for p in [*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg] if p is not None]
    notes = [p.annotation or ast.Constant(None) for p in params] + [fn.returns or ast.Constant(None)]
    return ast.dump(ast.Tuple(notes))


def _annotated(old: str, new: str) -> tuple[dict[str, Def], dict[str, Def]] | None:
    """Every def of ``old`` and of ``new`` by qualified name; None when a text does not parse."""
    try:
        return ({q: fn for q, (fn, _) in defs(parsed(old)).items()},
                {q: fn for q, (fn, _) in defs(parsed(new)).items()})
    except (SyntaxError, ValueError, RecursionError):
        return None


def _returns(old: str, new: str, spec: ChangeSpec) -> tuple[list[str], list[str]] | None:
    """The defs a type-hints edit annotates, by name: (those given a return annotation, those left without).

    None when the spec asks for no type hints or a text does not parse."""
    both = _annotated(old, new) if spec.action == "type_hints" else None
    if both is None:
        return None
    before, after = both
    covered = [q for q, fn in after.items() if q in before and type_notes(before[q]) != type_notes(fn)]
    given = [q for q in covered if after[q].returns is not None and before[q].returns is None]
    return given, [q for q in covered if after[q].returns is None]


def partial_returns(old: str, new: str, spec: ChangeSpec) -> str | None:
    """Why ``new`` gives some defs it annotates a return annotation and leaves one without (None: it does not)."""
    given, bare = _returns(old, new, spec) or ([], [])
    if not given or not bare:
        return None
    return (f"{bare[0]} has no return annotation, while {', '.join(given[:3])} got one "
            "(the instruction asks for type hints on each of them)")


def partial_params(old: str, new: str, spec: ChangeSpec) -> str | None:
    """Why ``new`` annotates a def the instruction names and leaves some of its parameters bare (None: it does not).

    Seen on the 2-core CPU (run 23, ninth set's bdb-hints w1): "type-annotate bdb.effective(file, line, frame) ->
    tuple[...]" came back with the return annotated and no parameter. ``self`` and ``cls``, ``*args`` and
    ``**kwargs`` are not held; nor an instruction that asks for a return annotation alone."""
    both = _annotated(old, new) if spec.action == "type_hints" and not spec.facts.return_hint_only else None
    if both is None:
        return None
    before, after = both
    named = {t.qualname for t in spec.targets if t.kind != "class"}
    for q, fn in after.items():
        if q not in named or q not in before or type_notes(before[q]) == type_notes(fn):
            continue
        a = fn.args
        params = [*a.posonlyargs, *a.args, *a.kwonlyargs]
        if params and "." in q and params[0].arg in ("self", "cls"):
            params = params[1:]
        bare = [p.arg for p in params if p.annotation is None]
        if bare:
            return (f"{q} got hints, but its parameter{'s' if len(bare) > 1 else ''} {', '.join(bare)} "
                    f"{'have' if len(bare) > 1 else 'has'} none (the instruction asks for type hints on {q})")
    return None


def complete_init_returns(old: str, new: str, spec: ChangeSpec) -> str:
    """``new`` with ``-> None`` on each ``__init__`` a type-hints edit annotated but left without a return.

    The one return the rule above would refuse that has a single right answer: ``__init__`` returns None.
    Seen on the H200 in four of six class-hints wordings: every other method got its return annotation and
    ``__init__`` none. Any other def left bare is still refused (what it returns is the model's to say).
    """
    given, bare = _returns(old, new, spec) or ([], [])
    if not given:
        return new
    after = {q: fn for q, (fn, _) in defs(parsed(new)).items()}
    # an ``__init__(self)`` has nothing else to annotate, so the edit leaves it as it was: when it or its class is
    # a target ("annotate every method of Compile"), it is one of the defs asked for all the same (run 16, H200)
    classes = {t.qualname for t in spec.targets if t.kind == "class"}
    named = {t.qualname for t in spec.targets}
    asked = [q for q, fn in after.items() if fn.returns is None and (q in named or q.rpartition(".")[0] in classes)]
    rows = sorted({after[q].lineno for q in [*bare, *asked] if q.rsplit(".", 1)[-1] == "__init__"}, reverse=True)
    lines = new.splitlines(keepends=True)
    for row in rows:
        at = header_colon(new, row)
        if at is None:
            return new
        r, c = at
        lines[r - 1] = lines[r - 1][:c].rstrip(" ") + " -> None" + lines[r - 1][c:]
    return "".join(lines)


def header_colon(text: str, row: int) -> tuple[int, int] | None:
    """(row, column) of the ``:`` that ends the def (or class) header starting on ``row``."""
    depth = 0
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.start[0] < row or tok.type != tokenize.OP:
                continue
            if tok.string in "([{":
                depth += 1
            elif tok.string in ")]}":
                depth -= 1
            elif tok.string == ":" and depth == 0:
                return tok.start
    except (tokenize.TokenError, SyntaxError):
        return None
    return None
