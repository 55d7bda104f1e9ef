#!/usr/bin/env python3
"""Benchmark k per request class on the real llama-server: default k=3, a fixed-k sweep, adaptive.

For every speculation config (n-gram, model-as-own-drafter, synthetic acceptance shaped
like the seeds' regimes) one llama-server is launched at the deepest k; every other k
is reached with coder's per-request draft cap (no restarts). Per request class
(``full`` rewrite and ``region`` edit of real 200–400-line source files, ``fresh``
prose) it measures decode tokens/s (server ``timings``: predicted_n / predicted_ms) of:

* ``k=3``: llama.cpp's default draft depth;
* every k of the sweep; the best of them is the oracle;
* the adaptive controller (coder.kpolicy.controller) after its burn-in, probes included.

Examples::

    .venv/bin/python scripts/bench_k.py --quick
    .venv/bin/python scripts/bench_k.py --configs ngram-simple,synth-edit --out /tmp/bench_k.json
    .venv/bin/python scripts/bench_k.py --configs draft-simple --record tests/data/kpolicy

Targets: adaptive ≥ 0.97 × oracle in every class; ≥ 1.2 × k=3 on full rewrites.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import textwrap
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from coder.backends.runtime import manager  # noqa: E402
from coder.backends.runtime.handle import chat_client  # noqa: E402
from coder.backends.runtime.server import ServerInfo  # noqa: E402
from coder.config import Profile  # noqa: E402
from coder.edit.run.prompt import build_messages  # noqa: E402
from coder.kpolicy.controller import KController, is_clean  # noqa: E402
from coder.telemetry import figures  # noqa: E402
from coder.telemetry.metrics import SpecDelta  # noqa: E402
from coder.telemetry.stats import Reply, RequestStats  # noqa: E402

DEFAULT_MODEL = Path.home() / ".local/share/coder/models/SmolLM2-135M-Instruct.Q4_1.gguf"
CLASSES = ("full", "region", "fresh")


def _rates(per_position: float, n: int) -> str:
    return ",".join(f"{per_position ** (i + 1):.6f}" for i in range(n))


# name -> (launch k, llama-server speculation flags); {k} and {model} are filled in
CONFIGS: dict[str, tuple[int, list[str]]] = {
    "ngram-simple": (8, ["--spec-type", "ngram-simple", "--spec-draft-n-max", "{k}",
                         "--spec-ngram-simple-size-n", "4", "--spec-ngram-simple-size-m", "{k}"]),
    "ngram-mod": (8, ["--spec-type", "ngram-mod", "--spec-draft-n-max", "{k}",
                      "--spec-ngram-mod-n-max", "{k}", "--spec-ngram-mod-n-min", "1",
                      "--spec-ngram-mod-n-match", "16"]),
    "draft-simple": (8, ["--spec-type", "draft-simple", "-md", "{model}", "--spec-draft-n-max", "{k}"]),
    # edit-heavy regime: ≈0.99 acceptance at every position (unconditional rates 0.99^i)
    "synth-edit": (8, ["--spec-type", "draft-simple", "-md", "{model}", "--spec-draft-n-max", "{k}",
                       "--spec-synth-rates", _rates(0.99, 8)]),
    # generative regime: mean acceptance length 4.5 over 7 positions (geometric, like DFlash 2 at k=7)
    "synth-gen": (7, ["--spec-type", "draft-simple", "-md", "{model}", "--spec-draft-n-max", "{k}",
                      "--spec-synth-len", "4.5"]),
}

INSTRUCTIONS = {
    "full": "Add a one-line docstring to every function that lacks one. Keep all other lines unchanged.",
    "region": "Rename the local variables to longer descriptive names. Keep the behaviour unchanged.",
}
FRESH_PROMPTS = (
    "Write a short essay on why version control matters for small teams, with concrete examples.",
    "Explain to a new programmer how a hash table works and when it is a poor choice.",
    "Describe the trade-offs between threads and async I/O in Python web servers.",
)


def _sources() -> list[tuple[str, str]]:
    """Real 200–400-line Python files: coder's own samples, else the stdlib's textwrap."""
    out = []
    for path in sorted((ROOT / "coder" / "samples").glob("*.py")):
        text = path.read_text()
        if 200 <= text.count("\n") <= 400:
            out.append((path.name, text))
    return out or [("textwrap.py", Path(textwrap.__file__).read_text())]


def prompts(cls: str) -> list[list[dict[str, str]]]:
    """Chat messages per class, built with the edit engine's own prompt layout."""
    if cls == "fresh":
        return [[{"role": "user", "content": p}] for p in FRESH_PROMPTS]
    out = []
    for name, text in _sources():
        if cls == "full":
            out.append(build_messages(name, text, INSTRUCTIONS["full"], mode="full").messages)
        else:
            lines = text.splitlines(keepends=True)
            mid = len(lines) // 3
            region, before, after = "".join(lines[mid:mid + 40]), "".join(lines[mid - 4:mid]), \
                "".join(lines[mid + 40:mid + 44])
            out.append(build_messages(name, region, INSTRUCTIONS["region"], mode="region",
                                      before=before, after=after, region_label=f"lines {mid + 1}-{mid + 40}")
                       .messages)
    return out


