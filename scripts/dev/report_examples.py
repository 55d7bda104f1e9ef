#!/usr/bin/env python3
"""The pairs of ``coder bench --edits`` results whose every example only reports the wrong value.

Such an example (``indent_level(8) gives 1``) is no oracle (:attr:`coder.edit.intent.spec.Example.pins`): a fix
is not sampled for it, and a reply that passes it is held to the agreement check. This lists the pairs it
concerns in result files (``.json`` or ``.json.gz``), with their outcome, to see which measured pairs a change
to that rule can move::

    .venv/bin/python scripts/dev/report_examples.py docs/benchmarks/2026-12-04/run12-*.json.gz
"""

from __future__ import annotations

import gzip
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from coder.bench.edits.taskdef import source  # noqa: E402
from coder.bench.edits.tasks import TASKS  # noqa: E402
from coder.bench.edits.tasks_heldout import HELDOUT  # noqa: E402
from coder.edit.intent.read import read_instruction  # noqa: E402


def main(paths: list[str]) -> int:
    tasks = {t.name: t for t in (*TASKS, *HELDOUT)}
    for name in paths:
        raw = gzip.decompress(Path(name).read_bytes()) if name.endswith(".gz") else Path(name).read_bytes()
        for run in json.loads(raw)["runs"].values():
            for row in run["rows"]:
                task = tasks[row["task"]]
                examples = read_instruction(row["instruction"], {task.file: source(task.file)},
                                            home=task.file).examples
                if examples and not any(e.pins for e in examples):
                    print(f"{Path(name).name}: {row['task']} w{row['wording']} {row['outcome']} "
                          f"({row['sampled'] or 'not sampled'})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
