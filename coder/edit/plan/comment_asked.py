"""A comment as a short structured question: the model says the words (and, unanchored, the line); coder writes it.

Asked for a comment, the 1.5B on the H200 sometimes answers the region unchanged, twice ("capwords:
comment the return line, ..."; "in process_tokens, comment the INDENT branch's check: ..."), puts the
words in the docstring, moves a ``return`` while adding them, or puts a comment asked *above* a line under
it, inside its block (runs 7 and 8). Where the comment goes and what it says is a short answer:

* **anchored** (:func:`anchored`): the reading resolved the line ("above `if _find_unsafe(s) is None:`",
  "above each while loop", "at the top of the body"; :mod:`coder.edit.intent.lines`). Only the words are
  asked, one JSON string per line, and coder writes ``# WORDS`` right above it: the plan of a comment edit
  whenever a server runs (:mod:`coder.edit.run.asked`);
* **unanchored** (:func:`question`): a JSON list of ``{"above": LINE, "text": WORDS}`` whose ``LINE`` is an enum
  of the region's code lines (numbered, so each is one line of the file). Asked only when a comment edit's
  region requests were refused, flagged or unchanged after the retry.

Either way no other byte moves, and the result is checked like any reply (the placement check holds it to
where the instruction puts it). Words that reach the schema's maxLength were cut there and are refused.
Pure: :mod:`coder.edit.run.asked` sends the questions.
"""

from __future__ import annotations

import io
import json
import textwrap
import tokenize
from dataclasses import dataclass
from typing import TYPE_CHECKING

from coder.edit.plan.steps import Plan, Step

if TYPE_CHECKING:
    from coder.edit.intent.spec import ChangeSpec

MAX_LINES = 120  # a region longer than this is not offered line by line (the enum stays short)
MAX_COMMENTS = 4
TEXT_CHARS = 120  # the schema's maxLength: words that reach it were cut there by the grammar (refused)
SHOWN_CHARS = 72  # of each line in the enum: enough to tell lines apart
WIDTH = 99  # a longer comment is wrapped onto several lines at this width
MAX_TOKENS = 320  # four comments of 120 characters and their lines


@dataclass(frozen=True)
class Question:
    """The region's code lines a comment may go above, as the enum shows them."""

    choices: tuple[tuple[int, str], ...]  # (line of the file, "NN: code") for every code line offered
    every: bool = False  # the instruction's line anchor: a comment above each choice, the model says only the words
    source: str = ""  # the anchored def's text, shown instead of the numbered lines


def anchored(text: str, spec: ChangeSpec) -> Question | None:
    """The question for a comment whose line the reading resolved (:mod:`coder.edit.intent.lines`): words only.

    None when the spec has no line anchor, or the line is no longer in its def.
    """
    anchor = spec.anchor
    if spec.action != "comment" or anchor is None or anchor.line is None or anchor.symbol is None:
        return None
    sym, lines = anchor.symbol, text.splitlines()
    rows = [n for n in range(sym.start, min(sym.end, len(lines)) + 1) if lines[n - 1].strip() == anchor.line]
    if not rows or len(rows) > MAX_COMMENTS:
        return None
    rows = rows if anchor.each else rows[:1]  # a line spelled out and found twice: its first, as the reading reads it
    return Question(tuple((n, f"{n}: {anchor.line[:SHOWN_CHARS]}") for n in rows), every=True,
                    source="\n".join(lines[sym.start - 1:min(sym.end, sym.start + MAX_LINES - 1)]))


def question(text: str, spec: ChangeSpec, start: int, end: int) -> Question | None:
    """The lines of ``start``-``end`` a comment may go above; None when the spec asks for no comment."""
    if spec.action != "comment" or end < start or end - start + 1 > MAX_LINES:
        return None
    inside = _string_lines(text)
    lines = text.splitlines()
    choices = []
    for n in range(start, min(end, len(lines)) + 1):
        code = lines[n - 1].strip()
        if code and not code.startswith("#") and n not in inside:
            choices.append((n, f"{n}: {code[:SHOWN_CHARS]}"))
    return Question(tuple(choices)) if choices else None


def _string_lines(text: str) -> set[int]:
    """Lines inside a multi-line string after its first (a comment there would be part of the string)."""
    out: set[int] = set()
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type == tokenize.STRING and tok.end[0] > tok.start[0]:
                out.update(range(tok.start[0] + 1, tok.end[0] + 1))
    except (tokenize.TokenError, SyntaxError):
        pass
    return out


