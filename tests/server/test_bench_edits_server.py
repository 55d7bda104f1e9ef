"""``coder bench --edits`` end to end on the real llama-server with the demo model (SmolLM2-135M).

The demo model rarely makes the edit asked for; this checks the bench itself: every task gets
one outcome, the table, JSON and PNG are written, and with the scope guard on nothing wrong is
committed (the tasks are ones whose wrong results the guard recognises: a comment and a
docstring in small regions; the rename has no region, so region mode skips it). Region mode
only: whole-file rewrites take minutes on two shared cores.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from coder.backends.runtime.server import ServerInfo
from coder.cli.main import main

pytestmark = pytest.mark.server
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
TASKS = "colorsys-comment,queue-docstring,bisect-rename"


def test_edits_bench_writes_table_json_and_plot(demo_server: ServerInfo, tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["bench", "--edits", "--profile", "demo", "--tasks", TASKS, "--mode", "region",
                 "--wordings", "0", "--out", str(tmp_path)])  # each task once: its backticked wording
    assert code == 0
    (path,) = tmp_path.glob("edits-*.json")
    doc = json.loads(path.read_text())
    assert doc["kind"] == "edits" and doc["scope_guard"] is True and set(doc["runs"]) == {"region"}
    for run in doc["runs"].values():
        s = run["summary"]
        assert len(run["rows"]) == 3
        assert s["correct"] + s["refused"] + s["wrong"] + s["skipped"] == 3
        assert s["committed_wrong"] == 0, run["rows"]
        for row in run["rows"]:
            assert row["outcome"] in ("correct", "refused", "wrong", "skipped")
            if row["outcome"] == "skipped":
                assert row["task"] == "bisect-rename"
            else:
                assert row["mode"] == "region" and row["enter_to_diff_s"] > 0
    assert next(r for r in doc["runs"]["region"]["rows"] if r["task"] == "bisect-rename")["outcome"] == "skipped"
    assert path.with_suffix(".png").read_bytes()[:8] == PNG_MAGIC
    out = capsys.readouterr().out
    assert "demo region" in out and "wrong edits committed: 0" in out
