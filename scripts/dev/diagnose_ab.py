#!/usr/bin/env python3
"""Bug fixes answered unchanged, asked again in two forms side by side: the same prompt sampled, or diagnosed first.

The 1.5B copies a region with a bug in it back verbatim, on the greedy retry and on samples at temperature 0.7
of the same prompt (run 9 on the H200: 19 of the suite's 30 bug pairs refused, 16 of them sampled). This takes,
for every bug-fix task of ``coder bench --edits`` (the suite and the held-out set, each wording, auto mode's
region), the region as it stands as the model's unchanged first reply, builds the retry as ``coder edit`` does
(the note says what the code does wrong now: the instruction's example, the module's upstream tests), and asks:

- ``same``: the retry's prompt, sampled (temperature 0.7, seed 1), what coder sampled until now;
- ``diagnose``: the retry's prompt ending with :data:`DIAGNOSE_ASK` (a sentence on the
  bug's cause, then the corrected region), greedy, then sampled with seeds 1 and 2.

Each reply is judged as ``coder edit --yes`` judges it (``EditEngine.evaluate``: examples, upstream tests), then by
the task's own judge. Prints a table, writes every reply to ``--out``::

    .venv/bin/python scripts/dev/diagnose_ab.py --url http://127.0.0.1:8093 --out diagnose.json
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
from dataclasses import replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from coder.bench.edits.run import UPSTREAM_TIMEOUT_S, _prepare, make_repo  # noqa: E402
from coder.bench.edits.tasks import TASKS  # noqa: E402
from coder.bench.edits.tasks_heldout import HELDOUT  # noqa: E402
from coder.bench.edits.upstream import test_command  # noqa: E402
from coder.edit.checks.user_commands import commands  # noqa: E402
from coder.edit.proposal import EditRequest  # noqa: E402
from coder.edit.run.engine import EditEngine  # noqa: E402
from coder.edit.run.prompt import REGION_ASK, EditPrompt, predicted_reply  # noqa: E402
from coder.errors import CoderError  # noqa: E402
from scripts.dev.linefix_ab import verdict  # noqa: E402

# The linefix experiment (run 8) found the 1.5B often names the case right when asked what goes wrong; text
# before the fence is not part of the reply's code (coder.edit.checks.reply.parse_fenced takes the first block).
DIAGNOSE_ASK = ("First say in one sentence which line causes the bug and why. Then reply with the complete "
                "corrected {what} in one fenced block, with that line fixed, and nothing after the block.")
# (form, diagnosed first, temperature, seed)
FORMS = (("same-s1", False, 0.7, 1), ("diag-t0", True, 0.0, None), ("diag-s1", True, 0.7, 1),
         ("diag-s2", True, 0.7, 2))


def diagnosing(prompt: EditPrompt, what: str) -> EditPrompt:
    """``prompt`` (a region's) asking for a sentence on the bug's cause before the corrected ``what``."""
    ask, told = REGION_ASK.format(what=what), DIAGNOSE_ASK.format(what=what)
    user = prompt.messages[-1]["content"]
    if not user.endswith(ask):
        raise SystemExit(f"the region prompt no longer ends with {ask!r}: update diagnosing()")
    messages = [*prompt.messages[:-1], {"role": "user", "content": user[:-len(ask)] + told}]
    return EditPrompt(messages=messages, fence=prompt.fence, lang=prompt.lang, target=prompt.target)


def chat(url: str, key: str | None, messages: list[dict[str, str]], max_tokens: int, temperature: float,
         seed: int | None) -> str:
    """One plain chat request; the reply's text."""
    body: dict[str, object] = {"messages": messages, "max_tokens": max_tokens, "temperature": temperature}
    if seed is not None:
        body["seed"] = seed
    headers = {"Content-Type": "application/json", **({"Authorization": f"Bearer {key}"} if key else {})}
    req = urllib.request.Request(f"{url.rstrip('/')}/v1/chat/completions", json.dumps(body).encode(), headers)
    with urllib.request.urlopen(req, timeout=600) as r:
        return str(json.load(r)["choices"][0]["message"]["content"])


def one(task: Any, wording: int, url: str, key: str | None, forms: list[str]) -> list[dict[str, object]]:
    """The rows of one (task, wording), one per form."""
    tmp = Path(tempfile.mkdtemp(prefix="coder-diagnose-"))
    base: dict[str, object] = {"task": task.name, "wording": wording}
    try:
        make_repo(tmp, task)
        engine = EditEngine(None, tmp, ctx=32768, run_examples=True,
                            checks=commands(test_command(task.kind, task.file), None, UPSTREAM_TIMEOUT_S))
        try:
            request = _prepare(engine, task, "auto", tmp / task.file, task.wordings[wording])
        except CoderError as exc:
            return [{**base, "outcome": "not a region", "why": str(exc)}]
        if not isinstance(request, EditRequest) or request.mode != "region" or request.region is None:
            return [{**base, "outcome": "not a region"}]
        first = engine.evaluate(request, predicted_reply(request.prompt), finish_reason="stop")
        why = engine._why_again(first)
        if why is None:
            return [{**base, "outcome": "no retry"}]
        retry = engine._again(first, *why)
        rows = []
        for form, diagnose, temperature, seed in FORMS:
            if form not in forms:
                continue
            asked = replace(retry, prompt=diagnosing(retry.prompt, retry.region.label)) if diagnose else retry
            started = time.perf_counter()
            reply = chat(url, key, asked.messages, asked.budget.max_tokens + 120, temperature, seed)
            seconds = round(time.perf_counter() - started, 2)
            p = engine.evaluate(asked, reply, finish_reason="stop")
            rows.append({**base, "form": form, "seconds": seconds, "reply": reply, **verdict(task, p)})
        return rows
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--url", required=True, help="a running llama-server (or any OpenAI-style server)")
    ap.add_argument("--key", help="its API key, if it has one")
    ap.add_argument("--forms", default=",".join(f[0] for f in FORMS))
    ap.add_argument("--only", default="", help="comma-separated task names (default: every bug-fix task)")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    forms, only = args.forms.split(","), {t for t in args.only.split(",") if t}
    rows: list[dict[str, object]] = []
    for task in (*TASKS, *HELDOUT):
        if task.kind not in ("bugfix", "fix") or (only and task.name not in only):
            continue
        for wording in range(len(task.wordings)):
            for row in one(task, wording, args.url, args.key, forms):
                rows.append(row)
                print(f"{row.get('form', '-')!s:8} {task.name:26} w{wording} {row['outcome']:12} "
                      f"{str(row.get('why', ''))[:80]}", flush=True)
            if args.out:
                args.out.write_text(json.dumps({"rows": rows}, indent=1))
    print(f"\n{'form':8} {'correct':>8} {'refused':>8} {'wrong':>6} {'median s':>9}")
    for form in forms:
        mine = [r for r in rows if r.get("form") == form]
        c = Counter(str(r["outcome"]) for r in mine)
        secs = sorted(float(str(r["seconds"])) for r in mine)
        med = secs[len(secs) // 2] if secs else 0.0
        print(f"{form:8} {c['correct']:>8} {c['refused']:>8} {c['wrong']:>6} {med:>9.2f}")
    # what sampling would give with the forms asked in order, the first that passes coder's checks taken
    pairs: dict[tuple[object, object], list[dict[str, object]]] = {}
    for r in rows:
        if "form" in r:
            pairs.setdefault((r["task"], r["wording"]), []).append(r)
    first = Counter(next((str(r["outcome"]) for r in rs if r["outcome"] != "refused"), "refused")
                    for rs in pairs.values())
    print(f"\nfirst passing form, in order {forms}: {dict(first)} of {len(pairs)} pairs")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
