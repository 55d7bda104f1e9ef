"""Docstrings for several defs as a short structured question: the model says each one, coder writes them.

"Add a docstring to every method of the class TopologicalSorter that has none" went to the model as one
region per bare method (:mod:`coder.edit.plan.members`); on the H200 (run 9, Qwen2.5-Coder-1.5B) two
wordings of three were refused because the reply for ``__init__`` "repeats the lines shown before the
region", twice. What each docstring says is a short answer: one JSON object whose keys are the real names
of the defs that have none (``{"__init__": "...", "_find_cycle": "..."}``), under a schema that allows no
other key. coder writes each as a PEP 257 one-line docstring (wrapped when long) right under its def's
header, at its body's indentation; no other byte moves, and the result is checked like any reply.

It applies to the methods of a class the instruction asks documented ("every method of C"), to several
defs it names, and to every def of the file when it names none ("every function"; up to :data:`MAX_DEFS`
bare ones); one named def stays a region edit (run 9: 31 of 32 such pairs right, none wrong). Words that
reach the schema's maxLength (the grammar cut them), that are the def's name or one of its lines, or the
same for every def, are not written: the edit goes on as before (its region plan or request).
Pure: :mod:`coder.edit.run.asked` sends the question.
"""

from __future__ import annotations

import ast
import json
import textwrap
from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING

from coder.edit.checks.hints import header_colon
from coder.edit.plan.steps import Plan, Step
from coder.edit.source.trees import def_source, defs_by_name, parsed, top_defs

if TYPE_CHECKING:
    from coder.edit.intent.spec import ChangeSpec

MAX_DEFS = 12  # docstrings asked in one question
BODY_LINES = 40  # lines of each def shown: a long body is cut there
SHOWN_LINES = 240  # lines shown in all: with many defs each is cut shorter (a 4k-token context holds the prompt)
TEXT_CHARS = 200  # the maxLength: words reaching it were cut there (refused)
TOKENS_PER_DEF = 64  # ~40 tokens of words, the key and the JSON around them
WIDTH = 99  # a longer docstring is wrapped at this width
EXAMPLE = "Return the number of items in the queue."  # the prompt's example of a docstring, never written as one
Func = ast.FunctionDef | ast.AsyncFunctionDef


@dataclass(frozen=True)
class Question:
    """The defs that get a docstring (qualified name, key asked, def), and the file's lines."""

    defs: tuple[tuple[str, str, Func], ...]
    owner: str | None  # the class whose methods these are ("every method of C"); None: defs named one by one
    lines: tuple[str, ...]


def question(text: str, spec: ChangeSpec) -> Question | None:
    """The question for docstrings on a class's methods, several named defs or every def of the file; None when
    it does not apply."""
    if (spec.action != "docstring" or spec.allows != {"docstrings"} or spec.facts.module_doc
            or spec.reach == "everywhere" or any(t.rel != spec.targets[0].rel for t in spec.targets)):
        return None
    if (by_name := defs_by_name(text)) is None:
        return None
    owner = None
    if len(spec.targets) == 1 and spec.targets[0].kind == "class" and spec.facts.members:
        owner = spec.targets[0].qualname
        chosen = [(q, fn) for q, fn in by_name.items() if q.rpartition(".")[0] == owner]
        chosen = [(q, fn) for q, fn in chosen if ast.get_docstring(fn) is None]  # "every method": those with none
    elif len(spec.targets) > 1 and all(t.kind in ("function", "method") and t.qualname in by_name
                                       for t in spec.targets):
        chosen = [(t.qualname, by_name[t.qualname]) for t in spec.targets]
        if any(ast.get_docstring(fn) is not None for _, fn in chosen):
            return None  # a def that has one: replace or extend it? The region edit reads the instruction
    elif (not spec.targets and spec.facts.every_def and spec.owner is None and not spec.lines and not spec.ambiguous
          and spec.anchor is None):
        chosen = [(q, fn) for q, fn in by_name.items() if ast.get_docstring(fn) is None]  # "every function": the file's
    else:
        return None  # one named def: its region edit is right (run 9), and a class's own docstring is one too
    bound = Counter(q for q, _ in top_defs(parsed(text)))
    if not chosen or len(chosen) > MAX_DEFS or any(bound[q] > 1 for q, _ in chosen):
        return None  # none bare, too many, or a name bound twice (a property's setter): which def is meant?
    short = [q.rpartition(".")[2] for q, _ in chosen]
    keys = short if len(set(short)) == len(short) else [q for q, _ in chosen]
    lines = tuple(text.splitlines())
    for _, fn in chosen:
        colon = header_colon(text, fn.lineno)
        if colon is None or fn.body[0].lineno <= colon[0] or lines[colon[0] - 1].rstrip().endswith("\\"):
            return None  # "def f(self): return 1" (or "def f(self): \" and the body): no line under the header
    return Question(tuple((q, k, fn) for (q, fn), k in zip(chosen, keys, strict=True)), owner, lines)


