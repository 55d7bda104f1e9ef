#!/usr/bin/env python3
"""TUI soak: many edits in one headless TUI session; RSS, open file descriptors and threads over time.

Drives the real app (``App.run_test``) exactly as a user would: ``@greet.py`` once, then the
docstring instruction again and again; each review is rejected (``r``), and every tenth is
accepted (``a``) and undone (``/undo``) so git, the commit and the undo path run too. The
server is either the ReplayServer test double serving the recorded greet edit in its own
process (``--server replay``: coder's own cost only, 500 edits in minutes) or the real
llama-server with the demo model (``--server demo``).

Memory is sampled after a warm-up (``--warmup`` edits, 50: imports, lexers, bounded caches filled), then
every ``--every`` edits. Targets (issue 21): RSS grows less than 10 % from the warm-up sample
to the end; file descriptors and threads return to the warm-up count.

    .venv/bin/python scripts/dev/soak_tui.py --edits 500 --out bench-results/soak-replay.json
    .venv/bin/python scripts/dev/soak_tui.py --server demo --edits 50 --out bench-results/soak-demo.json
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
import tracemalloc
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

RECORDING = ROOT / "tests" / "data" / "ui" / "edit_greet.json"
RSS_GROWTH_MAX = 0.10


def sample(edits: int, started: float) -> dict[str, Any]:
    """This process's resident memory, open descriptors and threads now."""
    pages = int(Path("/proc/self/statm").read_text().split()[1])
    return {"edits": edits, "s": round(time.perf_counter() - started, 1),
            "rss_mb": round(pages * os.sysconf("SC_PAGE_SIZE") / 2**20, 1),
            "fds": len(os.listdir("/proc/self/fd")), "threads": len(os.listdir("/proc/self/task")),
            "py_threads": threading.active_count()}


def replay_server() -> tuple[subprocess.Popen[str], Any]:
    """The ReplayServer test double in its own process, serving the greet edit whatever the prompt."""
    from coder.testing.replay import HttpRecording

    proc = subprocess.Popen([sys.executable, "-m", "coder.testing.replay", str(RECORDING), "--loose", "--cycle"],
                            stdout=subprocess.PIPE, text=True, cwd=ROOT)
    assert proc.stdout is not None
    return proc, HttpRecording.load(RECORDING).server_info(proc.stdout.readline().strip())


async def soak(repo: Path, server: Any, edits: int, warmup: int, every: int,
               trace: int = 0) -> list[dict[str, Any]]:
    from ui_support import GREET_DOCSTRING

    from coder import config, conversations
    from coder.ui.app import CoderApp
    from coder.ui.screens.review import ReviewScreen
    from coder.ui.widgets.conversation.prompt import PromptInput

    app = CoderApp(repo, config.load(repo), conversations.new_conversation(repo), server=server,
                   persist_theme=False, persist_state=False)
    samples: list[dict[str, Any]] = []
    started = time.perf_counter()
    async with app.run_test(size=(120, 40)) as pilot:

        async def settle() -> None:
            for _ in range(2):
                await app.workers.wait_for_complete()
                await app.main.workers.wait_for_complete()
                await pilot.pause()

        async def submit(text: str) -> None:
            app.screen.query_one(PromptInput).value = text
            await pilot.press("enter")
            await settle()

        await settle()
        await submit("/mode full")  # the recording is a whole-file reply: auto may learn to pick region
        await submit("@greet.py")
        for i in range(1, edits + 1):
            await submit(GREET_DOCSTRING)
            if not await reviewed(app, ReviewScreen, i):
                continue
            accept = i % 10 == 0
            await pilot.press("a" if accept else "r")
            await settle()
            if accept:
                await submit("/undo")
            if i in (warmup, edits) or (i > warmup and i % every == 0):
                samples.append(sample(i, started))
                print(json.dumps(samples[-1]), flush=True)
            if trace and i == warmup:
                tracemalloc.start(trace)
                first = tracemalloc.take_snapshot()
        if trace:
            print_growth(first)
    return samples


