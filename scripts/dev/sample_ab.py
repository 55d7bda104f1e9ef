#!/usr/bin/env python3
"""How often a sampled reply mends a fix the greedy retry left unchanged: an experiment beside coder.edit.run.sample.

For each bug-fix pair asked (``--pairs task:wording,...``; default every bug-fix pair of the suite and the
held-out set), the region as it stands is taken as the model's unchanged first reply and as its retry's
(what the 1.5B model answered on the H200 and on the CPU), the retry's prompt is built as ``coder edit``
builds it, and where an oracle fails on the code as it is (:func:`coder.edit.run.sample.due`), ``--n``
sampled replies are drawn through the engine's own stream (seeds and temperature as coder sends them unless
``--first-seed``/``--temperature`` say otherwise; no time budget). Each is judged as ``coder edit --yes``
judges it (passes every check or not) and by the task's own judge (correct or wrong). Prints one line per
sample and a summary; ``--out`` keeps every reply.

    .venv/bin/python scripts/dev/sample_ab.py --url http://127.0.0.1:8093 --pairs bug-quopri-unhex:0 --out s.json
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections.abc import Generator
from dataclasses import replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from coder.backends.engines.detect import detect_engine  # noqa: E402
from coder.backends.engines.registry import adapter_for  # noqa: E402
from coder.backends.runtime.handle import BackendHandle  # noqa: E402
from coder.backends.runtime.server import ServerInfo  # noqa: E402
from coder.bench.edits.run import UPSTREAM_TIMEOUT_S, _prepare, make_repo  # noqa: E402
from coder.bench.edits.tasks import TASKS  # noqa: E402
from coder.bench.edits.tasks_heldout import HELDOUT  # noqa: E402
from coder.bench.edits.upstream import test_command  # noqa: E402
from coder.edit.checks.user_commands import commands  # noqa: E402
from coder.edit.proposal import EditProposal, EditRequest  # noqa: E402
from coder.edit.run.engine import EditEngine  # noqa: E402
from coder.edit.run.prompt import predicted_reply  # noqa: E402
from coder.edit.run.sample import SAMPLES, TEMPERATURE, due, passes, sampled_request  # noqa: E402
from coder.errors import CoderError  # noqa: E402
from coder.telemetry.stats import RequestStats  # noqa: E402


def _done(gen: Generator[RequestStats, None, EditProposal]) -> EditProposal:
    while True:
        try:
            next(gen)
        except StopIteration as end:
            proposal: EditProposal = end.value
            return proposal


def pair(task: Any, wording: int, server: ServerInfo, seeds: range,
         temperature: float = TEMPERATURE) -> list[dict[str, object]]:
    """One row per sample of (task, wording), or one row saying why nothing was sampled."""
    backend = BackendHandle(None)
    backend.replace(server)
    head: dict[str, object] = {"task": task.name, "wording": wording}
    with tempfile.TemporaryDirectory(prefix="coder-sample-ab-") as where:
        tmp = Path(where)
        make_repo(tmp, task)
        engine = EditEngine(backend, tmp, run_examples=True,
                            checks=commands(test_command(task.kind, task.file), None, UPSTREAM_TIMEOUT_S))
        try:
            request = _prepare(engine, task, "auto", tmp / task.file, task.wordings[wording])
        except CoderError as exc:
            return [{**head, "outcome": "not a region", "why": str(exc)}]
        if not isinstance(request, EditRequest) or request.mode != "region":
            return [{**head, "outcome": "not a region"}]
        again = engine.retry_request(engine.evaluate(request, predicted_reply(request.prompt), finish_reason="stop"))
        if again is None:
            return [{**head, "outcome": "no retry"}]
        retry = engine.evaluate(again, predicted_reply(again.prompt), finish_reason="stop")
        if (oracle := due(retry, engine.oracles)) is None:
            return [{**head, "outcome": "no oracle"}]
        rows = []
        for i in seeds:
            started = time.perf_counter()
            asked = replace(sampled_request(again, i), temperature=temperature)
            tried = _done(engine._stream_once(asked, None, None))
            row = {**head, "seed": i, "temperature": temperature, "oracle": oracle,
                   "seconds": round(time.perf_counter() - started, 2),
                   "tokens": tried.stats.completion_tokens, "reply": tried.reply}
            if not passes(tried):
                why = tried.refusal or (tried.scope.refusal() if tried.scope and not tried.scope.ok else "unchanged")
                rows.append({**row, "outcome": "refused", "why": why})
            else:
                judged, said = task.check(task.originals()[task.file], tried.new)
                rows.append({**row, "outcome": "correct" if judged else "wrong", "why": said, "diff": tried.diff})
            r = rows[-1]
            print(f"{task.name:24} w{wording} seed {i}: {r['outcome']:8} {r['seconds']:6.1f} s  {str(r['why'])[:70]}",
                  flush=True)
        return rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pairs", help="task:wording,... (default: every bug-fix pair)")
    ap.add_argument("--n", type=int, default=SAMPLES, help="samples per pair")
    ap.add_argument("--first-seed", type=int, default=1, help="the first sample's seed (coder's are 1 to --n)")
    ap.add_argument("--temperature", type=float, default=TEMPERATURE)
    ap.add_argument("--url", required=True, help="a running llama-server (or any OpenAI-style server)")
    ap.add_argument("--key", help="its API key, if it has one")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    # what `coder backend attach` learns of the server, without saving it as the user's attached server
    server = ServerInfo(url=args.url.rstrip("/"), engine=detect_engine(args.url, args.key), api_key=args.key,
                        profile="sample-ab", managed=False)
    with server.api() as api:
        adapter_for(server.engine).check_attached(server, api)
    tasks = {t.name: t for t in (*TASKS, *HELDOUT)}
    chosen = ([(tasks[p.split(":")[0]], int(p.split(":")[1])) for p in args.pairs.split(",")] if args.pairs else
              [(t, w) for t in tasks.values() if t.kind in ("bugfix", "fix") for w in range(len(t.wordings))])
    seeds = range(args.first_seed, args.first_seed + args.n)
    rows = [row for task, wording in chosen for row in pair(task, wording, server, seeds, args.temperature)]
    drawn = [r for r in rows if "seed" in r]
    counts = {k: sum(1 for r in drawn if r["outcome"] == k) for k in ("correct", "wrong", "refused")}
    print(f"{len(drawn)} samples over {len({(r['task'], r['wording']) for r in drawn})} pairs: {counts}; "
          f"{sum(float(str(r['seconds'])) for r in drawn):.0f} s in all")
    if args.out:
        args.out.write_text(json.dumps({"rows": rows}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
