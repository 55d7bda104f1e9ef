"""The peer row of ``coder bench --edits``: Aider on the same server and the same tasks.

Aider (``aider-chat`` 0.86.2 from PyPI) is not a dependency of coder. ``--aider PYTHON`` names
a Python that imports it (a separate virtual environment, or with ``--aider-site DIR`` a
``pip install --target`` folder): :mod:`coder.bench.edits.aider_driver` runs there, imports
Aider once and loops over the tasks in each edit format (``whole``: the model returns the
whole file; ``diff``: search/replace blocks) against the same OpenAI-compatible endpoint, with
no git, commits or lint, each task in its first wording (names in backticks: the one Aider's prompts
suit best). Each task's files are then checked on disk with the task's own check.
:func:`run_aider` (one Aider command line per edit) serves ``scripts/bench_latency.py``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from coder.backends.runtime.server import ServerInfo
from coder.bench.edits.run import Outcome, make_repo, on_disk
from coder.bench.edits.taskdef import Task
from coder.jsontypes import JSONObject

FORMATS = ("whole", "diff")


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


def run_aider_batch(python: str, server: ServerInfo, tasks: list[Task], edit_format: str, *,
                    site: str | None = None, timeout: float = 3600.0) -> tuple[list[Outcome], float | None]:
    """Every task through one Aider process in ``edit_format``; the outcomes and Aider's import seconds."""
    work = Path(tempfile.mkdtemp(prefix="coder-bench-aider-"))
    try:
        roots = [work / f"t{i:03d}" for i in range(len(tasks))]
        originals = []
        for root, task in zip(roots, tasks, strict=True):
            root.mkdir()
            make_repo(root, task)
            originals.append(on_disk(root, task))
        model = "openai/default"  # llama-server answers whatever model a request names
        meta, jobs, results = work / "metadata.json", work / "jobs.json", work / "results.json"
        meta.write_text(json.dumps({model: {"max_tokens": 4096, "max_input_tokens": 32768, "max_output_tokens": 4096,
                                            "input_cost_per_token": 0.0, "output_cost_per_token": 0.0,
                                            "litellm_provider": "openai", "mode": "chat"}}))
        jobs.write_text(json.dumps([{"root": str(r), "files": list(t.files), "instruction": t.instruction}
                                    for r, t in zip(roots, tasks, strict=True)]))
        env = {**os.environ, "OPENAI_API_BASE": server.url.rstrip("/") + "/v1",
               "OPENAI_API_KEY": server.api_key or "none", "AIDER_CHECK_UPDATE": "false",
               "LITELLM_LOCAL_MODEL_COST_MAP": "True", "HOME": str(work)}  # Aider's ~/.aider stays in here
        if site:
            env["PYTHONPATH"] = site
        else:
            env.pop("PYTHONPATH", None)  # coder's own path must not shadow Aider's pinned packages
        # run from the work folder: beside this file, `import aider` would find this module
        driver = work / "aider_driver.py"
        shutil.copyfile(Path(__file__).with_name("aider_driver.py"), driver)
        tail = ""
        try:
            proc = subprocess.run([python, str(driver), edit_format, model, str(meta), str(jobs), str(results)],
                                  cwd=work, env=env, capture_output=True, text=True, timeout=timeout)
            tail = (proc.stdout + proc.stderr)[-300:]
        except (OSError, subprocess.TimeoutExpired) as exc:
            tail = f"{type(exc).__name__}: {exc}"
        done = json.loads(results.read_text()) if results.exists() else {"import_s": None, "jobs": []}
        rows = [_judge(task, root, old, edit_format, done["jobs"][i] if i < len(done["jobs"]) else None, tail)
                for i, (task, root, old) in enumerate(zip(tasks, roots, originals, strict=True))]
        return rows, done["import_s"]
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _judge(task: Task, root: Path, original: dict[str, str], edit_format: str, job: JSONObject | None,
           tail: str) -> Outcome:
    out = Outcome(task.name, task.file, task.kind, f"aider-{edit_format}", "refused", "", mode=edit_format,
                  instruction=task.instruction)
    if job is None:  # the batch stopped first (timeout, crash): not Aider's refusal, so not counted as one
        out.outcome = "skipped"
        out.why = f"aider did not run it: {tail.strip().splitlines()[-1] if tail.strip() else 'no output'}"
        return out
    out.enter_to_diff_s = float(job["wall_s"])  # type: ignore[arg-type]
    now = on_disk(root, task)
    if now == original:
        out.why = "files unchanged" + (f" ({job['error']})" if job.get("error") else "")
    else:
        ok, why = task.judge(original, now)
        out.outcome, out.why = ("correct" if ok else "wrong"), why
    return out
