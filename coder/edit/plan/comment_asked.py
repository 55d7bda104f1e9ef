"""A comment as a short structured question: the model says the words, coder writes them right above the line.

Asked for a comment, the 1.5B on the H200 sometimes answers the region unchanged, twice, puts the words in
the docstring, moves a ``return`` while adding them, or puts a comment asked *above* a line under it,
inside its block (runs 7 and 8). When the reading resolved the line ("above `if _find_unsafe(s) is None:`",
"above each while loop", "at the top of the body"; :mod:`coder.edit.intent.lines`), where the comment goes
is known, and what it says is a short answer: one JSON string per line, under a schema with one key per
line (``{"comment above line 122": "..."}``). coder writes ``# WORDS`` right above the line, at its
indentation; no other byte moves, and the result is checked like any reply.

Words that repeat the code line (the CPU 1.5B gave the line itself once) are not written, nor words that reach
the schema's maxLength (the grammar cut them there) before one whole sentence: the edit goes to the model as a
region instead. Of words cut after one, the whole sentences are written.
A comment no line of which is named stays a region edit: asked to pick the line from an enum of the
function's lines, the CPU 1.5B put "comment the INDENT branch's check" two lines above that check.
Pure: :mod:`coder.edit.run.asked` sends the question.
"""

from __future__ import annotations

import json
import re
import textwrap
from dataclasses import dataclass
from typing import TYPE_CHECKING

from coder.edit.plan.steps import Plan, Step

if TYPE_CHECKING:
    from coder.edit.intent.spec import ChangeSpec

MAX_LINES = 120  # of the def shown in the prompt
MAX_COMMENTS = 4  # lines one question asks words for ("above each while loop")
TEXT_CHARS = 200  # the maxLength: words reaching it were cut there (refused); 120 cut 3 of run 9's answers
WIDTH = 99  # a longer comment is wrapped onto several lines at this width
MAX_TOKENS = 320  # four comments of ~50 tokens and their keys


@dataclass(frozen=True)
class Question:
    """The lines a comment goes right above, and the def shown."""

    rows: tuple[int, ...]  # lines of the file
    code: str  # what each of them reads (stripped)
    source: str  # the anchored def's text


def anchored(text: str, spec: ChangeSpec) -> Question | None:
    """The question for a comment whose line the reading resolved; None when the spec names no line of its def."""
    anchor = spec.anchor
    if spec.action != "comment" or anchor is None or anchor.line is None or anchor.symbol is None:
        return None
    sym, lines = anchor.symbol, text.splitlines()
    rows = [n for n in range(sym.start, min(sym.end, len(lines)) + 1) if lines[n - 1].strip() == anchor.line]
    if not rows or len(rows) > MAX_COMMENTS:
        return None
    rows = rows if anchor.each else rows[:1]  # a line spelled out and found twice: its first, as the reading reads it
    return Question(tuple(rows), anchor.line, "\n".join(lines[sym.start - 1:min(sym.end, sym.start + MAX_LINES - 1)]))


def _key(n: int) -> str:
    return f"comment above line {n}"


def schema(q: Question) -> dict[str, object]:
    """The reply's JSON schema: the words for each line, one key per line."""
    words = {"type": "string", "minLength": 3, "maxLength": TEXT_CHARS}
    return {"type": "object", "properties": {_key(n): words for n in q.rows},
            "required": [_key(n) for n in q.rows], "additionalProperties": False}


def messages(spec: ChangeSpec, q: Question) -> list[dict[str, str]]:
    """The short prompt: the def, the instruction (the prompt's only reader of it), and the lines."""
    above = ", ".join(f"line {n} (`{q.code}`)" for n in q.rows)
    return [
        {"role": "system", "content": "You write Python comments. Answer in JSON: for each key, the words of "
                                      "the comment that goes right above that line: one short sentence saying "
                                      "what the instruction asks, plain English, no #."},
        {"role": "user", "content": f"```python\n{q.source}\n```\n\nInstruction: {spec.instruction}\n\n"
                                    f"The comment goes right above {above}."},
    ]


