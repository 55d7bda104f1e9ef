"""A bug fix answered unchanged: asked instead which line is wrong and what it should say.

On the H200 (Qwen2.5-Coder-1.5B, runs 6 and 7 of 2026-12-03), 14 of the suite's bug reports came back with the
function copied verbatim, and again after a retry that named what the code still does wrong: asked to rewrite a
function, the small model copies it. Asked a short structured question, it answers: the schema's ``line`` is an
enum of the region's own line numbers, so the answer names a real line, and ``fixed`` is the text that replaces
it (several lines where the fix needs them). coder puts that line in place and the result is judged as any reply:
the result checks, the instruction's own examples run before and after, the repository's tests where they run.

The question stands in for the second region request of :mod:`coder.edit.run.retry`; it is asked only where that
request would be the one for an unchanged fix, and its answer is at most :data:`MAX_TOKENS` tokens.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from coder.edit.intent.model_read import Asker, Message
from coder.edit.proposal import UNCHANGED, EditProposal, EditRequest
from coder.edit.run.prompt import predicted_reply

if TYPE_CHECKING:
    from coder.edit.run.engine import EditEngine

MAX_TOKENS = 260  # a sentence and a line or three of code, in JSON
WHY_CHARS = 200
MAX_LINES = 12  # a fix of more lines is a rewrite, which the region request is for
SYSTEM = ("You find the line of code that causes a reported bug, and write it corrected. "
          "Answer only with the JSON asked for.")


@dataclass(frozen=True)
class LineFix:
    """The answer: line ``line`` of the file (1-based) is to read ``fixed`` (one or more lines, no final newline)."""

    line: int
    fixed: str


def _numbered(request: EditRequest) -> tuple[list[int], str]:
    """The region's code line numbers (file numbering) and the region shown with them."""
    assert request.region is not None
    start = request.region.start
    lines = request.prompt.target.splitlines()
    code = [start + i for i, line in enumerate(lines) if line.strip() and not line.lstrip().startswith("#")]
    width = len(str(start + len(lines)))
    shown = "\n".join(f"{start + i:>{width}}| {line}" for i, line in enumerate(lines))
    return code, shown


def question(request: EditRequest, facts: str, *,
             explain: bool = True) -> tuple[list[Message], dict[str, object]]:
    """The messages and schema of the question for ``request`` (a region edit); ``facts``: what the code does
    wrong as it is (the retry's note: failing examples and tests), or empty.

    ``explain``: the answer first says in a sentence what goes wrong (``why``, at most :data:`WHY_CHARS`
    characters), then names the line. Without it, the 1.5B on the CPU named a line with a comment about a subtle
    case and wrote it back unchanged (``scripts/dev/linefix_ab.py`` measures both forms side by side)."""
    assert request.region is not None
    code, shown = _numbered(request)
    known = f"\nWhat the code does now: {facts}\n" if facts else ""
    say = "Say in one sentence what goes wrong, then which" if explain else "Which"
    user = (f"File {request.snapshot.rel}, {request.region.label}:\n\n{shown}\n\n"
            f"Bug report: {request.instruction.strip()}\n{known}\n"
            f"{say} one line is wrong: its number and the corrected code that replaces it, indented as in "
            "the file (more than one line if the fix needs lines added there).")
    fields: dict[str, object] = {"line": {"type": "integer", "enum": code}, "fixed": {"type": "string"}}
    if explain:
        fields = {"why": {"type": "string", "maxLength": WHY_CHARS}, **fields}
    schema: dict[str, object] = {
        "type": "object",
        "properties": fields,
        "required": list(fields),
        "additionalProperties": False,
    }
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}], schema


def parse(reply: str, request: EditRequest) -> LineFix | None:
    """The answer in ``reply``, when it is the schema's JSON naming a line of the region; None otherwise."""
    try:
        data = json.loads(reply)
    except (json.JSONDecodeError, RecursionError):
        return None
    if not isinstance(data, dict) or not isinstance(data.get("fixed"), str) or type(data.get("line")) is not int:
        return None
    code, _ = _numbered(request)
    fixed = data["fixed"].rstrip("\n")
    if data["line"] not in code or not fixed.strip() or len(fixed.splitlines()) > MAX_LINES:
        return None
    return LineFix(data["line"], fixed)


def target_with(request: EditRequest, fix: LineFix) -> str | None:
    """The region's text with ``fix`` put in, indented as the line it replaces; None when it changes nothing."""
    assert request.region is not None
    lines = request.prompt.target.splitlines(keepends=True)
    at = fix.line - request.region.start
    old = lines[at]
    indent = old[:len(old) - len(old.lstrip())]
    rows = fix.fixed.splitlines()
    first = rows[0]
    given = first[:len(first) - len(first.lstrip())]
    # the answer's own indentation moved to the line's: "return x" for an indented "    return y"
    shifted = [indent + row[len(given):] if row.startswith(given) and row.strip() else row for row in rows]
    new = "".join(row.rstrip() + "\n" for row in shifted)
    if new.rstrip("\n") == old.rstrip("\n"):
        return None
    return "".join(lines[:at]) + new + "".join(lines[at + 1:])


def answered(request: EditRequest, why: str, ask: Asker, evaluate: Callable[[str], EditProposal], *,
             explain: bool = True) -> EditProposal | None:
    """The fix as the answer to the question, judged by ``evaluate`` (the engine's, as any reply) and marked as
    the retry it stands for; None when the answer names no line of the region or changes nothing.

    ``why``: the retry's reason (:func:`coder.edit.run.retry.failing_now`: unchanged, and what the code does wrong).
    """
    messages, schema = question(request, why.removeprefix(UNCHANGED).lstrip("; "), explain=explain)
    fix = parse(ask(messages, schema, MAX_TOKENS), request)
    target = target_with(request, fix) if fix is not None else None
    if fix is None or target is None:
        return None
    started = time.perf_counter()
    proposal = evaluate(predicted_reply(replace(request.prompt, target=target)))
    proposal.validate_s = time.perf_counter() - started
    proposal.retried = f"{why}; asked which line is wrong instead: line {fix.line}"
    return proposal


def line_fixed(engine: EditEngine, proposal: EditProposal, why: tuple[str, str]) -> EditProposal | None:
    """:func:`answered` for ``engine``'s server (the question's time is the request's phase), judged by its
    :meth:`~coder.edit.run.engine.EditEngine.evaluate`."""
    from coder.edit.run.reading import schema_asker
    from coder.telemetry import timings

    return answered(proposal.request, why[1], schema_asker(engine.backend, timings.REQUEST, "line_fix"),
                    lambda reply: engine.evaluate(proposal.request, reply, finish_reason="stop"))
