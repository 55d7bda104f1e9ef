#!/usr/bin/env python3
"""TUI streaming benchmark: CPU per streamed token, display lag, and startup to first paint.

Feeds the real app (headless, ``App.run_test``) a recorded real reply re-paced to 200, 1,000 and
5,000 chunks/s by the ReplayServer test double (coder.testing.replay, run in its own process so
its CPU is not counted), exactly as a server stream arrives: HTTP SSE -> OpenAI client in the
worker thread -> coalesced batches -> transcript append. Measures:

* CPU ms per token: ``time.process_time()`` (all threads of the process) over the streaming,
  divided by the tokens streamed;
* display lag: for every batch, the time from the arrival of its oldest token in the worker
  to the end of the screen refresh that shows it (p50 / p95 / max). The app calls the probe back
  through ``Transcript.call_after_paint``; trees before it used the screen's ``call_after_refresh``,
  which ran before that refresh on most batches: their lag reads short by a frame and a render;
* startup: a fresh interpreter importing coder's TUI and reaching the first paint of the
  main screen (imports included, interpreter start excluded), median of a few runs; the
  import of ``coder.ui.app`` alone is reported beside it.

* ``coder --help``: a fresh ``python -m coder --help``, whole process, median of the startup runs.

Targets (issue 23): <= 0.1 ms CPU/token at 5,000 tok/s; display lag p95 <= 50 ms at 1,000 tok/s and
<= 100 ms at 5,000 tok/s; first paint <= 0.8 s; ``coder --help`` <= 0.2 s.

``--compare-root OTHER`` measures another checkout side by side: every run of every rate (and
every startup) is made for both trees in turn, each in a fresh process, so both see the same
machine load; medians over ``--runs`` are reported.

    .venv/bin/python scripts/dev/bench_tui.py --out bench-results/tui.json
    .venv/bin/python scripts/dev/bench_tui.py --rates 1000 --seconds 2 --startup-runs 1
    .venv/bin/python scripts/dev/bench_tui.py --startup-only --startup-runs 5 --out bench-results/tui-startup.json
    git worktree add /tmp/base BASE_COMMIT
    .venv/bin/python scripts/dev/bench_tui.py --compare-root /tmp/base --runs 3 --out bench-results/tui-vs-base.json
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

DEFAULT_RECORDING = ROOT / "tests" / "data" / "ui" / "chat_reply.json"
TARGETS = {"cpu_ms_per_token_at_5000": 0.1, "lag_ms_p95_at_1000": 50.0, "lag_ms_p95_at_5000": 100.0,
           "startup_s": 0.8, "help_s": 0.2}

_STARTUP_SNIPPET = r"""
import time
t0 = time.perf_counter()
import asyncio, sys
from pathlib import Path
sys.path.insert(0, {root!r})
from coder import config
try:
    from coder.conversations import new_conversation
except ImportError:  # trees before 30e6364 (e.g. 315d46b) called it a session
    from coder.sessions import new_session as new_conversation
from coder.ui.app import CoderApp
t_import = time.perf_counter() - t0

async def main() -> None:
    root = Path({repo!r})
    app = CoderApp(root, config.load(root), new_conversation(root), offer_start=False,
                   persist_theme=False)
    painted = asyncio.Event()
    async with app.run_test(size=(120, 40)) as pilot:
        while not hasattr(app, "main") or not app.main.is_mounted:
            await asyncio.sleep(0.001)
        app.main.call_after_refresh(painted.set)
        await painted.wait()
        print(t_import, time.perf_counter() - t0)

