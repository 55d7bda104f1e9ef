#!/usr/bin/env python3
"""Judge a recorded bench run's applied diffs again with today's task judges, offline.

For every correct or wrong row of each given ``coder bench --edits`` result (``.json`` or ``.json.gz``), applies the
row's recorded diff to the task's original files (``patch -p1``) and calls ``task.judge``; prints the counts and
every row whose verdict changed. Used when a judge is tightened, to state earlier runs under it::

    PYTHONPATH=$PWD .venv/bin/python scripts/dev/rejudge_rows.py docs/benchmarks/2026-12-03-h200/run8-suite.json.gz
"""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from coder.bench.edits.tasks import TASKS  # noqa: E402
from coder.bench.edits.tasks_heldout import HELDOUT  # noqa: E402

TASK = {t.name: t for t in (*TASKS, *HELDOUT)}


def rejudged(row: dict[str, object]) -> str:
    """The row's outcome under today's judge: its recorded one unless it applied a diff that still applies."""
    outcome, diff = str(row["outcome"]), row.get("diff")
    if outcome not in ("correct", "wrong") or not isinstance(diff, str) or not diff:
        return outcome
    task = TASK[str(row["task"])]
    old = task.originals()
    with tempfile.TemporaryDirectory() as tmp:
        for rel, text in old.items():
            (Path(tmp) / rel).parent.mkdir(parents=True, exist_ok=True)
            (Path(tmp) / rel).write_text(text)
        done = subprocess.run(["patch", "-p1", "-s"], input=diff, text=True, cwd=tmp, capture_output=True)
        new = {rel: (Path(tmp) / rel).read_text() for rel in old}
    if done.returncode != 0:
        return outcome
    return "correct" if task.judge(old, new)[0] else "wrong"


def main() -> int:
    for name in sys.argv[1:]:
        opener = gzip.open if name.endswith(".gz") else open
        with opener(name, "rt") as f:
            doc = json.load(f)
        counts: Counter[str] = Counter()
        for mode, run in doc["runs"].items():
            for row in run["rows"]:
                now = rejudged(row)
                counts[now] += 1
                if now != row["outcome"]:
                    print(f"  {mode} {row['task']} w{row['wording']}: {row['outcome']} -> {now}")
        print(f"{Path(name).name}: {dict(counts)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
