#!/usr/bin/env python3
"""Where ``coder.edit.run.locate`` would look next for each bug report of the suite and the held-out set, offline.

For every (task, wording) pair whose task is a bug fix, this builds the request ``coder edit`` would send (auto
mode, no server), runs the instruction's examples and the bench's test command on the file as it is, and prints
the function the failing oracles point to outside the code sent (``-`` for none), beside the function the bug
was put in. A move to any other function is a lost request at best; the table shows every one::

    .venv/bin/python scripts/dev/moved_pairs.py [--json out.json]

It runs the upstream tests of each file once per pair (about 30 s on 2 cores). Exit 1 when any pair would be
moved to a function other than the one with the bug.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from coder.bench.edits import upstream  # noqa: E402
from coder.bench.edits.taskdef import Task, source  # noqa: E402
from coder.bench.edits.tasks import TASKS  # noqa: E402
from coder.bench.edits.tasks_heldout import HELDOUT  # noqa: E402
from coder.edit.apply import gitcli  # noqa: E402
from coder.edit.checks.user_commands import commands  # noqa: E402
from coder.edit.proposal import EditRequest  # noqa: E402
from coder.edit.run.engine import EditEngine  # noqa: E402
from coder.edit.run.locate import where  # noqa: E402


def bug_engine(root: Path, task: Task) -> EditEngine:
    """An engine in a new repository at ``root`` holding ``task``'s file, with the bench's test command."""
    (root / task.file).parent.mkdir(parents=True, exist_ok=True)
    (root / task.file).write_text(source(task.file))
    gitcli.run_git(root, "init", "-q")
    gitcli.run_git(root, "add", "-A")
    return EditEngine(None, root, ctx=32768, run_examples=True,
                      checks=commands(upstream.test_command(task.kind, task.file), None))


def rows() -> list[dict[str, object]]:
    """One row per bug-report pair: the code sent, where the oracles point, where the bug is."""
    out: list[dict[str, object]] = []
    for task in (*TASKS, *HELDOUT):
        if task.kind != "bugfix":
            continue
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            engine = bug_engine(root, task)
            for n, wording in enumerate(task.wordings):
                request = engine.prepare(root / task.file, wording)
                if not isinstance(request, EditRequest):
                    continue
                moved = where(request, engine.oracles)
                sent = request.region.label if request.mode == "region" and request.region else "the whole file"
                out.append({"task": task.name, "wording": n, "sent": sent, "moved": moved.name if moved else None,
                            "why": moved.why if moved else None, "bug_in": task.symbol})
                print(f"{task.name:24} w{n}  {sent:38} -> {out[-1]['moved'] or '-':24} bug in {task.symbol}",
                      flush=True)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", help="write the rows here")
    args = parser.parse_args()
    found = rows()
    wrong = [r for r in found if r["moved"] and r["moved"] != r["bug_in"]]
    print(f"{len(found)} pairs: {sum(1 for r in found if r['moved'])} moved, {len(wrong)} to another function "
          "than the one with the bug")
    if args.json:
        Path(args.json).write_text(json.dumps(found, indent=1))
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