asyncio.run(main())
"""


class Probe:
    """LagProbe: records when each batch was appended and when the refresh showing it finished."""

    def __init__(self) -> None:
        self.lags: list[float] = []
        self.batches = 0
        self.tokens = 0
        self.done = asyncio.Event()

    def appended(self, batch: Any) -> None:
        self.batches += 1
        self.tokens += batch.chunks

    def visible(self, batch: Any) -> None:
        self.lags.append(time.monotonic() - batch.first_arrival)

    def finished(self) -> None:
        self.done.set()


def make_repo() -> Path:
    import git

    root = Path(tempfile.mkdtemp(prefix="coder-bench-tui-")) / "repo"
    root.mkdir()
    repo = git.Repo.init(root)
    with repo.config_writer() as cfg:
        cfg.set_value("user", "name", "bench")
        cfg.set_value("user", "email", "bench@example.com")
    (root / "main.py").write_text("print('hi')\n")
    repo.index.add(["main.py"])
    repo.index.commit("initial")
    return root


def _new_conversation(repo: Path) -> Any:
    try:
        from coder.conversations import new_conversation
    except ImportError:  # trees before 30e6364 (e.g. 315d46b) called it a session
        from coder.sessions import new_session as new_conversation  # type: ignore[no-redef]
    return new_conversation(repo)


def _replay_module() -> str:
    """Where the ReplayServer test double lives in the tree being measured."""
    import importlib.util

    return "coder.testing.replay" if importlib.util.find_spec("coder.testing") else "coder.session.replay"


def serve(recording: Path, rate: float, repeat: int) -> tuple[subprocess.Popen[str], str]:
    """The ReplayServer test double in its own process; returns it and its URL."""
    proc = subprocess.Popen([sys.executable, "-m", _replay_module(), str(recording), "--rate", str(rate),
                             "--stretch", str(repeat), "--loose"], stdout=subprocess.PIPE, text=True, cwd=ROOT)
    assert proc.stdout is not None
    return proc, proc.stdout.readline().strip()


async def stream_once(repo: Path, recording_path: Path, rate: float, seconds: float) -> dict[str, Any]:
    from coder import config
    try:
        from coder.testing.replay import HttpRecording
    except ImportError:  # trees before the testing package (e.g. 315d46b)
        from coder.session.replay import HttpRecording  # type: ignore[no-redef]
    import coder
    from coder.ui.app import CoderApp
    from coder.ui.widgets.conversation.prompt import PromptInput

    coder.WHOLE_PROCESS = True  # this process is the app's, as under the coder command (its collector settings)
    base = HttpRecording.load(recording_path)
    chunks = sum(1 for _, data in base.chats[0].events if '"content"' in data)
    repeat = max(1, -(-int(rate * seconds) // max(1, chunks)))
    proc, url = serve(recording_path, rate, repeat)
    probe = Probe()
    try:
        app = CoderApp(repo, config.load(repo), _new_conversation(repo), server=base.server_info(url),
                       lag_probe=probe, persist_theme=False, persist_state=False, chat_max_tokens=100_000)
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause()
            prompt = app.main.query_one(PromptInput)
            prompt.value = "?stream please"
            cpu0, wall0 = time.process_time(), time.perf_counter()
            await pilot.press("enter")
            await asyncio.wait_for(probe.done.wait(), timeout=seconds * 5 + 60)
            cpu1, wall1 = time.process_time(), time.perf_counter()
            await pilot.pause()
    finally:
        proc.terminate()
        proc.wait(10)
    tokens = probe.tokens
    lags = sorted(probe.lags)
    return {
        "rate_tok_s": rate,
        "tokens": tokens,
        "tokens_seen": probe.tokens,
        "batches": probe.batches,
        "wall_s": round(wall1 - wall0, 3),
        "delivered_tok_s": round(tokens / (wall1 - wall0), 1),
        "cpu_s": round(cpu1 - cpu0, 4),
        "cpu_ms_per_token": round((cpu1 - cpu0) * 1000 / max(1, tokens), 4),
        "lag_ms_p50": round(statistics.median(lags) * 1000, 2) if lags else None,
        "lag_ms_p95": round(lags[min(len(lags) - 1, int(len(lags) * 0.95))] * 1000, 2) if lags else None,
        "lag_ms_max": round(lags[-1] * 1000, 2) if lags else None,
    }


def startup(repo: Path, runs: int, root: Path = ROOT) -> dict[str, Any]:
    """Median startup to first paint of the TUI in ``root``'s checkout, over ``runs`` fresh interpreters."""
    times: list[float] = []
    imports: list[float] = []
    walls: list[float] = []
    env = dict(os.environ)
    for _ in range(runs):
        t0 = time.perf_counter()
        out = subprocess.run([sys.executable, "-c", _STARTUP_SNIPPET.format(root=str(root), repo=str(repo))],
                             capture_output=True, text=True, env=env, timeout=120, cwd=root)
        walls.append(time.perf_counter() - t0)
        if out.returncode != 0:
            raise SystemExit(f"startup run failed:\n{out.stderr[-2000:]}")
        t_import, t_paint = (float(x) for x in out.stdout.strip().splitlines()[-1].split())
        imports.append(t_import)
        times.append(t_paint)
    return {"runs": runs, "first_paint_s": round(statistics.median(times), 3),
            "first_paint_s_all": [round(t, 3) for t in times],
            "import_s": round(statistics.median(imports), 3),
            "process_wall_s": round(statistics.median(walls), 3)}


