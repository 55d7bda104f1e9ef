#!/usr/bin/env python3
"""Delivered rate against a running server: coder's shown tok/s vs the engine's ``predicted_per_second``.

One command, best run on a GPU (the target: delivered >= 0.99x the engine's rate). It copies
``--file`` into a scratch git repository (your checkout is never touched), opens the real TUI
headless (``App.run_test``) attached to ``--url``, asks for ``--instruction`` on the file (a full
rewrite by default: the edit class that reaches the highest rates), rejects the review, and reports:

* engine: ``timings.predicted_per_second`` of the reply (llama.cpp; the last running value when the
  stream was closed at the fence) and its ``predicted_n``;
* reader: tokens / (last token − first token) as coder's stream reader received them;
* shown: tokens after the first batch / (last batch on screen − first batch on screen), i.e. what
  the transcript delivered to the eye, frames included;
* the ratios shown/engine and reader/engine (and shown/engine without the last batch, whose
  refresh also carries the end of the request and the review opening), and the display lag.

With ``--cli`` it runs ``coder edit FILE --mode full --dry-run --json --attach URL`` instead and
compares the CLI's client-side decode rate with the engine's.

    .venv/bin/python scripts/bench_delivered.py --url http://127.0.0.1:8080 --file big.py
    .venv/bin/python scripts/bench_delivered.py --url URL --api-key KEY --file big.py --runs 3 --out delivered.json
    .venv/bin/python scripts/bench_delivered.py --url URL --file big.py --cli
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
TARGET_RATIO = 0.99
DEFAULT_INSTRUCTION = "Add a one-line comment above every function saying what it does; change nothing else."


class Probe:
    """The app's lag probe: arrival and on-screen times of every batch."""

    def __init__(self) -> None:
        self.appended_batches: list[Any] = []
        self.shown: list[tuple[float, int]] = []  # (monotonic time on screen, tokens in the batch)
        self.lags: list[float] = []
        self.done = asyncio.Event()

    def appended(self, batch: Any) -> None:
        self.appended_batches.append(batch)

    def visible(self, batch: Any) -> None:
        now = time.monotonic()
        self.shown.append((now, batch.chunks))
        self.lags.append(now - batch.first_arrival)

    def finished(self) -> None:
        self.done.set()


def scratch_repo(file: Path) -> Path:
    """A fresh git repository holding a copy of ``file`` (the edit happens there, then is rejected)."""
    import git

    root = Path(tempfile.mkdtemp(prefix="coder-delivered-")) / "repo"
    root.mkdir()
    repo = git.Repo.init(root)
    with repo.config_writer() as cfg:
        cfg.set_value("user", "name", "bench")
        cfg.set_value("user", "email", "bench@example.com")
    shutil.copy(file, root / file.name)
    repo.index.add([file.name])
    repo.index.commit("initial")
    return root


async def tui_once(url: str, api_key: str | None, repo: Path, name: str, instruction: str) -> dict[str, Any]:
    """One edit through the headless TUI; the figures of its reply."""
    from coder import config, conversations
    from coder.ui.app import CoderApp
    from coder.ui.screens.review import ReviewScreen
    from coder.ui.widgets.conversation.prompt import PromptInput

    probe = Probe()
    app = CoderApp(repo, config.load(repo), conversations.new_conversation(repo), attach=(url, api_key),
                   offer_start=False, lag_probe=probe, persist_theme=False, persist_state=False)
    async with app.run_test(size=(160, 50)) as pilot:
        for _ in range(600):
            if app.server is not None:
                break
            await asyncio.sleep(0.05)
        if app.server is None:
            raise SystemExit(f"could not attach to {url}")
        for text in ("/mode full", f"@{name}", instruction):
            app.main.query_one(PromptInput).value = text
            await pilot.press("enter")
            await pilot.pause()
        await asyncio.wait_for(probe.done.wait(), timeout=900)
        for _ in range(200):  # the review follows the stats
            if isinstance(app.screen, ReviewScreen):
                await pilot.press("r")
                break
            await asyncio.sleep(0.05)
        await pilot.pause()
        final = app.main.spec.final
    if final is None or len(probe.shown) < 2:
        raise SystemExit("the edit produced no streamed reply to measure")
    stats = final.stats
    (t_first, first_tokens), (t_last, _) = probe.shown[0], probe.shown[-1]
    tokens = sum(n for _, n in probe.shown)
    # the last batch shares its refresh with the end of the request (final stats, the review opening):
    # the steady rate leaves it out, the end-to-end one keeps it
    steady = (sum(n for _, n in probe.shown[1:-1]) / (probe.shown[-2][0] - t_first)
              if len(probe.shown) > 2 and probe.shown[-2][0] > t_first else None)
    lags = sorted(probe.lags)
    return {"tokens": tokens, "predicted_n": stats.timings.get("predicted_n"),
            "engine_tok_s": stats.timings.get("predicted_per_second"),
            "reader_tok_s": stats.decode_tps, "shown_tok_s": (tokens - first_tokens) / (t_last - t_first),
            "shown_steady_tok_s": steady,
            "lag_ms_p50": statistics.median(lags) * 1000, "lag_ms_p95": lags[int(len(lags) * 0.95)] * 1000,
            "lag_ms_max": lags[-1] * 1000,
            "batches": len(probe.shown), "stopped_at_fence": stats.stopped_at_fence}


