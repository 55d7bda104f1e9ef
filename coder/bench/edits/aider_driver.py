"""Aider in one process over many edit jobs: run by ``coder bench --edits --aider PYTHON`` under Aider's Python.

This file imports nothing from coder (Aider's own environment runs it: its pinned packages must
not meet coder's). Aider is imported once (timed apart, ``import_s``), then each job (a folder,
its files and an instruction) is one ``Coder.run`` without git, commits, lint, repo map or
analytics; the model's metadata comes from a local file so nothing is fetched.

Usage: ``python aider_driver.py FORMAT MODEL METADATA.json JOBS.json RESULTS.json``.
"""

from __future__ import annotations

import importlib
import json
import os
import sys
import time
from typing import Any


def _load() -> tuple[Any, Any, Any, Any]:
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # litellm: no price-map download
    coders = importlib.import_module("aider.coders")
    models = importlib.import_module("aider.models")
    io_mod = importlib.import_module("aider.io")
    analytics = importlib.import_module("aider.analytics")
    importlib.import_module("aider.llm").litellm._load_litellm()  # Aider defers it to the first request
    return coders, models, io_mod, analytics


def main(argv: list[str]) -> int:
    """Run every job of ``JOBS.json`` through Aider in ``FORMAT``; write timings to ``RESULTS.json``."""
    fmt, model_name, metadata, jobs_path, results_path = argv[1:6]
    with open(jobs_path, encoding="utf-8") as f:
        jobs: list[dict[str, Any]] = json.load(f)
    t0 = time.perf_counter()
    coders, models, io_mod, analytics = _load()
    models.register_litellm_models([metadata])
    model = models.Model(model_name)
    import_s = time.perf_counter() - t0
    results: list[dict[str, Any]] = []
    for job in jobs:
        os.chdir(job["root"])
        started = time.perf_counter()
        error = None
        try:
            io = io_mod.InputOutput(pretty=False, yes=True, fancy_input=False, root=job["root"])
            coder = coders.Coder.create(
                main_model=model, edit_format=fmt, io=io, fnames=[os.path.join(job["root"], f) for f in job["files"]],
                use_git=False, auto_commits=False, dirty_commits=False, map_tokens=0, stream=False,
                auto_lint=False, auto_test=False, suggest_shell_commands=False, detect_urls=False,
                analytics=analytics.Analytics(permanently_disable=True))
            coder.run(with_message=job["instruction"])
        except Exception as exc:  # noqa: BLE001  (one job's failure is that job's result, not the batch's)
            error = f"{type(exc).__name__}: {exc}"[:300]
        results.append({"wall_s": time.perf_counter() - started, "error": error})
        with open(results_path, "w", encoding="utf-8") as f:  # after each job: a crash keeps the rest
            json.dump({"import_s": import_s, "jobs": results}, f)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