def schema(q: Question) -> dict[str, object]:
    """The reply's JSON schema: exactly one key per def, each a short string."""
    words = {"type": "string", "minLength": 3, "maxLength": TEXT_CHARS}
    return {"type": "object", "properties": {key: words for _, key, _ in q.defs},
            "required": [key for _, key, _ in q.defs], "additionalProperties": False}


def max_tokens(q: Question) -> int:
    """The reply's token budget: a sentence per def."""
    return TOKENS_PER_DEF * len(q.defs) + 16


def messages(spec: ChangeSpec, q: Question) -> list[dict[str, str]]:
    """The short prompt: each def's source, the instruction (the prompt's only reader of it), what each key means."""
    shown, classes = [], set()
    for qualname, _, fn in q.defs:  # a method under its class's line, once: what "self" is
        owner = qualname.rpartition(".")[0]
        if owner and owner not in classes:
            classes.add(owner)
            shown.append(f"class {owner.rpartition('.')[2]}:\n    ...")
        shown.append(def_source(q.lines, fn, max(8, min(BODY_LINES, SHOWN_LINES // len(q.defs)))))
    sources = "\n\n".join(shown)
    keys = "\n".join(f"- {key}: the docstring of {qualname}" for qualname, key, _ in q.defs)
    return [
        {"role": "system", "content": "You write Python docstrings. Answer in JSON: for each key, the one-line "
                                      "docstring of that function: one short sentence in plain English saying "
                                      f"what it does, such as \"{EXAMPLE}\" "
                                      "No quotes, no code."},
        {"role": "user", "content": f"```python\n{sources}\n```\n\nInstruction: {spec.instruction}\n\nKeys:\n{keys}"},
    ]


def parse(reply: str, q: Question) -> dict[str, str] | str:
    """The words by qualified name from the model's JSON ``reply``, or why they cannot be written (one line)."""
    try:
        data = json.loads(reply)
    except (json.JSONDecodeError, ValueError):
        return f"the model's docstrings are not JSON: {reply[:60]!r}"
    if not isinstance(data, dict):
        return "the model's docstrings are not a JSON object"
    out: dict[str, str] = {}
    for qualname, key, fn in q.defs:
        text = data.get(key)
        if not isinstance(text, str):
            return f"the model gave no docstring for {key}"
        if len(text) >= TEXT_CHARS:  # the grammar closed the string at maxLength: a sentence cut short
            return f"the model's docstring for {key} was cut at {TEXT_CHARS} characters: {text[-40:]!r}"
        words = _words(text)
        if len(words) < 3 or "```" in words or any(len(w) > 60 for w in words.split()):
            return f"the model's docstring for {key} is not words: {text[:60]!r}"
        if _bare(words) == _bare(EXAMPLE):  # copied from the prompt (the CPU 1.5B did, for a queue's _qsize)
            return f"the model's docstring for {key} is the prompt's example: {words!r}"
        if _says_code(words, fn, q.lines):  # the name, the header or a line of the body: not a docstring
            return f"the model's docstring for {key} repeats the code: {words[:60]!r}"
        out[qualname] = words
    if len(out) > 1 and len(set(out.values())) == 1:
        return f"the model gave the same docstring for every def: {next(iter(out.values()))[:60]!r}"
    return out


def _words(text: str) -> str:
    """One line of prose: quotes around it, newlines and runs of spaces go; a capital first, a period last."""
    words = " ".join(text.split())
    for quote in ('"""', "'''", '"', "'"):
        if len(words) > 2 * len(quote) and words.startswith(quote) and words.endswith(quote):
            words = words[len(quote):-len(quote)].strip()
            break
    if not words:
        return words
    first = words.split()[0]
    if first.isalpha() and first.islower():  # "return the ..." (a name such as get_token is left as it is)
        words = words[0].upper() + words[1:]
    return words if words[-1] in ".!?" else f"{words}."


def _bare(text: str) -> str:
    """``text`` lower-cased, its brackets, colons and dots spaces, its runs of spaces one."""
    return " ".join(text.replace("(", " ").replace(")", " ").replace(":", " ").replace(".", " ").split()).lower()


def _says_code(words: str, fn: Func, lines: tuple[str, ...]) -> bool:
    """True when ``words`` are the def's name or one of its lines (its words in the same order)."""
    said = _bare(words)
    if said in (_bare(fn.name), _bare(fn.name.replace("_", " "))):
        return True
    body = lines[fn.lineno - 1:fn.end_lineno or fn.lineno]
    return any(len(code) >= 8 and code in said and len(said) < 2 * len(code) + 10
               for code in (_bare(line) for line in body))


def docstring_lines(lines: list[str], fn: Func, colon_row: int, words: str) -> str:
    """The docstring of ``words`` for right under the header ending on ``colon_row``: the body's indentation."""
    first = lines[fn.body[0].lineno - 1]
    indent = first[:len(first) - len(first.lstrip())]
    header = lines[colon_row - 1]
    eol = "\r\n" if header.endswith("\r\n") else "\n"
    body = words.replace("\\", "\\\\").replace('"""', '\\"\\"\\"')
    if body.endswith('"'):  # it would close the string early: """...""""
        body = body[:-1] + '\\"'
    if len(indent) + len(body) + 6 <= WIDTH:
        return f'{indent}"""{body}"""{eol}'
    wrapped = textwrap.wrap(body, max(WIDTH - len(indent) - 3, 40), break_long_words=False, break_on_hyphens=False)
    return f'{indent}"""{wrapped[0]}{eol}' + "".join(f"{indent}{part}{eol}" for part in wrapped[1:]) + \
        f'{indent}"""{eol}'


def write(text: str, q: Question, words: dict[str, str]) -> list[tuple[int, str]] | str:
    """Each docstring as (the line it goes above, its lines), or why they cannot be written."""
    lines = text.splitlines(keepends=True)
    out = []
    for qualname, _, fn in q.defs:
        colon = header_colon(text, fn.lineno)
        if colon is None:
            return f"the header of {qualname} could not be read"
        doc = docstring_lines(lines, fn, colon[0], words[qualname])
        try:  # what Python reads back is the words (escapes and wrapping undone): else nothing is written
            value = ast.literal_eval(doc.strip())
        except (SyntaxError, ValueError):
            return f"the docstring of {qualname} would not be a string: {doc.strip()[:60]!r}"
        if not isinstance(value, str) or " ".join(value.split()) != words[qualname]:
            return f"the docstring of {qualname} would not read back as the model's words"
        out.append((colon[0] + 1, doc))
    return out


def plan(rel: str, spec: ChangeSpec, q: Question, docs: list[tuple[int, str]], took: float) -> Plan:
    """The mechanical plan inserting each docstring under its def's header: no region request."""
    steps = tuple(Step(rel, row, row - 1, f"docstring of {qualname}", "the docstring's words named by the model",
                       "mechanical", symbol=qualname, text=doc)
                  for (qualname, _, _), (row, doc) in zip(q.defs, docs, strict=True))
    what = (f"{len(q.defs)} method(s) of {q.owner}" if q.owner is not None
            else f"{len(q.defs)} def(s) (" + ", ".join(qualname for qualname, _, _ in q.defs[:3])
            + (" ...)" if len(q.defs) > 3 else ")"))
    return Plan("docstrings", spec.instruction, steps,
                f"asked: docstrings of {what}: the model said the words in {took:.2f}s (JSON), written mechanically",
                spec=spec)
