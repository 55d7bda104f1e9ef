"""Replay a recorded bench run's rows through today's reading, checks and task judge, offline.

Usage (from the repository root, ``PYTHONPATH=$PWD``)::

    python scripts/dev/replay_rows.py KINDS [TASKS] [OUT.json] [RUN]

KINDS and TASKS are comma lists (``fix,bugfix,method,default``; TASKS empty: all); RUN is the
``runN`` prefix under ``docs/benchmarks/2026-12-03-h200/`` (default ``run7``). Every request of a
row, its retry included, is answered with the row's recorded reply (a plan step's by its lines);
no model reading is asked (a reading that needs the model refuses). Prints each row's recorded and
replayed outcome and the counts. Known artefact: a plan whose retry asks a narrower span than a
recorded step (queue-rename, xfile-packaging-method w1) gets the wrong reply and is refused.
"""
import collections
import gzip
import json
import shutil
import sys
import tempfile
from pathlib import Path

from coder.bench.edits import run as brun
from coder.bench.edits.tasks import TASKS
from coder.bench.edits.tasks_heldout import HELDOUT
from coder.bench.edits.upstream import test_command
from coder.edit.checks.user_commands import commands
from coder.edit.proposal import EditRequest
from coder.edit.run import engine as engine_module
from coder.edit.run.engine import EditEngine
from coder.edit.run.plan_run import run_events
from coder.errors import CoderError
from coder.testing.replies import ScriptedStream

TASK = {t.name: t for t in (*TASKS, *HELDOUT)}
KINDS = set(sys.argv[1].split(",")) if len(sys.argv) > 1 else {"fix", "bugfix", "method", "default"}
ONLY = set(sys.argv[2].split(",")) if len(sys.argv) > 2 and sys.argv[2] else None

def answer(row):
    def reply(req: EditRequest) -> str:
        if row["step_replies"]:
            for s in row["step_replies"]:
                if req.region and s["lines"] == [req.region.start, req.region.end] and s["reply"] is not None:
                    return s["reply"]
            for s in row["step_replies"]:
                if req.region and s["label"] == req.region.label and s["reply"] is not None:
                    return s["reply"]
            return next((s["reply"] for s in row["step_replies"] if s["reply"]), "")
        return row["reply"] or ""
    return reply

def replay(row):
    task = TASK[row["task"]]
    out = brun.Outcome(task.name, task.file, task.kind, "auto", "skipped", "", wording=row["wording"],
                       instruction=row["instruction"])
    tmp = Path(tempfile.mkdtemp(prefix="w7-"))
    try:
        _, path = brun.make_repo(tmp, task)
        tests = test_command(task.kind, task.file)
        engine = EditEngine(None, tmp, run_examples=True, checks=commands(tests, None, brun.UPSTREAM_TIMEOUT_S))
        stream = ScriptedStream([answer(row)] * 60)
        engine_module.stream_edit = stream
        try:
            req = brun._prepare(engine, task, "auto", path, row["instruction"])
        except CoderError as exc:
            return "refused", f"request refused: {exc}", None
        brun._note_request(req, out)
        proposal = None
        events = engine.run(req) if isinstance(req, EditRequest) else run_events(engine, req)
        for e in events:
            if not hasattr(e, "finish_reason"):
                proposal = e
        brun.settle(engine, proposal, task, out, guard=True)
        engine.close()
        return out.outcome, out.why, out.plan_key
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

res = {}
for f in ("suite", "heldout"):
    run = sys.argv[4] if len(sys.argv) > 4 else "run7"
    path = Path(__file__).resolve().parents[2] / "docs" / "benchmarks" / "2026-12-03-h200" / f"{run}-{f}.json.gz"
    with gzip.open(path) as fh:
        rows = json.load(fh)["runs"]["auto"]["rows"]
    for row in rows:
        if row["kind"] not in KINDS or (ONLY and row["task"] not in ONLY):
            continue
        if row["reply"] is None and not row["step_replies"]:
            res[f"{f}:{row['task']}:{row['wording']}"] = (row["outcome"], "-", "no reply recorded", "")
            continue
        try:
            now, why, _ = replay(row)
        except Exception as exc:  # noqa: BLE001 -- one row's crash is that row's result, the replay goes on
            now, why = "error", repr(exc)
        res[f"{f}:{row['task']}:{row['wording']}"] = (row["outcome"], now, why[:200], row["retried"] or "")
        print(f, row["task"], row["wording"], row["outcome"], "->", now, "|", why[:160], flush=True)
c = collections.Counter((v[0], v[1]) for v in res.values())
print(sorted(c.items()))
print("now:", collections.Counter(v[1] for v in res.values()))
if len(sys.argv) > 3 and sys.argv[3]:
    Path(sys.argv[3]).write_text(json.dumps(res, indent=1))
