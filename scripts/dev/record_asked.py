#!/usr/bin/env python3
"""Record a real model's answers to coder's short structured questions (type hints, comment words, docstrings).

For each ``TASK:WORDING`` of the bench, copies the task's files into a throw-away git repository, starts
llama-server on ``--model`` (CPU, 2 threads), and runs the real engine's ``plan_for`` through
:class:`coder.testing.record.RecordingProxy`, so the HTTP exchange is kept byte for byte as
``OUT/TASK_wWORDING.json`` (replayed by ``tests/unit/test_hints_asked.py``, ``test_comment_asked.py`` and
``test_docstrings_asked.py``)::

    PYTHONPATH=$PWD .venv/bin/python scripts/dev/record_asked.py --out tests/data/comments \\
        --binary ~/.local/share/coder/llama.cpp/*/bin/llama-server \\
        --model ~/.local/share/coder/models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf string-comment:0

On a busy 2-core box a long question's prompt can take over 30 s without a token: set
``CODER_STREAM_IDLE_S=400`` then.
"""

from __future__ import annotations

import argparse
import dataclasses
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from cli_helpers import make_repo  # noqa: E402

from coder.backends.runtime import chat  # noqa: E402
from coder.backends.runtime.handle import BackendHandle  # noqa: E402
from coder.backends.runtime.server import ServerInfo  # noqa: E402
from coder.bench.edits.tasks import TASKS  # noqa: E402
from coder.bench.edits.tasks_heldout import HELDOUT  # noqa: E402
from coder.edit.run.engine import EditEngine  # noqa: E402
from coder.edit.run.plan_run import plan_for  # noqa: E402
from coder.testing.record import RecordingProxy  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("cases", nargs="+", help="TASK:WORDING, e.g. bisect-hints:2, or TASK:=INSTRUCTION for an "
                                                 "instruction of your own on the task's files (saved as TASK_ownN)")
    parser.add_argument("--binary", required=True)
    parser.add_argument("--model", required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--port", type=int, default=18791)
    args = parser.parse_args()
    tasks = {t.name: t for t in (*TASKS, *HELDOUT)}
    # the deadlines are for a working server; 2 cores shared by several llama-servers prefill at ~10 tok/s: what
    # is recorded is the answer, not the time it took
    chat.FLOOR_PREFILL_TPS, chat.FLOOR_DECODE_TPS = chat.FLOOR_PREFILL_TPS / 8, chat.FLOOR_DECODE_TPS / 4
    args.out.mkdir(parents=True, exist_ok=True)
    server = subprocess.Popen([args.binary, "-m", args.model, "-c", "4096", "-np", "1", "-t", "2",
                               "--host", "127.0.0.1", "--port", str(args.port)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(240):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{args.port}/health", timeout=2)
                break
            except OSError:
                time.sleep(0.5)
        info = ServerInfo(url=f"http://127.0.0.1:{args.port}", model=args.model, served_model="qwen")
        own = 0
        for case in args.cases:
            name, _, wording = case.partition(":")
            task = tasks[name]
            if wording.startswith("="):  # an instruction of one's own: no bench wording says it
                instruction, saved = wording[1:], f"{name}_own{own}"
                own += 1
            else:
                instruction, saved = task.wordings[int(wording)], f"{name}_w{wording}"
            root = Path(tempfile.mkdtemp(prefix="coder-record-asked-")) / "repo"
            make_repo(root, task.originals())
            meta = {"how": "scripts/dev/record_asked.py through RecordingProxy, llama-server on the CPU (2 threads), "
                           f"model {Path(args.model).name}", "instruction": instruction, "file": task.file}
            with RecordingProxy(info.url, None, meta) as proxy:  # type: ignore[arg-type]
                engine = EditEngine(BackendHandle(dataclasses.replace(info, url=proxy.url)), root)
                started = time.perf_counter()
                got = plan_for(engine, root / task.file, instruction, mode="auto")
                proxy.wait_idle()
            plan = getattr(got, "plan", None)
            print(f"{case}: {time.perf_counter() - started:.1f}s, "
                  f"{plan.reason if plan is not None else getattr(got, 'mode_reason', '')}")
            if proxy.recording.chats:
                print(f"  {proxy.recording.reply_text(0)!r}")
            proxy.recording.save(args.out / f"{saved}.json")
    finally:
        server.terminate()
    return 0


if __name__ == "__main__":
    sys.exit(main())