# ---- server --------------------------------------------------------------------------------
def find_binary(explicit: str | None) -> str:
    if explicit:
        return explicit
    from coder.backends.installed import find_installed

    build = find_installed()
    if build is None:
        sys.exit("no llama-server build found; run `coder backend install llama.cpp` or pass --binary")
    return str(build.binary)


@contextlib.contextmanager
def launch(binary: str, model: Path, config: str, threads: int, ctx: int, ngl: int | None) -> Iterator[ServerInfo]:
    """Start ``config`` through coder's own manager (launch, wait, verify, probe) and stop it after."""
    k, flags = CONFIGS[config]
    args = [f.format(k=k, model=model) for f in flags]
    spec = args[args.index("--spec-type") + 1]
    drafter = str(model) if "-md" in args else None
    extra = [a for i, a in enumerate(args)
             if a not in ("--spec-type", "-md", "--spec-draft-n-max")
             and args[i - 1] not in ("--spec-type", "-md", "--spec-draft-n-max")]
    profile = Profile(name=f"bench-k-{config}", binary=binary, model=str(model), drafter=drafter, spec_type=spec,
                      k=k, threads=threads, ctx=ctx, ngl=ngl, extra_args=extra)
    info = manager.start(profile)
    try:
        if not info.draft_cap:
            sys.exit(f"{binary} does not honour the per-request draft cap (needs coder's build)")
        yield info
    finally:
        manager.stop(profile.name)


# ---- measurement ---------------------------------------------------------------------------
@dataclass
class Tally:
    """Ratio of sums over requests: decode tokens / decode time (server CPU and wall)."""

    tokens: float = 0.0
    ms: float = 0.0  # the clock the comparison uses (see --clock)
    wall_ms: float = 0.0
    drafts: float = 0.0
    accepted: float = 0.0
    ks: list[int] = field(default_factory=list)

    def add(self, res: RequestStats, delta: SpecDelta, k: int) -> None:
        self.tokens += float(res.timings.get("predicted_n", 0))
        self.ms += float(res.timings.get("predicted_ms", 0))
        self.wall_ms += float(res.timings.get("wall_predicted_ms", res.timings.get("predicted_ms", 0)))
        self.drafts += delta.drafts
        self.accepted += delta.accepted
        self.ks.append(k)

    @property
    def tps(self) -> float:
        return 1000 * self.tokens / self.ms if self.ms else 0.0

    @property
    def wall_tps(self) -> float:
        return 1000 * self.tokens / self.wall_ms if self.wall_ms else 0.0

    @property
    def accept_len(self) -> float | None:
        return figures.exact_acceptance_length(self.accepted, self.drafts)


CLOCK = {"mode": "cpu"}  # set from --clock in main()


def _cpu_ms(pid: int | None) -> float | None:
    """User+system CPU time of the server process: immune to other tenants' load (with -t 1)."""
    if pid is None:
        return None
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf("SC_CLK_TCK")


def run_one(info: ServerInfo, messages: list[dict[str, str]], k: int, max_tokens: int) -> tuple[RequestStats,
                                                                                               SpecDelta]:
    """One request at cap ``k``; with ``--clock cpu`` its ``predicted_ms`` becomes server CPU ms.

    On an oversubscribed machine wall time measures the neighbours as much as k; the
    server's own CPU time (one thread) is what a dedicated core would spend.
    """
    with info.api(timeout=30) as api:
        before = api.metrics()
        cpu0 = _cpu_ms(info.pid)
        result: RequestStats | None = None
        for item in chat_client(info).stream(messages, max_tokens=max_tokens, k_cap=k, cache_prompt=True):
            if isinstance(item, Reply):
                result = item.stats
        cpu1 = _cpu_ms(info.pid)
        after = api.metrics()
    assert result is not None
    result.timings["wall_predicted_ms"] = result.timings.get("predicted_ms", 0)
    if CLOCK["mode"] == "cpu" and cpu0 is not None and cpu1 is not None and cpu1 > cpu0:
        result.timings["predicted_ms"] = cpu1 - cpu0
    return result, after - before


