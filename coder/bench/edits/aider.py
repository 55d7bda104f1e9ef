"""The peer row of ``coder bench --edits``: Aider on the same server and the same tasks.

Aider (``aider-chat`` from PyPI) is not a dependency of coder: give its executable with
``--aider EXE`` (a separate virtual environment is best). It runs once per task and edit
format (``whole``: the model returns the whole file; ``diff``: search/replace blocks),
against the same OpenAI-compatible endpoint, without auto-commits; the file on disk is then
checked with the task's own check.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from coder.backends.runtime.server import ServerInfo
from coder.bench.edits.run import Outcome, make_repo
from coder.bench.edits.tasks import Task
from coder.jsontypes import JSONObject


def run_aider(exe: str, server: ServerInfo, instruction: str, root: Path, rel: str, *,
              edit_format: str = "whole", timeout: float = 1800.0) -> JSONObject:
    """``instruction`` on ``root/rel`` through Aider in ``edit_format`` on ``server``; wall time and what changed."""
    before = (root / rel).read_text()
    env = {**os.environ, "OPENAI_API_BASE": server.url.rstrip("/") + "/v1",
           "OPENAI_API_KEY": server.api_key or "none", "AIDER_CHECK_UPDATE": "false"}
    argv = [exe, "--model", "openai/default", "--edit-format", edit_format, "--yes-always", "--no-auto-commits",
            "--no-stream", "--no-show-model-warnings", "--no-check-update", "--no-analytics",
            "--map-tokens", "0", "--no-pretty", "--no-fancy-input", "--no-gitignore",
            "--message", instruction, rel]
    t0 = time.perf_counter()
    try:
        proc = subprocess.run(argv, cwd=root, env=env, capture_output=True, text=True, timeout=timeout)
        rc: int | None = proc.returncode
        tail = (proc.stdout + proc.stderr)[-400:]
        timed_out = False
    except (OSError, subprocess.TimeoutExpired) as exc:
        rc, tail = None, f"{type(exc).__name__}: {exc}"
        timed_out = isinstance(exc, subprocess.TimeoutExpired)  # wall_s is then a lower bound
    wall = time.perf_counter() - t0
    after = (root / rel).read_text() if (root / rel).exists() else ""
    return {"wall_s": wall, "timed_out": timed_out, "rc": rc, "changed": after != before,
            "lines_before": before.count("\n"), "lines_after": after.count("\n"), "output_tail": tail}


def run_aider_task(exe: str, server: ServerInfo, task: Task, edit_format: str) -> Outcome:
    """``task`` through Aider in a fresh git repository; the file on disk is checked like coder's."""
    out = Outcome(task.name, task.file, task.kind, f"aider-{edit_format}", "refused", "", mode=edit_format)
    tmp = Path(tempfile.mkdtemp(prefix="coder-bench-aider-"))
    try:
        _, path = make_repo(tmp, task)
        original = path.read_text(encoding="utf-8")
        res = run_aider(exe, server, task.instruction, tmp, task.file, edit_format=edit_format, timeout=900)
        out.enter_to_diff_s = float(res["wall_s"])  # type: ignore[arg-type]
        now = path.read_text(encoding="utf-8") if path.exists() else ""
        if now == original:
            out.why = "file unchanged" + (" (timed out)" if res["timed_out"] else f" (rc {res['rc']})")
        else:
            ok, why = task.check(original, now)
            out.outcome, out.why = ("correct" if ok else "wrong"), why
        return out
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
