#!/usr/bin/env python3
"""The line question of a fix answered unchanged (coder.edit.run.linefix), its two forms side by side.

For every bug-fix task of ``coder bench --edits`` (the suite and the held-out set, each wording, auto mode's
region), the region as it stands is taken as the model's unchanged first reply; the retry's reason is computed as
``coder edit`` computes it (the instruction's examples, the module's upstream tests), and the question is asked of
a running server in both forms: ``explain`` (a sentence on what goes wrong, then the line) and ``line`` (the
line alone). Each answer is put in place and judged as ``coder edit --yes`` judges a reply, then by the task's
own judge. Prints a table and writes every answer to ``--out`` (real replies, for tests).

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
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from coder.bench.edits.run import UPSTREAM_TIMEOUT_S, _prepare, make_repo  # noqa: E402
from coder.bench.edits.tasks import TASKS  # noqa: E402
from coder.bench.edits.tasks_heldout import HELDOUT  # noqa: E402
from coder.bench.edits.upstream import test_command  # noqa: E402
from coder.edit.checks.user_commands import commands  # noqa: E402
from coder.edit.intent.model_read import Asker  # noqa: E402
from coder.edit.proposal import EditRequest  # noqa: E402
from coder.edit.run import linefix  # noqa: E402
from coder.edit.run.engine import EditEngine  # noqa: E402
from coder.edit.run.prompt import predicted_reply  # noqa: E402
from coder.errors import CoderError  # noqa: E402

FORMS = {"explain": True, "line": False}


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
        p = linefix.answered(request, why[1], asker(ask_url, key, log),
                             lambda reply: engine.evaluate(request, reply, finish_reason="stop"),
                             explain=FORMS[form])
        row.update(seconds=round(time.perf_counter() - started, 3), answer=log[0] if log else None)
        if p is None:
            return {**row, "outcome": "no answer"}
        if not (p.ok and p.changed and (p.scope is None or p.scope.ok)):
            return {**row, "outcome": "refused", "why": p.refusal or (p.scope.refusal() if p.scope else "")}
        judged, said = task.check(task.originals()[task.file], p.new)
        return {**row, "outcome": "correct" if judged else "wrong", "why": said, "diff": p.diff}
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


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
