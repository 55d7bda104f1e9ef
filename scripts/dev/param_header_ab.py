#!/usr/bin/env python3
"""An add-parameter region asked with its header written by coder, or not: an A/B on a real model, pair by pair.

Variants (``--variants``): ``off`` asks the def's region as it is, first try and retry, and a missing attribute's
retry is told only that an item has no such attribute; ``retry`` shows the retry the header with the parameter in
place (:func:`coder.edit.run.plan_step.header_shown`) where the first reply left it out, as coder does;
``first`` shows it on the first request too.
The def's region of a plan whose calls coder writes is asked without them in every variant
(:func:`coder.edit.intent.params.without_calls`): compare with a run recorded before it. Each pair runs through
the bench's own ``run_task`` (the plan, the checks, the retry, the task's judge) against ``--url`` through
:class:`coder.testing.record.RecordingProxy`; every exchange is kept as ``OUT/VARIANT/TASK_wN.json`` (replayable
by :class:`coder.testing.replay.ReplayServer`; no deadline: a shared 2-core box decodes below coder's floor)::

    PYTHONPATH=$PWD .venv/bin/python scripts/dev/param_header_ab.py --url http://127.0.0.1:18795 --out /tmp/ab \\
        --variants off,retry glob-callers:0 timeit-param:1
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT)]

from coder.backends.runtime import chat  # noqa: E402
from coder.backends.runtime.server import ServerInfo  # noqa: E402
from coder.bench.edits.run import run_task  # noqa: E402
from coder.bench.edits.tasks import TASKS  # noqa: E402
from coder.bench.edits.tasks_heldout import HELDOUT  # noqa: E402
from coder.edit.checks import known_types  # noqa: E402
from coder.edit.plan.passes import with_params_in_header  # noqa: E402
from coder.edit.run import plan_run, plan_step  # noqa: E402
from coder.testing.record import RecordingProxy  # noqa: E402

_SHOWN = plan_step.header_shown
_WHOLE = known_types._whole_type
_REGION = plan_step.region_request


def _variant(name: str) -> None:
    # off: also the missing attribute's reason as it was, without what has the attribute (the whole bytes value)
    known_types._whole_type = _WHOLE if name != "off" else (lambda text, node: None)
    plan_step.header_shown = _SHOWN if name in ("retry", "first") else (lambda prepared, step: None)
    if name != "first":
        plan_run.region_request = _REGION
        return

    def first(engine, path, step, instruction, lines=None, spec=None, shown=None):  # type: ignore[no-untyped-def]
        if shown is None and spec is not None and spec.action == "add_parameter" and step.symbol in {
                t.qualname for t in spec.targets}:
            text = Path(path).read_text(encoding="utf-8")
            shown = with_params_in_header(text, step.symbol, spec)
            if shown is not None:
                instruction = f"{instruction} {plan_step.header_note(spec)}"
        return _REGION(engine, path, replace(step), instruction, lines, spec, shown)

    plan_run.region_request = first


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pairs", nargs="+", help="TASK:WORDING")
    parser.add_argument("--url", required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--variants", default="off,retry")
    args = parser.parse_args()
    chat.FLOOR_DECODE_TPS = 0.2  # a 2-core box shared with other work decodes below coder's floor: no deadline here
    chat.headers_deadline = lambda messages: 900.0  # nor for the headers, while another request holds the one slot
    tasks = {t.name: t for t in (*TASKS, *HELDOUT)}
    rows = json.loads((args.out / "rows.json").read_text()) if (args.out / "rows.json").exists() else []
    for variant in args.variants.split(","):
        _variant(variant)
        for pair in args.pairs:
            name, wording = pair.rsplit(":", 1)
            task, w = tasks[name], int(wording)
            meta = {"how": "scripts/dev/param_header_ab.py through RecordingProxy, llama-server on the CPU "
                           "(2 threads), Qwen2.5-Coder-1.5B-Instruct Q4_K_M", "variant": variant,
                    "instruction": task.wordings[w], "file": task.file}
            started = time.perf_counter()
            with RecordingProxy(args.url, None, meta) as proxy:  # type: ignore[arg-type]
                info = ServerInfo(url=proxy.url, model="qwen2.5-coder-1.5b", served_model="qwen")
                out = run_task(info, task, "auto", wording=w, keep_replies=True)
                proxy.wait_idle()
            (args.out / variant).mkdir(parents=True, exist_ok=True)
            proxy.recording.save(args.out / variant / f"{name}_w{w}.json")
            replies = [proxy.recording.reply_text(i) for i in range(len(proxy.recording.chats))]
            row = {"variant": variant, "pair": pair, "outcome": out.outcome, "why": out.why,
                   "s": round(time.perf_counter() - started, 1), "replies": replies}
            rows.append(row)
            (args.out / "rows.json").write_text(json.dumps(rows, indent=1), encoding="utf-8")
            print(f"{variant:6} {pair:22} {out.outcome:8} {row['s']:6}s  {out.why[:150]}", flush=True)
            for r in replies:
                print("    | " + r.replace("\n", "\n    | "), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
