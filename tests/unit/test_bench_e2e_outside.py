"""scripts/bench_e2e.py's ``cli`` rows: ``outside`` is the process's wall time less every chat request it sent.

The process is replaced by its ``--json`` answer (a retried region edit: two chat requests, the stats
describing only the last), so the test pins how a row is read, not a timing.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "scripts"))

import bench_e2e  # noqa: E402


def _answer(doc: dict[str, Any]) -> Any:
    def run(argv: list[str], **_: object) -> subprocess.CompletedProcess[str]:
        return subprocess.CompletedProcess(argv, 0, stdout=json.dumps(doc), stderr="")

    return run


def test_a_retried_edits_first_request_is_not_counted_outside(monkeypatch: pytest.MonkeyPatch,
                                                              tmp_path: Path) -> None:
    doc = {"ok": True, "applied": True, "stats": {"elapsed": 0.2},
           "timings": {"phases": {"imports": 0.15, "request": 0.5, "checks": 0.05}}}
    monkeypatch.setattr(bench_e2e.subprocess, "run", _answer(doc))
    row = bench_e2e.run_cli(tmp_path, "a.py", "add a docstring", "region", "f", "p", 10.0)
    assert row["request_s"] == 0.5 and row["last_request_s"] == 0.2  # both requests, and the last one apart
    assert row["outside_s"] == pytest.approx(row["wall_s"] - 0.5)
    assert row["phases"]["imports"] == 0.15


def test_without_a_split_the_stats_request_is_used(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(bench_e2e.subprocess, "run", _answer({"ok": True, "stats": {"elapsed": 0.2}}))
    row = bench_e2e.run_cli(tmp_path, "a.py", "add a docstring", "region", None, "p", 10.0)
    assert row["request_s"] == 0.2 and row["outside_s"] == pytest.approx(row["wall_s"] - 0.2)