def bench_config(info: ServerInfo, k_max: int, ks: list[int], rounds: int, burn_in: int, max_tokens: int,
                 record: dict[str, Any] | None) -> dict[str, Any]:
    """Per class: burn the controller in, then rounds of (every fixed k, one adaptive request).

    Interleaving the adaptive requests with the sweep exposes both to the same drift
    (other tenants of the machine), so their ratio is fair even when absolute speeds move.
    """
    out: dict[str, Any] = {}
    step_ms: dict[int, list[float]] = {}
    for cls in CLASSES:
        messages = prompts(cls)[0]
        run_one(info, messages, k_max, 8)  # prompt into the cache: every request decodes from the same state
        fixed: dict[int, Tally] = {k: Tally() for k in ks}
        deepest = SpecDelta()
        ctrl = KController(k_max)
        adaptive = Tally()

        for _ in range(burn_in):
            adaptive_request(info, ctrl, cls, messages, max_tokens, None)
        for rnd in range(rounds):
            for k in ks if rnd % 2 == 0 else ks[::-1]:
                res, delta = run_one(info, messages, k, max_tokens)
                fixed[k].add(res, delta, k)
                steps = res.timings.get("predicted_n", 0) - res.timings.get("draft_n_accepted", 0)
                if steps:
                    step_ms.setdefault(k, []).append(res.timings["predicted_ms"] / steps)
                if k == k_max and is_clean(delta, k):
                    deepest = _add(deepest, delta)
            adaptive_request(info, ctrl, cls, messages, max_tokens, adaptive)
        oracle_k = max(fixed, key=lambda k: fixed[k].tps)
        best, k3 = fixed[oracle_k].tps, fixed[3].tps if 3 in fixed else 0.0
        out[cls] = {
            "fixed": {k: {"tok_s": round(t.tps, 2), "wall_tok_s": round(t.wall_tps, 2),
                          "accept_len": _r(t.accept_len), "tokens": t.tokens} for k, t in fixed.items()},
            "default_k3": round(k3, 2) if 3 in fixed else None,
            "oracle_k": oracle_k,
            "oracle": round(best, 2),
            "adaptive": round(adaptive.tps, 2),
            "adaptive_wall": round(adaptive.wall_tps, 2),
            "oracle_wall": round(max(t.wall_tps for t in fixed.values()), 2),
            "adaptive_ks": adaptive.ks,
            "adaptive_final_reason": ctrl.choose(cls).reason,
            "adaptive_vs_oracle": round(adaptive.tps / best, 3) if best else None,
            "adaptive_vs_k3": round(adaptive.tps / k3, 3) if k3 else None,
        }
        print(f"  {cls}: k3 {k3:.1f} oracle {best:.1f} (k={oracle_k}) adaptive {adaptive.tps:.1f} "
              f"ks={adaptive.ks}", file=sys.stderr, flush=True)
        if record is not None:
            record["classes"][cls] = {"drafts": deepest.drafts,
                                      "accepted_per_pos": list(deepest.accepted_per_pos)[:k_max]}
    if record is not None:
        record["step_ms"] = {k: round(sum(v) / len(v), 3) for k, v in sorted(step_ms.items())}
    return out


def adaptive_request(info: ServerInfo, ctrl: KController, cls: str, messages: list[dict[str, str]],
                     max_tokens: int, tally: Tally | None) -> None:
    """One request at the controller's k, fed back to it (and counted when ``tally`` is given)."""
    decision = ctrl.choose(cls)
    res, delta = run_one(info, messages, decision.k, max_tokens)
    ctrl.observe(cls, decision.k, res.timings, delta, alone=abs(delta.draft_tokens - (res.draft_n or 0)) < 0.5)
    if tally is not None:
        tally.add(res, delta, decision.k)


def _add(a: SpecDelta, b: SpecDelta) -> SpecDelta:
    n = max(len(a.accepted_per_pos), len(b.accepted_per_pos))
    pad = lambda v: list(v) + [0.0] * (n - len(v))  # noqa: E731
    return SpecDelta(drafts=a.drafts + b.drafts, draft_tokens=a.draft_tokens + b.draft_tokens,
                     accepted=a.accepted + b.accepted,
                     accepted_per_pos=tuple(x + y for x, y in zip(pad(a.accepted_per_pos),
                                                                  pad(b.accepted_per_pos), strict=True)))