def help_time(runs: int, root: Path = ROOT) -> float:
    """Median wall time of a fresh ``python -m coder --help`` in ``root``'s checkout."""
    env = {**os.environ, "PYTHONPATH": str(root)}
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-m", "coder", "--help"], capture_output=True, env=env, cwd=root,
                       check=True, timeout=60)
        times.append(time.perf_counter() - t0)
    return round(statistics.median(times), 3)


def stream_in(tree: Path, rate: float, seconds: float, recording: Path) -> dict[str, Any]:
    """One measured stream of the TUI of ``tree`` (its own fresh process, with its own warm-up run)."""
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        env = {**os.environ, "PYTHONPATH": str(tree)}
        subprocess.run([sys.executable, str(Path(__file__).resolve()), "--tree", str(tree), "--rates", str(rate),
                        "--seconds", str(seconds), "--startup-runs", "0", "--recording", str(recording),
                        "--out", out.name], env=env, check=True, capture_output=True, timeout=600)
        row: dict[str, Any] = json.loads(Path(out.name).read_text())["streams"][0]
    return row


def _median_rows(rows: list[dict[str, Any]]) -> dict[str, Any]:
    keys = [k for k, v in rows[0].items() if isinstance(v, int | float)]
    out: dict[str, Any] = {k: round(statistics.median(r[k] for r in rows), 4) for k in keys}
    out["runs"] = len(rows)
    return out


def side_by_side(other: Path, rates: list[float], seconds: float, runs: int,
                 recording: Path) -> dict[str, Any]:
    """Every rate, ``runs`` times, for this tree and ``other`` in turn: medians per rate and tree."""
    mine: dict[float, list[dict[str, Any]]] = {r: [] for r in rates}
    theirs: dict[float, list[dict[str, Any]]] = {r: [] for r in rates}
    for _ in range(runs):
        for rate in rates:
            mine[rate].append(stream_in(ROOT, rate, seconds, recording))
            theirs[rate].append(stream_in(other, rate, seconds, recording))
    return {"this": [_median_rows(mine[r]) for r in rates], "other": [_median_rows(theirs[r]) for r in rates]}


def _table(title: str, streams: list[dict[str, Any]]) -> None:
    print(title)
    print(f"{'tok/s':>7} {'tokens':>7} {'batches':>7} {'CPU ms/tok':>10} {'lag p50':>8} {'lag p95':>8} "
          f"{'lag max':>8}")
    for row in streams:
        print(f"{row['rate_tok_s']:>7.0f} {row['tokens']:>7.0f} {row['batches']:>7.0f} "
              f"{row['cpu_ms_per_token']:>10.4f} {row['lag_ms_p50']:>7.1f}ms {row['lag_ms_p95']:>7.1f}ms "
              f"{row['lag_ms_max']:>7.1f}ms")


