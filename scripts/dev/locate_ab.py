#!/usr/bin/env python3
"""Which function holds the bug? The model asked to pick one, two forms side by side: an experiment, not in coder.

On the H200 (run 12, docs/benchmarks/2026-12-04-h200-edits-run12.md) 10 of the 42 bug-report pairs of
``coder bench --edits`` sent the model a region that is not the function with the bug: the whole file, a span of
several functions, or the caller where the symptom shows (``deepcopy`` for a bug in ``_deepcopy_dict``). All 10
were refused. This asks, for every bug-report pair (the suite and the held-out set, each wording), one short
question under a JSON schema whose ``function`` is an enum of the file's real functions and methods:

- ``names``: the file's functions and methods, one line each with its parameters, and the report;
- ``code``: the whole file, and the report.

Each answer is right when it names the function the bug was put in (the task's ``symbol``; any method of it when
that is a class). Greedy (temperature 0). Prints a line per question and a table; ``--out`` keeps every answer::

    .venv/bin/python scripts/dev/locate_ab.py --url http://127.0.0.1:8093 --out locate.json
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from coder.bench.edits.taskdef import source  # noqa: E402
from coder.bench.edits.tasks import TASKS  # noqa: E402
from coder.bench.edits.tasks_heldout import HELDOUT  # noqa: E402
from coder.edit.intent.symbols import file_symbols  # noqa: E402
from scripts.dev.linefix_ab import asker  # noqa: E402

FORMS = ("names", "code")
MAX_TOKENS = 40  # {"function": "Repr._repr_iterable"} and the grammar's spaces
SYSTEM = "You find where a reported bug is in a Python file. Answer only with the JSON asked for."


def functions(rel: str, text: str) -> list[tuple[str, str]]:
    """``(qualname, one line: its def with parameters)`` for every function and method of the file."""
    lines = text.splitlines()
    out = []
    for s in file_symbols(rel, text):
        if s.kind in ("function", "method"):
            head = lines[s.start - 1].strip() if 0 < s.start <= len(lines) else s.qualname
            out.append((s.qualname, head))
    return out


def question(form: str, rel: str, text: str, report: str) -> tuple[list[dict[str, str]], dict[str, object]]:
    """The messages and schema of one question."""
    found = functions(rel, text)
    if form == "names":
        shown = "Functions and methods of " + rel + ":\n" + "\n".join(f"- {q}: {head}" for q, head in found)
    else:
        shown = f"File {rel}:\n```python\n{text}```"
    user = (f"{shown}\n\nBug report: {report.strip()}\n\n"
            "Which one function or method holds the code that causes this bug?")
    schema: dict[str, object] = {
        "type": "object",
        "properties": {"function": {"type": "string", "enum": [q for q, _ in found]}},
        "required": ["function"],
        "additionalProperties": False,
    }
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}], schema


def right(task: Any, answer: str | None) -> bool:
    """Whether ``answer`` names the function the bug was put in (any method of it, when that is a class)."""
    text = source(task.file)
    classes = {n.name for n in ast.walk(ast.parse(text)) if isinstance(n, ast.ClassDef)}
    symbol = str(task.symbol)
    return answer == symbol or (symbol in classes and bool(answer) and str(answer).startswith(symbol + "."))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--url", required=True, help="a running llama-server (or any OpenAI-style server)")
    ap.add_argument("--key", help="its API key, if it has one")
    ap.add_argument("--forms", default=",".join(FORMS))
    ap.add_argument("--only", default="", help="comma-separated task names (default: every bug-report task)")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    forms, only = args.forms.split(","), {t for t in args.only.split(",") if t}
    rows: list[dict[str, object]] = []
    log: list[str] = []
    ask = asker(args.url, args.key, log)  # greedy, under the schema (the line question's request)
    for task in (*TASKS, *HELDOUT):
        if task.kind != "bugfix" or (only and task.name not in only):
            continue
        text = source(task.file)
        for wording, report in enumerate(task.wordings):
            for form in forms:
                messages, schema = question(form, task.file, text, report)
                started = time.perf_counter()
                reply = ask(messages, schema, MAX_TOKENS)
                try:
                    answer = json.loads(reply).get("function")
                except (json.JSONDecodeError, AttributeError):
                    answer = None
                row = {"task": task.name, "wording": wording, "form": form, "answer": answer, "bug_in": task.symbol,
                       "right": right(task, answer), "seconds": round(time.perf_counter() - started, 2)}
                rows.append(row)
                print(f"{form:6} {task.name:24} w{wording} {'right' if row['right'] else 'WRONG':6} "
                      f"{answer} (bug in {task.symbol}) {row['seconds']} s", flush=True)
        if args.out:
            args.out.write_text(json.dumps({"rows": rows}, indent=1))
    print(f"\n{'form':6} {'right':>6} {'of':>4} {'median s':>9}")
    for form in forms:
        mine = [r for r in rows if r["form"] == form]
        secs = sorted(float(str(r["seconds"])) for r in mine)
        print(f"{form:6} {Counter(bool(r['right']) for r in mine)[True]:>6} {len(mine):>4} "
              f"{(secs[len(secs) // 2] if secs else 0.0):>9.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
