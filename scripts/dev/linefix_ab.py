#!/usr/bin/env python3
"""The line question for a bug fix answered unchanged, its two forms side by side: an experiment, not in coder.

A 1.5B model asked to rewrite a function with a bug in it copies the function back (14 suite pairs on the H200,
runs 6 and 7, again when asked once more). This asks instead a short question under a JSON schema whose
``line`` is an enum of the region's code lines: which line is wrong, and the code that replaces it, with
(``explain``) or without (``line``) a sentence first on what goes wrong. The answer is put in place and judged
as ``coder edit --yes`` judges a reply, then by the task's own judge.

For every bug-fix task of ``coder bench --edits`` (the suite and the held-out set, each wording, auto mode's
region), the region as it stands is taken as the model's unchanged first reply, and the retry's reason is
computed as ``coder edit`` computes it (the instruction's examples, the module's upstream tests). Prints a
table and writes every answer to ``--out`` (real replies). On the H200 (2026-12-03, run 8) neither form was a
net gain, so coder does not ask it: docs/benchmarks/2026-12-03-h200-edits-run8.md.

    .venv/bin/python scripts/dev/linefix_ab.py --url http://127.0.0.1:8093 --out linefix.json
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
import urllib.request
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from coder.bench.edits.run import UPSTREAM_TIMEOUT_S, _prepare, make_repo  # noqa: E402
from coder.bench.edits.tasks import TASKS  # noqa: E402
from coder.bench.edits.tasks_heldout import HELDOUT  # noqa: E402
from coder.bench.edits.upstream import test_command  # noqa: E402
from coder.edit.checks.user_commands import commands  # noqa: E402
from coder.edit.intent.model_read import Asker, Message  # noqa: E402
from coder.edit.proposal import UNCHANGED, EditProposal, EditRequest  # noqa: E402
from coder.edit.run.engine import EditEngine  # noqa: E402
from coder.edit.run.prompt import predicted_reply  # noqa: E402
from coder.errors import CoderError  # noqa: E402

FORMS = {"explain": True, "line": False}


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
    """The fix as the answer to the question, judged by ``evaluate`` (the engine's, as any reply); None when the
    answer names no line of the region or changes nothing.

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
    return proposal


def asker(url: str, key: str | None, log: list[str]) -> Asker:
    """A plain OpenAI-style chat request under the JSON schema, at temperature 0 (the reply is logged)."""
    def ask(messages: list[dict[str, str]], schema: dict[str, object], max_tokens: int) -> str:
        body = {"messages": messages, "max_tokens": max_tokens, "temperature": 0.0,
                "response_format": {"type": "json_schema", "json_schema": {"name": "line_fix", "schema": schema}}}
        headers = {"Content-Type": "application/json", **({"Authorization": f"Bearer {key}"} if key else {})}
        req = urllib.request.Request(f"{url.rstrip('/')}/v1/chat/completions", json.dumps(body).encode(), headers)
        with urllib.request.urlopen(req, timeout=300) as r:
            text = str(json.load(r)["choices"][0]["message"]["content"])
        log.append(text)
        return text
    return ask


def one(task: Any, wording: int, form: str, ask_url: str, key: str | None) -> dict[str, object]:
    """The row of one (task, wording) in one form."""
    tmp = Path(tempfile.mkdtemp(prefix="coder-linefix-"))
    try:
        make_repo(tmp, task)
        engine = EditEngine(None, tmp, ctx=32768, run_examples=True,
                            checks=commands(test_command(task.kind, task.file), None, UPSTREAM_TIMEOUT_S))
        row: dict[str, object] = {"task": task.name, "wording": wording, "form": form}
        try:
            request = _prepare(engine, task, "auto", tmp / task.file, task.wordings[wording])
        except CoderError as exc:  # refused before any request (an ambiguous name, with no model to read it)
            return {**row, "outcome": "not a region", "why": str(exc)}
        if not isinstance(request, EditRequest) or request.mode != "region":
            return {**row, "outcome": "not a region"}
        why = engine._why_again(engine.evaluate(request, predicted_reply(request.prompt), finish_reason="stop"))
        if why is None:
            return {**row, "outcome": "no retry"}
        log: list[str] = []
        started = time.perf_counter()
        p = answered(request, why[1], asker(ask_url, key, log),
                             lambda reply: engine.evaluate(request, reply, finish_reason="stop"),
                             explain=FORMS[form])
        row.update(seconds=round(time.perf_counter() - started, 3), answer=log[0] if log else None)
        if p is None:
            return {**row, "outcome": "no answer"}
        return {**row, **verdict(task, p)}
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def verdict(task: Any, p: EditProposal) -> dict[str, object]:
    """``outcome`` and ``why`` (and ``diff``) of ``p``: refused as ``coder edit --yes`` refuses it (a refusal, no
    change, the scope guard), else correct or wrong by the task's own judge. diagnose_ab.py judges with it too."""
    if not (p.ok and p.changed and (p.scope is None or p.scope.ok)):
        why = p.refusal or (p.scope.refusal() if p.scope else "") or ("unchanged" if p.ok else "")
        return {"outcome": "refused", "why": why}
    judged, said = task.check(task.originals()[task.file], p.new)
    return {"outcome": "correct" if judged else "wrong", "why": said, "diff": p.diff}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--url", required=True, help="a running llama-server (or any OpenAI-style server)")
    ap.add_argument("--key", help="its API key, if it has one")
    ap.add_argument("--forms", default="explain,line")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    rows = []
    for task in (*TASKS, *HELDOUT):
        if task.kind not in ("bugfix", "fix"):
            continue
        for wording in range(len(task.wordings)):
            for form in args.forms.split(","):
                row = one(task, wording, form, args.url, args.key)
                rows.append(row)
                print(f"{form:8} {task.name:26} w{wording} {row['outcome']:12} {str(row.get('why', ''))[:70]}",
                      flush=True)
    print(f"\n{'form':8} {'correct':>8} {'refused':>8} {'wrong':>6} {'no answer':>10} {'median s':>9}")
    for form in args.forms.split(","):
        mine = [r for r in rows if r["form"] == form and r["outcome"] not in ("not a region", "no retry")]
        c = Counter(str(r["outcome"]) for r in mine)
        secs = sorted(float(str(r["seconds"])) for r in mine if "seconds" in r)
        med = secs[len(secs) // 2] if secs else 0.0
        print(f"{form:8} {c['correct']:>8} {c['refused']:>8} {c['wrong']:>6} {c['no answer']:>10} {med:>9.2f}")
    if args.out:
        args.out.write_text(json.dumps({"rows": rows}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