def cli_once(url: str, api_key: str | None, repo: Path, name: str, instruction: str) -> dict[str, Any]:
    """One ``coder edit --dry-run --json``; the CLI's client-side decode rate against the engine's."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    if api_key:
        env["CODER_API_KEY"] = api_key
    t0 = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "coder", "edit", name, "-m", instruction, "--mode", "full",
                           "--dry-run", "--json", "--attach", url], cwd=repo, env=env, capture_output=True,
                          text=True, timeout=900)
    wall = time.monotonic() - t0
    try:
        out = json.loads(proc.stdout)
    except ValueError:
        raise SystemExit(f"coder edit failed:\n{proc.stderr[-2000:]}") from None
    if not out.get("stats"):
        raise SystemExit(f"coder edit failed: {out.get('error') or proc.stderr[-2000:]}")
    stats = out["stats"]
    timings = stats.get("timings") or {}
    return {"tokens": stats.get("tokens"), "predicted_n": timings.get("predicted_n"),
            "engine_tok_s": timings.get("predicted_per_second"), "reader_tok_s": stats.get("decode_tps"),
            "shown_tok_s": stats.get("decode_tps"), "wall_s": wall, "ok": out.get("ok")}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--url", required=True, help="the running server (llama-server for predicted_per_second)")
    parser.add_argument("--api-key", default=os.environ.get("CODER_API_KEY"))
    parser.add_argument("--file", type=Path, required=True, help="the file to rewrite (copied; never edited)")
    parser.add_argument("--instruction", default=DEFAULT_INSTRUCTION)
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--cli", action="store_true", help="measure `coder edit` instead of the TUI")
    parser.add_argument("--out", type=Path, help="write the results as JSON here")
    args = parser.parse_args(argv)
    os.environ.setdefault("CODER_HOME", tempfile.mkdtemp(prefix="coder-delivered-home-"))
    rows = []
    for _ in range(args.runs):
        repo = scratch_repo(args.file)
        if args.cli:
            row = cli_once(args.url, args.api_key, repo, args.file.name, args.instruction)
        else:
            row = asyncio.run(tui_once(args.url, args.api_key, repo, args.file.name, args.instruction))
        engine = row["engine_tok_s"]
        row["shown_over_engine"] = row["shown_tok_s"] / engine if engine else None
        row["reader_over_engine"] = row["reader_tok_s"] / engine if engine and row["reader_tok_s"] else None
        rows.append(row)
        print(f"{row['tokens']} tokens: engine {engine or float('nan'):.0f} tok/s, coder's reader "
              f"{row['reader_tok_s'] or float('nan'):.0f} tok/s, shown {row['shown_tok_s'] or float('nan'):.0f} tok/s"
              f" -> shown/engine {row['shown_over_engine'] or float('nan'):.3f}"
              + (f" (steady, last batch left out: {row['shown_steady_tok_s'] / engine:.3f})"
                 if row.get("shown_steady_tok_s") and engine else "")
              + (f", lag p50/p95/max {row['lag_ms_p50']:.0f}/{row['lag_ms_p95']:.0f}/{row['lag_ms_max']:.0f} ms"
                 if "lag_ms_p50" in row else ""))
    ratios = [r["shown_over_engine"] for r in rows if r["shown_over_engine"] is not None]
    verdict = {"median_shown_over_engine": statistics.median(ratios) if ratios else None,
               "delivered_ok": bool(ratios) and statistics.median(ratios) >= TARGET_RATIO}
    print("target (shown >= 0.99x engine):", json.dumps(verdict))
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps({"url": args.url, "file": str(args.file), "mode": "cli" if args.cli else "tui",
                                        "rows": rows, "verdict": verdict}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
