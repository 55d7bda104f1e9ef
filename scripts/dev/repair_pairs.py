#!/usr/bin/env python3
"""What ``coder.edit.run.repair`` makes of every bug report of the suite and the held-out set when the model never
mends: offline, each request answered with the code it sends, unchanged.

For every (task, wording) pair whose task is a bug fix, this runs ``coder edit``'s request (auto mode) through
:meth:`EditEngine.run` with a stand-in model that returns the code it was sent (so the retry, the samples and the
look elsewhere all come back unchanged), the instruction's examples and the bench's test command running as in the
bench; then the task's own judge reads the outcome. It prints one row per pair (repaired right, repaired wrong,
or refused, with the search's line) and the counts::

    .venv/bin/python scripts/dev/repair_pairs.py [--json out.json] [--tasks a,b] [--set suite,heldout,fresh4]

It runs the upstream tests once per one-token change (a few minutes on 2 cores). Exit 1 when any pair is
repaired wrong.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts" / "dev"))

from moved_pairs import bug_engine  # noqa: E402

from coder.cli.bench_edits import task_sets  # noqa: E402
from coder.edit.proposal import EditRequest  # noqa: E402
from coder.edit.run import engine as engine_module  # noqa: E402
from coder.edit.run.prompt import predicted_reply  # noqa: E402
from coder.errors import CoderError  # noqa: E402
from coder.testing.replies import ScriptedStream, streamed  # noqa: E402


def unchanged(request: EditRequest) -> str:
    """The stand-in model: the code it was sent, as a reply."""
    return predicted_reply(request.prompt)


def rows(only: set[str] | None, sets: list[str]) -> list[dict[str, object]]:
    """One row per bug-report pair: the outcome, the search's line, the judge's verdict, the seconds."""
    out: list[dict[str, object]] = []
    engine_module.stream_edit = ScriptedStream([unchanged] * 100_000)  # type: ignore[assignment]
    for task in (t for name in sets for t in task_sets()[name]):
        if task.kind != "bugfix" or (only and task.name not in only):
            continue
        for n, wording in enumerate(task.wordings):
            with tempfile.TemporaryDirectory() as tmp:
                root = Path(tmp)
                engine = bug_engine(root, task)
                started = time.monotonic()
                try:
                    request = engine.prepare(root / task.file, wording)
                except CoderError:  # refused before any request (a name the reading finds ambiguous)
                    continue
                if not isinstance(request, EditRequest):
                    continue
                proposal = streamed(engine, request)
                seconds = time.monotonic() - started
                outcome = "refused"
                if proposal.ok and proposal.changed:
                    right, why = task.judge(task.originals(), {task.file: proposal.new})
                    outcome = "right" if right else f"WRONG ({why})"
                out.append({"task": task.name, "wording": n, "outcome": outcome, "repaired": proposal.repaired,
                            "seconds": round(seconds, 1)})
                print(f"{task.name:24} w{n}  {outcome:8} {seconds:5.1f} s  {proposal.repaired or '-'}", flush=True)
                engine.close()
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", help="write the rows here")
    parser.add_argument("--tasks", help="only these tasks (a comma list)")
    parser.add_argument("--set", default="suite,heldout", help="the task sets (a comma list of --set names)")
    args = parser.parse_args()
    found = rows(set(args.tasks.split(",")) if args.tasks else None, args.set.split(","))
    wrong = [r for r in found if str(r["outcome"]).startswith("WRONG")]
    right = [r for r in found if r["outcome"] == "right"]
    print(f"{len(found)} pairs: {len(right)} repaired right, {len(wrong)} repaired wrong, "
          f"{len(found) - len(right) - len(wrong)} refused")
    if args.json:
        Path(args.json).write_text(json.dumps(found, indent=1))
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