def schema(q: Question) -> dict[str, object]:
    """The reply's JSON schema: up to four comments, each above one of the offered lines; or, anchored, the words."""
    words = {"type": "string", "minLength": 3, "maxLength": TEXT_CHARS}
    if q.every:
        return {"type": "object", "properties": {_key(n): words for n, _ in q.choices},
                "required": [_key(n) for n, _ in q.choices], "additionalProperties": False}
    item = {"type": "object", "properties": {
        "above": {"type": "string", "enum": [shown for _, shown in q.choices]},
        "text": {"type": "string", "minLength": 3, "maxLength": TEXT_CHARS}},
        "required": ["above", "text"], "additionalProperties": False}
    return {"type": "object", "properties": {"comments": {"type": "array", "items": item, "minItems": 1,
                                                          "maxItems": MAX_COMMENTS}},
            "required": ["comments"], "additionalProperties": False}


def _key(n: int) -> str:
    return f"comment above line {n}"


def messages(spec: ChangeSpec, q: Question) -> list[dict[str, str]]:
    """The short prompt: the region's code lines, numbered as the enum numbers them, and the instruction."""
    if q.every:
        above = ", ".join(f"line {n} (`{shown.split(': ', 1)[1]}`)" for n, shown in q.choices)
        return [
            {"role": "system", "content": "You write Python comments. Answer in JSON: for each key, the words of "
                                          "the comment that goes right above that line: one short sentence saying "
                                          "what the instruction asks, plain English, no #."},
            {"role": "user", "content": f"```python\n{q.source}\n```\n\nInstruction: {spec.instruction}\n\n"
                                        f"The comment goes right above {above}."},
        ]
    listed = "\n".join(shown for _, shown in q.choices)
    return [
        {"role": "system", "content": "You add comments to Python code. Answer in JSON: for each comment the "
                                      "instruction asks for, the line it goes above (one of the listed lines) "
                                      "and its words: one short sentence saying what the instruction asks, "
                                      "plain English, no #."},
        {"role": "user", "content": f"Lines:\n{listed}\n\nInstruction: {spec.instruction}"},
    ]


def parse(reply: str, q: Question) -> list[tuple[int, str]] | str:
    """``(line, words)`` for each comment of the model's JSON ``reply``, or why it cannot be written (one line)."""
    try:
        data = json.loads(reply)
    except (json.JSONDecodeError, ValueError):
        return f"the model's comment is not JSON: {reply[:60]!r}"
    if q.every and isinstance(data, dict):  # anchored: the words for each line, keyed "line N"
        data = {"comments": [{"above": shown, "text": data.get(_key(n))} for n, shown in q.choices]}
    items = data.get("comments") if isinstance(data, dict) else None
    if not isinstance(items, list) or not items:
        return "the model gave no comment"
    by_shown = {shown: n for n, shown in q.choices}
    out: dict[int, str] = {}
    for item in items[:MAX_COMMENTS]:
        if not isinstance(item, dict) or item.get("above") not in by_shown or not isinstance(item.get("text"), str):
            return "the model's comment names no line of the region"
        words = " ".join(item["text"].lstrip("#").split())  # one line of prose: newlines and runs of spaces go
        if len(words) < 3 or "```" in words:
            return f"the model's comment is not words: {item['text'][:60]!r}"
        if _says_code(words, item["above"].split(": ", 1)[1]):  # seen: the CPU 1.5B gave the line itself
            return f"the model's comment repeats the code: {words[:60]!r}"
        if len(item["text"]) >= TEXT_CHARS:  # the grammar closed the string at maxLength: a sentence cut short
            return f"the model's comment was cut at {TEXT_CHARS} characters: {words[-40:]!r}"
        out.setdefault(by_shown[item["above"]], words)
    return sorted(out.items())


def _says_code(words: str, code: str) -> bool:
    """True when ``words`` are the line's code (its words in the same order), not a comment about it."""
    def bare(t: str) -> str:
        return " ".join(t.replace("(", " ").replace(")", " ").replace(":", " ").split()).lower()
    return bare(code) in bare(words) and len(bare(words)) < 2 * len(bare(code)) + 10


def write(text: str, comments: list[tuple[int, str]]) -> str:
    """``text`` with ``# words`` above each given line, at that line's indentation, wrapped at :data:`WIDTH`."""
    lines = text.splitlines(keepends=True)
    for n, words in sorted(comments, reverse=True):
        lines[n - 1:n - 1] = [comment_lines(lines, n, words)]
    return "".join(lines)


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
    steps = tuple(Step(rel, n, n - 1, f"above line {n}", "the comment's words named by the model", "mechanical",
                       symbol=spec.anchor.symbol.qualname if spec.anchor and spec.anchor.symbol else None,
                       text=comment_lines(lines, n, words)) for n, words in comments)
    where = spec.anchor.line if spec.anchor is not None else ""
    return Plan("comment", spec.instruction, steps,
                f"comment above `{where}`: the model said the words in {took:.2f}s (JSON), written mechanically",
                spec=spec)