async def reviewed(app: Any, review: type, i: int) -> bool:
    """True once the review screen shows; False when the edit was refused (counted, the soak goes on)."""
    from coder.ui.widgets.conversation.transcript import Transcript

    deadline = time.monotonic() + float(os.environ.get("SOAK_TIMEOUT", "300"))
    while not isinstance(app.screen, review):
        tail = app.main.query_one(Transcript).text[-400:]
        if "refused" in tail.rsplit("Add a docstring", 1)[-1]:
            print(f"edit {i}: refused", flush=True)
            return False
        if time.monotonic() > deadline:
            raise SystemExit(f"edit {i}: no review within the timeout; transcript ends:\n{tail}")
        await asyncio.sleep(0.02)
    return True


def print_growth(first: tracemalloc.Snapshot) -> None:
    """Where the memory that stayed after the warm-up was allocated (largest first)."""
    for stat in tracemalloc.take_snapshot().compare_to(first, "traceback")[:12]:
        print(f"{stat.size_diff / 1024:+9.1f} KiB {stat.count_diff:+7d} blocks")
        for line in stat.traceback.format()[-6:]:
            print("    " + line)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--server", choices=("replay", "demo"), default="replay")
    parser.add_argument("--edits", type=int, default=500)
    # the baseline comes once the TUI's bounded caches are full: the transcript's 512-row strip cache and
    # its 32 whole-block colourings (transcript.STRIP_CACHE_ROWS, STYLED_BLOCKS_KEPT) fill in ~35 edits
    parser.add_argument("--warmup", type=int, default=50, help="edits before the baseline sample")
    parser.add_argument("--every", type=int, default=50, help="sample every N edits")
    parser.add_argument("--out", type=Path, help="write the samples and verdict as JSON here")
    parser.add_argument("--trace", type=int, nargs="?", const=8, default=0, metavar="FRAMES",
                        help="tracemalloc (FRAMES deep, default 8) from the warm-up on: print what grew")
    args = parser.parse_args(argv)
    from ui_support import SCENARIOS, make_repo

    with tempfile.TemporaryDirectory(prefix="coder-soak-") as tmp:
        repo = make_repo(Path(tmp), *SCENARIOS["edit_greet"].files)
        proc = None
        if args.server == "replay":
            proc, server = replay_server()
        else:
            from coder.backends.runtime import manager
            from coder.config import builtin_profiles

            server = manager.start(builtin_profiles()["demo"])
        try:
            samples = asyncio.run(soak(repo, server, args.edits, min(args.warmup, args.edits), args.every,
                                       args.trace))
        finally:
            if proc is not None:
                proc.terminate()
                proc.wait(10)
            else:
                from coder.backends.runtime import manager

                manager.stop("demo")
    base, last = samples[0], samples[-1]
    growth = (last["rss_mb"] - base["rss_mb"]) / base["rss_mb"]
    verdict = {"rss_growth": round(growth, 4), "rss_ok": growth < RSS_GROWTH_MAX,
               "fds_ok": last["fds"] <= base["fds"], "threads_ok": last["threads"] <= base["threads"]}
    print(f"\n{'edits':>6} {'s':>8} {'RSS MB':>8} {'fds':>5} {'threads':>8}")
    for s in samples:
        print(f"{s['edits']:>6} {s['s']:>8} {s['rss_mb']:>8} {s['fds']:>5} {s['threads']:>8}")
    print(f"server {args.server}: RSS {base['rss_mb']} -> {last['rss_mb']} MB ({growth:+.1%}, target < "
          f"{RSS_GROWTH_MAX:.0%}); fds {base['fds']} -> {last['fds']}; threads {base['threads']} -> {last['threads']}")
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps({"server": args.server, "edits": args.edits, "samples": samples,
                                        "verdict": verdict}, indent=2) + "\n")
    return 0 if all(verdict[k] for k in ("rss_ok", "fds_ok", "threads_ok")) else 1


if __name__ == "__main__":
    sys.exit(main())