def verdict(streams: list[dict[str, Any]], boot: dict[str, Any] | None,
            help_s: float | None) -> dict[str, Any]:
    """Which targets the measured rows meet (None where the row was not measured)."""
    by_rate = {r["rate_tok_s"]: r for r in streams}

    def lag_ok(rate: float, key: str) -> bool | None:
        return None if rate not in by_rate else by_rate[rate]["lag_ms_p95"] <= TARGETS[key]

    return {
        "cpu_ok_at_5000": None if 5000 not in by_rate else
        by_rate[5000]["cpu_ms_per_token"] <= TARGETS["cpu_ms_per_token_at_5000"],
        "lag_ok_at_1000": lag_ok(1000, "lag_ms_p95_at_1000"),
        "lag_ok_at_5000": lag_ok(5000, "lag_ms_p95_at_5000"),
        "startup_ok": None if boot is None else boot["first_paint_s"] <= TARGETS["startup_s"],
        "help_ok": None if help_s is None else help_s <= TARGETS["help_s"],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rates", default="200,1000,5000", help="tokens/s to replay (comma separated)")
    parser.add_argument("--seconds", type=float, default=3.0, help="stream length per rate (default 3 s)")
    parser.add_argument("--recording", type=Path, default=DEFAULT_RECORDING, help="recorded reply JSON")
    parser.add_argument("--startup-runs", type=int, default=3)
    parser.add_argument("--startup-only", action="store_true", help="measure only startup to first paint")
    parser.add_argument("--compare-root", type=Path,
                        help="another checkout of coder (`git worktree add /tmp/base 315d46b`): streams, startup "
                             "and --help are measured for both, interleaved, so the ratio is side by side")
    parser.add_argument("--runs", type=int, default=3, help="runs per rate and tree with --compare-root")
    parser.add_argument("--tree", type=Path, help=argparse.SUPPRESS)  # internal: import coder from this checkout
    parser.add_argument("--out", type=Path, help="write the results as JSON here")
    args = parser.parse_args(argv)
    if args.tree is not None:
        sys.path.insert(0, str(args.tree.resolve()))

    os.environ.setdefault("CODER_HOME", tempfile.mkdtemp(prefix="coder-bench-home-"))
    repo = make_repo()
    rates = [] if args.startup_only else [float(r) for r in args.rates.split(",") if r.strip()]
    compare = None
    if args.compare_root is not None:
        compare = side_by_side(args.compare_root.resolve(), rates, args.seconds, args.runs, args.recording)
        streams = compare["this"]
    else:
        if rates:
            # one unmeasured run first: one-time costs (lexer compilation, lazy imports) are not per-token costs
            asyncio.run(stream_once(repo, args.recording, 5000, 0.2))
        streams = [asyncio.run(stream_once(repo, args.recording, rate, args.seconds)) for rate in rates]
    boot = help_s = None
    startup_compare = None
    if args.startup_runs > 0 and args.tree is None:
        if args.compare_root is not None:
            mine, theirs, help_mine, help_theirs = [], [], [], []
            for _ in range(args.startup_runs):  # interleaved: both see the same machine load
                mine.append(startup(repo, 1)["first_paint_s"])
                theirs.append(startup(repo, 1, args.compare_root)["first_paint_s"])
                help_mine.append(help_time(1))
                help_theirs.append(help_time(1, args.compare_root))
            boot = {"runs": args.startup_runs, "first_paint_s": round(statistics.median(mine), 3),
                    "first_paint_s_all": mine, "import_s": None, "process_wall_s": None}
            help_s = round(statistics.median(help_mine), 3)
            startup_compare = {"root": str(args.compare_root), "first_paint_s": round(statistics.median(theirs), 3),
                               "help_s": round(statistics.median(help_theirs), 3)}
        else:
            boot = startup(repo, args.startup_runs)
            help_s = help_time(args.startup_runs)

    if compare is not None:
        _table(f"this tree ({ROOT}), median of {args.runs} runs:", compare["this"])
        _table(f"other tree ({args.compare_root}), median of {args.runs} runs:", compare["other"])
    elif streams:
        _table("this tree:", streams)
    if boot:
        print(f"startup to first paint: {boot['first_paint_s']:.3f} s (median of {boot['runs']}); "
              f"coder --help {help_s:.3f} s")
    if startup_compare:
        print(f"other tree: first paint {startup_compare['first_paint_s']:.3f} s; "
              f"coder --help {startup_compare['help_s']:.3f} s")
    result = verdict(streams, boot, help_s)
    print("targets:", json.dumps(result))
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps({"targets": TARGETS, "verdict": result, "streams": streams,
                                        "compare": compare, "startup": boot, "help_s": help_s,
                                        "startup_compare": startup_compare, "recording": str(args.recording),
                                        "cpus": os.cpu_count(), "load_avg": os.getloadavg()}, indent=2))
        print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
