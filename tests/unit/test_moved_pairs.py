"""Every bug report of the suite and the held-out set, offline: where the failing oracles would move its fix.

``scripts/dev/moved_pairs.py`` builds each pair's request as ``coder edit`` would, runs the examples and the
bench's test command on the file as it is, and asks :func:`coder.edit.run.locate.where`. Four pairs are sent the
function where the symptom shows (or a class, or a span) and move to the function the bug was put in; no pair is
moved anywhere else, and in particular none that is already sent the function with the bug (a caller named by a
failing test, ``glob`` for ``_ishidden``, was the first draft's mistake).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_only_the_mislocated_pairs_move_and_each_to_the_function_with_the_bug(tmp_path: Path) -> None:
    out = tmp_path / "moved.json"
    run = subprocess.run([sys.executable, str(ROOT / "scripts" / "dev" / "moved_pairs.py"), "--json", str(out)],
                         capture_output=True, text=True, timeout=600, check=False)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    rows = json.loads(out.read_text())
    assert len(rows) == 42
    moved = sorted((r["task"], r["wording"], r["sent"], r["moved"]) for r in rows if r["moved"])
    assert moved == [
        ("bug-copy-dict", 0, "function deepcopy", "_deepcopy_dict"),
        ("bug-copy-dict", 1, "function deepcopy", "_deepcopy_dict"),
        ("bug-fnmatch-negate", 2, "the whole file", "translate"),
        ("bug-timeit-reindent", 0, "class Timer", "reindent"),
    ]