def parse(reply: str, q: Question) -> list[tuple[int, str]] | str:
    """``(line, words)`` for each line from the model's JSON ``reply``, or why they cannot be written (one line)."""
    try:
        data = json.loads(reply)
    except (json.JSONDecodeError, ValueError):
        return f"the model's comment is not JSON: {reply[:60]!r}"
    if not isinstance(data, dict):
        return "the model's comment is not a JSON object"
    out = []
    for n in q.rows:
        text = data.get(_key(n))
        if not isinstance(text, str):
            return f"the model gave no words for line {n}"
        words = " ".join(text.lstrip("#").split())  # one line of prose: newlines and runs of spaces go
        if len(words) < 3 or "```" in words:
            return f"the model's comment is not words: {text[:60]!r}"
        if len(text) >= TEXT_CHARS:  # the grammar closed the string at maxLength: a sentence cut short
            whole = whole_sentences(words)
            if whole is None:
                return f"the model's comment was cut at {TEXT_CHARS} characters: {words[-40:]!r}"
            words = whole
        if _says_code(words, q.code):  # seen: the CPU 1.5B gave the line itself
            return f"the model's comment repeats the code: {words[:60]!r}"
        out.append((n, words))
    return out


_SENTENCE_END = re.compile(r"[.!?](?=\s+[A-Z])")  # "e.g. the" and "s.split" are not ends: a capital follows


def whole_sentences(words: str) -> str | None:
    """The complete sentences before the cut of ``words`` (cut at maxLength); None when not even one is whole.

    Run 10 on the H200: asked for "a comment above the while loop in scheduler.run explaining it", the 1.5B
    said what the loop does in one sentence and went on ("... until the queue is empty. It is a loop that,")
    until the grammar closed the string; refused, the edit went to a region, whose reply ran to the token limit.
    The whole sentences are written as they came, and the one the cut broke is dropped. Run 11 wrote that comment
    as three sentences that all say the loop runs until the queue is empty: right, and wordier than asked.
    """
    ends = [m.end() for m in _SENTENCE_END.finditer(words)]
    kept = words[:ends[-1]].strip() if ends else ""
    return kept if len(kept.split()) >= 3 else None


def _says_code(words: str, code: str) -> bool:
    """True when ``words`` are the line's code (its words in the same order), not a comment about it."""
    def bare(t: str) -> str:
        return " ".join(t.replace("(", " ").replace(")", " ").replace(":", " ").split()).lower()
    return bare(code) in bare(words) and len(bare(words)) < 2 * len(bare(code)) + 10


def comment_lines(lines: list[str], n: int, words: str) -> str:
    """The comment ``# words`` for above line ``n`` of ``lines`` (with their ends): its indentation, wrapped."""
    line = lines[n - 1]
    eol = "\r\n" if line.endswith("\r\n") else "\n"
    indent = line[:len(line) - len(line.lstrip())]
    wrapped = textwrap.wrap(words, max(WIDTH - len(indent) - 2, 40)) or [words]
    return "".join(f"{indent}# {part}{eol}" for part in wrapped)


def plan(rel: str, spec: ChangeSpec, text: str, comments: list[tuple[int, str]], took: float) -> Plan:
    """The mechanical plan inserting each comment above its line: no region request."""
    lines = text.splitlines(keepends=True)
    symbol = spec.anchor.symbol.qualname if spec.anchor is not None and spec.anchor.symbol is not None else None
    steps = tuple(Step(rel, n, n - 1, f"above line {n}", "the comment's words named by the model", "mechanical",
                       symbol=symbol, text=comment_lines(lines, n, words)) for n, words in comments)
    where = spec.anchor.line if spec.anchor is not None else ""
    return Plan("comment", spec.instruction, steps,
                f"comment above `{where}`: the model said the words in {took:.2f}s (JSON), written mechanically",
                spec=spec)
