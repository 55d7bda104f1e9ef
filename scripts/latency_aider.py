"""Aider's ``--edit-format whole`` on the same edit and server, for ``scripts/bench_latency.py --aider``."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path
from typing import Any

from coder.backends.runtime.server import ServerInfo


def run_aider(exe: str, server: ServerInfo, instruction: str, root: Path, rel: str,
              timeout: float = 1800.0) -> dict[str, Any]:
    """``instruction`` on ``root/rel`` through Aider (``--edit-format whole``) on the same server, cold cache."""
    before = (root / rel).read_text()
    env = {**os.environ, "OPENAI_API_BASE": server.url.rstrip("/") + "/v1",
           "OPENAI_API_KEY": server.api_key or "none", "AIDER_CHECK_UPDATE": "false"}
    argv = [exe, "--model", "openai/default", "--edit-format", "whole", "--yes-always", "--no-auto-commits",
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
