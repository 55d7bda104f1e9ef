#!/usr/bin/env python3
"""What the agreement check (coder.edit.run.agree) does to recorded bench pairs: their greedy replies replayed,
the samples drawn from a live server.

For each pair asked (``--pairs task:wording,...``) of a recorded ``coder bench --edits`` run (``--run``, kept
with ``--keep-replies``), the bench's own path runs (:func:`coder.bench.edits.run._run`, its repository, test
command and examples) with the model's greedy requests answered by the row's recorded replies (a region's
reply, a plan step's first and retried replies) and the sampled ones (a seed set) by the server at ``--url``,
so the agreement check draws its samples live. Prints the outcome as the bench judges it, with the row's; ``--out``
keeps every reply in the order asked, for a test to replay (``tests/data/edit/agree/``).

    PYTHONPATH=$PWD .venv/bin/python scripts/dev/agree_ab.py --url http://127.0.0.1:8093 \\
        --run docs/benchmarks/2026-12-03-h200/run9-heldout.json.gz --pairs tabnanny-method:0 --out a.json
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
import time
from collections.abc import Generator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from coder.backends.engines.detect import detect_engine  # noqa: E402
from coder.backends.runtime import chat  # noqa: E402
from coder.backends.runtime.server import ServerInfo  # noqa: E402
from coder.bench.edits import run as bench_run  # noqa: E402
from coder.bench.edits.tasks import TASKS  # noqa: E402
from coder.bench.edits.tasks_heldout import HELDOUT  # noqa: E402
from coder.edit.apply.files import FileSnapshot  # noqa: E402
from coder.edit.intent.spec import ChangeSpec  # noqa: E402
from coder.edit.proposal import EditRequest  # noqa: E402
from coder.edit.run import agree  # noqa: E402
from coder.edit.run import engine as engine_module  # noqa: E402
from coder.edit.run.stream import StreamOutcome, stream_edit  # noqa: E402
from coder.telemetry.stats import RequestStats  # noqa: E402


class Replayed:
    """``stream_edit`` with the greedy replies of a row and live samples; every reply kept in order."""

    def __init__(self, row: dict[str, Any]) -> None:
        self.row, self.asked = row, 0
        self.replies: list[dict[str, object]] = []  # {"seed", "reply"} in the order asked
        self._steps: dict[tuple[int, int], int] = {}  # a plan step's region -> greedy requests so far

    def _greedy(self, request: EditRequest) -> str:
        steps = self.row.get("step_replies") or []
        if not steps:
            return str(self.row["reply"])
        assert request.region is not None
        key = (request.region.start, request.region.end)
        n = self._steps[key] = self._steps.get(key, 0) + 1
        step = next((s for s in steps if tuple(s["lines"]) == key), steps[0])
        first = step.get("flagged_reply") or step["reply"]
        return str(first if n == 1 else step["reply"])

    def __call__(self, backend: object, request: EditRequest, **kw: Any) -> Generator[RequestStats, None,
                                                                                         StreamOutcome]:
        if request.seed is None:
            text = self._greedy(request)
            stats = RequestStats(finish_reason="stop")
            yield stats
            outcome = StreamOutcome(text, stats, None, None)
        else:
            started = time.perf_counter()
            outcome = yield from stream_edit(backend, request, **kw)  # type: ignore[arg-type]
            print(f"    seed {request.seed}: {time.perf_counter() - started:.1f} s", flush=True)
        self.replies.append({"seed": request.seed, "reply": outcome.reply})
        return outcome


def _verdicts(verdict: Any) -> Any:
    """``agree.verdict``, printing first what each policy says on each prefix of the samples."""
    def told(snap: FileSnapshot, spec: ChangeSpec, accepted: str, samples: list[str | None]) -> str | None:
        print(f"    samples passing every check: {[s is not None for s in samples]}", flush=True)
        for n in range(1, len(samples) + 1):
            for corroborated in (False, True):
                agree.CORROBORATED = corroborated
                said = verdict(snap, spec, accepted, samples[:n])
                print(f"    n={n} corroborated={corroborated}: {said or 'applied'}", flush=True)
        agree.CORROBORATED = False
        return verdict(snap, spec, accepted, samples)
    return told


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--url", required=True)
    ap.add_argument("--run", required=True, type=Path)
    ap.add_argument("--pairs", required=True, help="task:wording,...")
    ap.add_argument("--out", type=Path)
    ap.add_argument("--n", type=int, default=3, help="samples drawn per pair")
    ap.add_argument("--floor-tps", type=float, default=2.0, help="the slowest decode a reply may take (tok/s)")
    args = ap.parse_args()
    server = ServerInfo(url=args.url.rstrip("/"), engine=detect_engine(args.url, None), profile="agree-ab",
                        managed=False)
    with gzip.open(args.run) if args.run.suffix == ".gz" else args.run.open() as f:
        rows = json.load(f)["runs"]["auto"]["rows"]
    chat.FLOOR_DECODE_TPS = args.floor_tps  # a loaded 2-core box decodes slower than coder's floor
    agree.SAMPLES, agree.BUDGET_S = args.n, 1e9  # every sample drawn: the policies are compared on prefixes
    agree.verdict = _verdicts(agree.verdict)  # type: ignore[assignment]
    tasks = {t.name: t for t in (*TASKS, *HELDOUT)}
    kept = []
    for pair in args.pairs.split(","):
        name, wording = pair.split(":")
        row = next(r for r in rows if r["task"] == name and r["wording"] == int(wording))
        replay = Replayed(row)
        saved, engine_module.stream_edit = engine_module.stream_edit, replay  # type: ignore[assignment]
        try:
            started = time.perf_counter()
            out = bench_run.run_task(server, tasks[name], "auto", wording=int(wording), keep_replies=True)
        finally:
            engine_module.stream_edit = saved  # type: ignore[assignment]
        print(f"{name:24} w{wording}: {row['outcome']} -> {out.outcome} ({time.perf_counter() - started:.0f} s): "
              f"{out.why[:160]}" + (f"; {out.sampled}" if out.sampled else ""), flush=True)
        kept.append({"task": name, "wording": int(wording), "instruction": row["instruction"],
                     "recorded": row["outcome"], "outcome": out.outcome, "why": out.why,
                     "refusal_code": out.refusal_code, "sampled": out.sampled, "replies": replay.replies})
        if args.out:  # after each pair: a slow box may not finish them all
            args.out.write_text(json.dumps({"server": "Qwen2.5-Coder-1.5B-Instruct Q4_K_M, llama.cpp, 2 CPU cores",
                                            "run": args.run.name, "pairs": kept}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
