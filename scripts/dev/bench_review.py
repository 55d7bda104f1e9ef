#!/usr/bin/env python3
"""Review-screen benchmark: how long a big proposal takes to open (headless Textual, driven by Pilot).

Builds a Python file of ``--lines`` lines and a proposal that changes every ``--every``-th line
(the diff is computed once, as the edit engine does in its worker), then, in the real
:class:`coder.ui.screens.review.ReviewScreen` inside a minimal app themed like coder's:

* open: from ``push_screen`` to the end of the first refresh that shows it (wall time, and the
  process's CPU time over it, which a busy shared machine distorts less);
* next hunk: one ``n`` press to the refresh after it (the view jumps, rows render lazily);
* end: ``end`` to the refresh showing the last rows.

Median over ``--runs``. Target (issue 23): a 5,000-line proposal opens in < 100 ms.

    .venv/bin/python scripts/dev/bench_review.py
    .venv/bin/python scripts/dev/bench_review.py --lines 20000 --runs 5 --out bench-results/review.json
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
TARGET_OPEN_MS = 100.0


def proposal(lines: int, every: int) -> tuple[str, str]:
    """(old, new) file texts: ``lines`` lines of Python, every ``every``-th one changed."""
    old = [f"def f{i}(x):  # {i}\n    return x + {i}\n" for i in range(lines // 2)]
    new = [block.replace("return x", "return 2 * x") if i % every == 0 else block for i, block in enumerate(old)]
    return "".join(old), "".join(new)


async def measure(diff: str, runs: int) -> dict[str, Any]:
    """Open/next-hunk/end timings of the review screen on ``diff`` (medians, ms)."""
    from textual.app import App

    from coder.ui import themes
    from coder.ui.screens.review import ReviewScreen
    from coder.ui.widgets.review.diff_view import DiffView

    class ReviewApp(App[None]):
        def get_theme_variable_defaults(self) -> dict[str, str]:
            return {**super().get_theme_variable_defaults(), **themes.VARIABLE_DEFAULTS}

    opens: list[float] = []
    open_cpu: list[float] = []
    nexts: list[float] = []
    ends: list[float] = []
    app = ReviewApp()
    async with app.run_test(size=(120, 40)) as pilot:
        for _ in range(runs):
            shown = asyncio.Event()
            t0, c0 = time.perf_counter(), time.process_time()
            screen = ReviewScreen(diff, "big.py")
            app.push_screen(screen)
            while not screen.is_mounted:
                await asyncio.sleep(0)
            screen.call_after_refresh(shown.set)
            await shown.wait()
            opens.append(time.perf_counter() - t0)
            open_cpu.append(time.process_time() - c0)
            view = screen.query_one(DiffView)
            for key, into in (("n", nexts), ("end", ends)):
                shown = asyncio.Event()
                t0 = time.perf_counter()
                await pilot.press(key)
                view.call_after_refresh(shown.set)
                await shown.wait()
                into.append(time.perf_counter() - t0)
            screen.dismiss(False)
            await pilot.pause()
    return {"open_ms": round(statistics.median(opens) * 1000, 1), "open_ms_all": [round(t * 1000, 1) for t in opens],
            "open_cpu_ms": round(statistics.median(open_cpu) * 1000, 1),
            "next_hunk_ms": round(statistics.median(nexts) * 1000, 1),
            "end_ms": round(statistics.median(ends) * 1000, 1)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lines", type=int, default=5000, help="lines of the proposed file (default 5,000)")
    parser.add_argument("--every", type=int, default=10, help="change every N-th function (default 10)")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--out", type=Path, help="write the results as JSON here")
    args = parser.parse_args(argv)

    from coder.edit.apply.files import diff_stat, unified_diff

    old, new = proposal(args.lines, args.every)
    t0 = time.perf_counter()
    diff = unified_diff("big.py", old, new)
    diff_ms = (time.perf_counter() - t0) * 1000
    added, removed = diff_stat(diff)
    result = asyncio.run(measure(diff, args.runs))
    row = {"lines": new.count("\n"), "diff_lines": diff.count("\n"), "added": added, "removed": removed,
           "diff_ms_worker": round(diff_ms, 1), **result, "target_open_ms": TARGET_OPEN_MS,
           "open_ok": result["open_ms"] <= TARGET_OPEN_MS}
    print(f"{row['lines']} lines, diff {row['diff_lines']} lines (+{added} -{removed}, computed once in "
          f"{diff_ms:.0f} ms off the UI thread): review opens in {row['open_ms']:.1f} ms "
          f"({row['open_cpu_ms']:.1f} ms CPU; median of {args.runs}), "
          f"next hunk {row['next_hunk_ms']:.1f} ms, end {row['end_ms']:.1f} ms; target < {TARGET_OPEN_MS:.0f} ms: "
          f"{'met' if row['open_ok'] else 'missed'}")
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(row, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
