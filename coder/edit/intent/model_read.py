"""The model's reading: asked once, when the grammar finds no action, a name could mean several symbols, or a
report of a fault in a long file names no place, or names only a long class (:func:`unplaced`).

The running model gets the instruction and the candidate symbols, and answers under a JSON
schema whose symbol fields are **enums of the real symbols** (``"none"`` included), so its reply
cannot name code that does not exist. The reply is short (about 30 tokens; at most
:data:`MAX_TOKENS`), sent at temperature 0 through the one request runner
(:func:`coder.backends.runtime.request.run_request`, by the caller's :class:`Asker`), with the
schema as ``response_format`` (llama-server, vLLM and SGLang accept the OpenAI form).

A reply that is not the schema's JSON leaves the grammar's reading as it was, with a note.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import replace
from typing import get_args

from coder.edit.intent.spec import ALL_KINDS, FIX_WHOLE_LINES, Action, ChangeKind, ChangeSpec, Symbol
from coder.edit.intent.symbols import SymbolTable

MAX_TOKENS = 60
CLASS_FIX_LINES = 100  # a fix said of a longer class is asked which method: the 1.5B rewrites 100 lines poorly
MAX_SYMBOLS = 60  # candidates beyond this are cut: the prompt stays short (the home file's first ones)
_ACTIONS: tuple[str, ...] = tuple(a for a in get_args(Action) if a != "unknown")
_ONLY: dict[str, frozenset[ChangeKind]] = {
    "docstring": frozenset({"docstrings"}), "comment": frozenset({"comments"}),
    "type_hints": frozenset({"annotations"}),
}

Message = dict[str, str]
Asker = Callable[[list[Message], dict[str, object], int], str]
"""Sends ``messages`` with the JSON ``schema`` and a ``max_tokens`` cap; returns the reply's text."""


def unplaced(spec: ChangeSpec, text: str) -> bool:
    """A report of a fault that names no place, in a file too long for one whole-file fix: the model says where.

    Without it such a fix went in windows: every window was sent the report, none got the mending of a single
    request, and the model, shown code without the fault, changed something there (run 19, modulefinder's
    globals: "reports every 'from package import x' as a missing module"). One function is what a fix changes.
    """
    if spec.action == "change" and spec.facts.fault and _one_class(spec):
        # "ParserBase hands handle_comment the text plus the first '-'": a class said as the culprit; the whole class
        # went to the model, whose reply dropped a method (tenth fresh set, run 24): which method, asked
        return spec.targets[0].end - spec.targets[0].start + 1 > CLASS_FIX_LINES
    return (spec.action == "change" and spec.facts.fault and not spec.targeted
            and len(text.splitlines()) > FIX_WHOLE_LINES)


def _one_class(spec: ChangeSpec) -> bool:
    return len(spec.targets) == 1 and spec.targets[0].kind == "class"


def candidates(spec: ChangeSpec, table: SymbolTable) -> list[Symbol]:
    """The symbols the model may pick from: those the ambiguous or doubtful words could mean, else the home file's
    (a fault's place: its functions and methods, since a class as a whole is no place a fix goes)."""
    picked = [s for w in (*spec.ambiguous, *spec.facts.doubtful) for s in table.lookup(w) if s.rel == table.home]
    if not picked and spec.facts.fault and _one_class(spec):  # the class's own methods
        owner = spec.targets[0].qualname
        picked = [s for s in table.in_file() if s.kind == "method" and s.qualname.rpartition(".")[0] == owner]
    if not picked:
        picked = [s for s in table.in_file() if s.kind != "class" or not spec.facts.fault]
    return list(dict.fromkeys(picked))[:MAX_SYMBOLS]


def schema(symbols: list[Symbol]) -> dict[str, object]:
    """The reply's JSON schema: an action, and a target that is one of ``symbols`` or "none"."""
    names = [s.qualname for s in symbols]
    return {
        "type": "object",
        "properties": {
            "action": {"type": "string", "enum": list(_ACTIONS)},
            "target": {"type": "string", "enum": [*names, "none"]},
        },
        "required": ["action", "target"],
        "additionalProperties": False,
    }


def messages(instruction: str, symbols: list[Symbol]) -> list[Message]:
    """The short prompt: the symbols, one per line, and the instruction."""
    listed = "\n".join(f"- {s.qualname} ({s.kind})" for s in symbols)
    return [
        {"role": "system", "content": "You read a code-editing instruction. Answer in JSON: the action it asks "
                                      "for, and the one symbol it is about (or \"none\" if it is about the whole "
                                      "file)."},
        {"role": "user", "content": f"Symbols of the file:\n{listed}\n\nInstruction: {instruction}"},
    ]


def parse(reply: str, symbols: list[Symbol]) -> tuple[Action, Symbol | None] | None:
    """(action, target) from the model's JSON reply; None when it is not the schema's shape."""
    try:
        data = json.loads(reply)
    except (json.JSONDecodeError, ValueError):
        return None
    if not isinstance(data, dict):
        return None
    action, target = data.get("action"), data.get("target")
    if action not in _ACTIONS or not isinstance(target, str):
        return None
    by_name = {s.qualname: s for s in symbols}
    if target != "none" and target not in by_name:
        return None
    return action, by_name.get(target)


def model_read(spec: ChangeSpec, table: SymbolTable, ask: Asker) -> ChangeSpec:
    """``spec`` settled by one model request; the grammar's reading, with a note, when the reply is unusable."""
    symbols = candidates(spec, table)
    started = time.perf_counter()
    try:
        reply = ask(messages(spec.instruction, symbols), schema(symbols), MAX_TOKENS)
    except Exception as exc:  # noqa: BLE001 - the reading falls back to the grammar's, whatever failed
        return replace(spec, notes=(*spec.notes, f"the model could not be asked ({type(exc).__name__}: {exc})"))
    took = time.perf_counter() - started
    got = parse(reply, symbols)
    if got is None:
        return replace(spec, notes=(*spec.notes, f"the model's reading was not usable: {reply[:80]!r}"))
    action, target = got
    targets: tuple[Symbol, ...] = (target,) if target is not None else ()
    if spec.ambiguous and target is not None:
        # asked which of one word's symbols: the names the grammar was sure of stay ("docstrings to put and join")
        targets = tuple(dict.fromkeys((*spec.targets, target)))
    # asked which name or where: the grammar's action stands (a fault stays a change, whatever the model calls it)
    kept_action = spec.action if spec.action != "unknown" and (spec.ambiguous or spec.facts.fault) else action
    allows = _ONLY.get(kept_action, ALL_KINDS) if kept_action != spec.action else spec.allows
    return replace(spec, action=kept_action, targets=targets or spec.targets, allows=allows, read_by="model",
                   ambiguous=(), reach="symbol" if targets else spec.reach, seconds=took,
                   notes=(*spec.notes, f"read by the model in {took:.2f}s: {reply.strip()}"))