def _r(v: float | None) -> float | None:
    return round(v, 3) if v is not None else None


def table(results: dict[str, Any]) -> str:
    head = (f"{'config':<13}{'class':<8}{'k=3':>8}{'oracle':>14}{'adaptive':>10}{'ad/or':>7}{'ad/k3':>7}{'wall':>8}"
            "  sweep (k:tok/s)")
    lines = [head, "-" * len(head)]
    for config, classes in results.items():
        for cls, r in classes.items():
            sweep = " ".join(f"{k}:{v['tok_s']:.1f}" for k, v in r["fixed"].items())
            k3 = f"{r['default_k3']:.1f}" if r["default_k3"] is not None else "-"
            ratio_or, ratio_k3 = r["adaptive_vs_oracle"] or 0, r["adaptive_vs_k3"] or 0
            wall = r["adaptive_wall"] / r["oracle_wall"] if r["oracle_wall"] else 0
            lines.append(f"{config:<13}{cls:<8}{k3:>8}{r['oracle']:>9.1f} k={r['oracle_k']:<2}"
                         f"{r['adaptive']:>10.1f}{ratio_or:>7.3f}{ratio_k3:>7.3f}{wall:>8.3f}  {sweep}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="short run: fewer k, configs, tokens")
    parser.add_argument("--configs", default=None, help=f"comma list of {', '.join(CONFIGS)}")
    parser.add_argument("--binary", default=None)
    parser.add_argument("--model", default=str(DEFAULT_MODEL))
    parser.add_argument("--threads", type=int, default=1,
                        help="llama-server threads (1 avoids spin-wait collapse on oversubscribed cores)")
    parser.add_argument("--max-tokens", type=int, default=None)
    parser.add_argument("--ngl", type=int, default=None, help="GPU layers (-ngl) for a CUDA build")
    parser.add_argument("--clock", choices=("cpu", "wall"), default="cpu",
                        help="time per request: server CPU time (default; robust to other load) or wall")
    parser.add_argument("--rounds", type=int, default=None, help="sweep rounds (default 1 quick, 3 full)")
    parser.add_argument("--out", default="bench_k.json", help="JSON results path (default: ./bench_k.json)")
    parser.add_argument("--record", default=None, help="also write per-position statistics to this directory")
    args = parser.parse_args(argv)
    names = args.configs.split(",") if args.configs else (
        ["ngram-simple", "synth-edit"] if args.quick else list(CONFIGS))
    unknown = [n for n in names if n not in CONFIGS]
    if unknown:
        parser.error(f"unknown config(s): {', '.join(unknown)}")
    CLOCK["mode"] = args.clock
    max_tokens = args.max_tokens or (64 if args.quick else 96)
    rounds = args.rounds or (1 if args.quick else 2)
    binary = find_binary(args.binary)
    results: dict[str, Any] = {}
    started = time.monotonic()
    for name in names:
        k_max = CONFIGS[name][0]
        ks = sorted({1, 2, 3, 5, k_max} if args.quick else {1, 2, 3, 4, 6, k_max})
        record: dict[str, Any] | None = {"config": name, "source": "scripts/bench_k.py", "classes": {}} \
            if args.record else None
        t0 = time.monotonic()
        with launch(binary, Path(args.model), name, args.threads, 4096, args.ngl) as info:
            results[name] = bench_config(info, k_max, ks, rounds, burn_in=3 if args.quick else 4,
                                         max_tokens=max_tokens, record=record)
        print(f"[{name}: {time.monotonic() - t0:.0f} s]", file=sys.stderr)
        if record is not None and any(c["drafts"] for c in record["classes"].values()):
            path = Path(args.record) / f"{name}.json"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(record, indent=1))
        meta = {"binary": binary, "model": args.model, "max_tokens": max_tokens, "rounds": rounds,
                "threads": args.threads, "quick": args.quick, "clock": args.clock,
                "seconds": round(time.monotonic() - started, 1),
                "metric": "decode tok/s = Σ predicted_n / Σ decode time; time = server CPU ms (--clock cpu) "
                          "or llama.cpp timings.predicted_ms (--clock wall)"}
        out = Path(args.out)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps({"meta": meta, "results": results}, indent=1))  # after every config
    print(table(results))
    print(f"\nJSON: {args.out}  ({time.monotonic() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
