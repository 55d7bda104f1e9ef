"""Measurements against one running server: single-stream, concurrency and prefill runs.

Every run records each request's raw numbers and the engine's own speculation
counters snapshotted around it. llama.cpp folds a request's counters into
``/metrics`` only when its slot is released, which can lag the end of the stream,
so snapshots wait until the generated-token counter has caught up with what this
runner has issued (see :class:`Counters`).
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from typing import Any, Protocol

from coder.backends.server import ServerAPI, ServerInfo
from coder.bench import stats
from coder.bench.workloads import Workload, prefill_messages
from coder.errors import CoderError
from coder.redact import redact_argv
from coder.telemetry.metrics import SpecDelta, SpecStats
from coder.telemetry.stream import Delta, StreamResult

THINKING_OFF = {"chat_template_kwargs": {"enable_thinking": False}}
WARMUP = Workload("warm-up", "fresh", [{"role": "user", "content": "Count from one to ten in words."}])


class Progress(Protocol):
    """Where a run reports work: ``add`` grows the total, ``step`` marks one request done."""

    def add(self, n: int) -> None: ...

    def step(self, description: str) -> None: ...


class NullProgress:
    def add(self, n: int) -> None:
        pass

    def step(self, description: str) -> None:
        pass


@dataclass
class Settings:
    """Method knobs (defaults follow the seeds: 3 reps, 512 tokens, greedy, thinking off)."""

    reps: int = 3
    max_tokens: int = 512
    temperature: float = 0.0
    warmup: bool = True
    cold: bool = True  # defeat the prefix cache (llama.cpp cache_prompt:false, else a unique prefix)
    per_request_counters: bool = True  # snapshot /metrics around every single-stream request
    prefill_chars: int = 6000
    settle_timeout: float = 5.0


@dataclass
class RequestRecord:
    """Raw numbers of one request (times in seconds; ``start``/``end`` relative to the run's t0)."""

    workload: str
    cls: str
    rep: int
    k_cap: int | None = None
    start: float = 0.0
    end: float = 0.0
    ttft: float | None = None
    wall: float = 0.0
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    cached_tokens: int | None = None
    finish_reason: str | None = None
    chunks: int = 0  # content-bearing SSE frames (≠ tokens under speculation)
    draft_n: int | None = None
    draft_n_accepted: int | None = None
    timings: dict[str, Any] = field(default_factory=dict)
    decode_tps: float | None = None
    tpot: float | None = None
    derived_al: float | None = None
    spec: dict[str, Any] | None = None  # counter delta around this request (single-stream only)
    text: str = ""
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None and bool(self.completion_tokens)


@dataclass
class RunResult:
    """One measured run: its configuration, every request, counters and a summary."""

    kind: str  # single | concurrency | prefill
    label: str
    server: dict[str, Any]
    k: int | None = None  # effective draft depth of the run (None = no speculation)
    k_applied: str | None = None  # launch | request-cap | restart | none
    concurrency: int = 1
    requests: list[RequestRecord] = field(default_factory=list)
    warmup: list[RequestRecord] = field(default_factory=list)
    counters_before: dict[str, Any] = field(default_factory=dict)
    counters_after: dict[str, Any] = field(default_factory=dict)
    counters_settled: bool = True
    spec: dict[str, Any] = field(default_factory=dict)
    summary: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def server_record(server: ServerInfo) -> dict[str, Any]:
    """The server facts every run carries (engine, build, model, drafter, k, argv)."""
    return {
        "url": server.url, "engine": server.engine, "profile": server.profile, "managed": server.managed,
        "model": server.model, "drafter": server.drafter, "spec_type": server.spec_type,
        "k_launch": server.k, "k_max": server.k_max, "draft_cap": server.draft_cap,
        "verified": server.verified, "verdict": server.verdict, "build": server.build,
        "argv": redact_argv(server.argv, [server.api_key]),
    }


def spec_json(delta: SpecDelta, k: int | None = None) -> dict[str, Any]:
    """A counter delta with every derived figure (survival and conditional per position)."""
    out: dict[str, Any] = {
        "drafts": delta.drafts, "draft_tokens": delta.draft_tokens, "accepted": delta.accepted,
        "generated": delta.generated, "accepted_per_pos": list(delta.accepted_per_pos),
        "drafted_per_pos": list(delta.drafted_per_pos),
        "acceptance_length": delta.acceptance_length, "acceptance_rate": delta.acceptance_rate,
        "mean_draft_len": delta.mean_draft_len,
        # llama.cpp sizes its per-position counters by the launch depth; under a per-request cap
        # the positions past k cannot be reached, so they are cut rather than shown as 0%.
        "survival": delta.survival()[:k] if k else delta.survival(),
        "conditional": delta.conditional()[:k] if k else delta.conditional(),
    }
    if k and delta.drafts > 0:
        # Steps whose draft was cut short (near max_tokens, or a drafter that stopped early)
        # cannot count at deep positions: this bounds how far survival is biased low.
        out["draft_slot_deficit"] = max(0.0, k * delta.drafts - delta.draft_tokens)
    return out


def stats_json(s: SpecStats) -> dict[str, Any]:
    return asdict(s)


class Counters:
    """``/metrics`` snapshots that wait until every request this runner issued is counted."""

    def __init__(self, api: ServerAPI, timeout: float = 5.0) -> None:
        self.api = api
        self.timeout = timeout
        self.enabled = True
        try:
            self.base = api.metrics()
        except CoderError:
            self.enabled = False  # no /metrics: acceptance is then reported from timings only
            self.base = SpecStats()
        self.issued = 0.0
        self._lock = threading.Lock()

    def count(self, tokens: int | None) -> None:
        with self._lock:
            self.issued += tokens or 0

    def snapshot(self) -> tuple[SpecStats, bool]:
        """A snapshot, and whether the counters had caught up (False: timed out waiting)."""
        if not self.enabled:
            return SpecStats(), False
        deadline = time.monotonic() + self.timeout
        while True:
            snap = self.api.metrics()
            # Counters that never move (an engine without a generated-token counter) can't be waited on.
            if snap.generated == 0 and self.base.generated == 0:
                return snap, True
            if snap.generated - self.base.generated >= self.issued:
                return snap, True
            if time.monotonic() > deadline:
                return snap, False
            time.sleep(0.02)


class Runner:
    """Runs workloads against one server; reuse it so warm-up happens once per server."""

    def __init__(self, server: ServerInfo, settings: Settings, progress: Progress | None = None) -> None:
        self.server = server
        self.settings = settings
        self.progress = progress or NullProgress()
        self.api = server.api(timeout=30)
        self.counters = Counters(self.api, settings.settle_timeout)
        self.warmed = False

    def close(self) -> None:
        self.api.close()

    # ------------------------------------------------------------ one request

    def _messages(self, w: Workload) -> list[dict[str, str]]:
        if not self.settings.cold or self.server.engine == "llama.cpp":
            return w.messages
        # vLLM/SGLang have no per-request cache switch: a unique first line makes every prefix new.
        first, *rest = w.messages
        nonce = f"[bench {uuid.uuid4().hex[:12]}]\n"
        return [{"role": first["role"], "content": nonce + first["content"]}, *rest]

    def request(self, w: Workload, rep: int, *, k_cap: int | None = None, max_tokens: int | None = None,
                cache_prompt: bool | None = None, t0: float | None = None) -> RequestRecord:
        """Send one streamed request and record it (errors are recorded, not raised)."""
        t0 = time.monotonic() if t0 is None else t0
        rec = RequestRecord(w.name, w.cls, rep, k_cap=k_cap)
        cold = self.settings.cold and self.server.engine == "llama.cpp"
        client = self.server.chat()
        rec.start = time.monotonic() - t0
        result: StreamResult | None = None
        try:
            for item in client.stream(
                self._messages(w), max_tokens=max_tokens or self.settings.max_tokens,
                temperature=self.settings.temperature, k_cap=k_cap,
                cache_prompt=cache_prompt if cache_prompt is not None else (False if cold else None),
                extra_body=THINKING_OFF,
            ):
                if isinstance(item, Delta):
                    rec.chunks += 1
                else:
                    result = item
        except CoderError as exc:
            rec.error = str(exc)
        rec.end = time.monotonic() - t0
        if result is not None:
            rec.ttft, rec.wall, rec.text = result.ttft, result.wall, result.text
            rec.prompt_tokens, rec.cached_tokens = result.prompt_tokens, result.cached_tokens
            rec.completion_tokens = result.completion_tokens
            rec.finish_reason, rec.timings = result.finish_reason, result.timings
            rec.draft_n, rec.draft_n_accepted = result.draft_n, result.draft_n_accepted
            rec.decode_tps = stats.decode_tps(rec.completion_tokens, rec.wall, rec.ttft)
            rec.tpot = stats.tpot(rec.completion_tokens, rec.wall, rec.ttft)
            rec.derived_al = stats.derived_acceptance_length(
                result.timings.get("predicted_n", rec.completion_tokens), rec.draft_n_accepted)
            if rec.completion_tokens is None and rec.error is None:
                rec.error = "the server returned no usage (completion_tokens); counts would be guesses"
            elif not rec.completion_tokens and rec.error is None:
                rec.error = "0 completion tokens"
        self.counters.count(result.timings.get("predicted_n", rec.completion_tokens) if result else None)
        return rec

    def warm_up(self) -> list[RequestRecord]:
        """One short untimed request so first-call costs (page-in, allocations) stay out of the numbers.

        Deliberately tiny: on a slow machine a full-size warm-up would cost as much as a measurement.
        """
        if self.warmed or not self.settings.warmup:
            return []
        self.warmed = True
        rec = self.request(WARMUP, -1, max_tokens=min(16, self.settings.max_tokens))
        self.progress.step("warm-up")
        return [rec]

    # ------------------------------------------------------------ runs

    def single(self, workloads: Sequence[Workload], *, label: str, k_cap: int | None = None,
               k: int | None = None, k_applied: str | None = None) -> RunResult:
        """Each workload ``reps`` times, one at a time (reps outer, so drift hits every prompt alike)."""
        if not workloads:
            raise CoderError("no workloads to run")
        run = RunResult("single", label, server_record(self.server), k=k, k_applied=k_applied)
        run.warmup = self.warm_up()
        before, ok_before = self.counters.snapshot()
        t0 = time.monotonic()
        settled, last = ok_before, before
        for rep in range(self.settings.reps):
            for w in workloads:
                rec = self.request(w, rep, k_cap=k_cap, t0=t0)
                if self.settings.per_request_counters and self.counters.enabled:
                    post, ok = self.counters.snapshot()
                    settled = settled and ok
                    rec.spec = spec_json(post - last, k)
                    last = post
                run.requests.append(rec)
                self.progress.step(f"{label} {w.name} #{rep + 1}")
        after, ok_after = self.counters.snapshot()
        self._close_run(run, before, after, settled and ok_after, k)
        run.summary = summarize_single(run.requests)
        return run

    def concurrency(self, workloads: Sequence[Workload], c: int, *, label: str, k: int | None = None,
                    k_cap: int | None = None, max_tokens: int | None = None,
                    slots: int | None = None) -> RunResult:
        """Closed loop with ``c`` streams over a balanced prompt list; aggregate tok/s includes TTFT."""
        order = stats.balanced_assignment(len(workloads), c)
        run = RunResult("concurrency", label, server_record(self.server), k=k, concurrency=c,
                        k_applied="request-cap" if k_cap is not None else "launch")
        run.warmup = self.warm_up()
        if slots is not None and c > slots:
            run.notes.append(f"c={c} exceeds the server's {slots} slot(s): requests queue inside the "
                             "server, so TTFT includes queueing (llama-server needs -np ≥ c)")
        if c < len(workloads):
            run.notes.append(f"c={c} < {len(workloads)} prompts: the mix is balanced over the run but "
                             "fewer prompts overlap at any instant (the seeds' c=1/c=2 caveat)")
        before, ok_before = self.counters.snapshot()
        t0 = time.monotonic()
        queue = list(enumerate(order))
        lock = threading.Lock()
        records: list[RequestRecord] = []

        def worker() -> None:
            while True:
                with lock:
                    if not queue:
                        return
                    i, idx = queue.pop(0)
                rec = self.request(workloads[idx], i // len(workloads), k_cap=k_cap,
                                   max_tokens=max_tokens, t0=t0)
                with lock:
                    records.append(rec)
                self.progress.step(f"{label} c={c}")

        with ThreadPoolExecutor(max_workers=c) as pool:
            for f in [pool.submit(worker) for _ in range(c)]:
                f.result()
        run.requests = sorted(records, key=lambda r: r.start)
        after, ok_after = self.counters.snapshot()
        self._close_run(run, before, after, ok_before and ok_after, k)
        run.summary = summarize_concurrency(run.requests, c)
        active = run.summary.get("mean_active_streams")
        if active is not None and active < 0.85 * c:
            run.notes.append(f"only {active:.2f} of {c} streams busy on average: unequal output lengths "
                             "leave a tail where fewer requests run (imbalance)")
        return run

    def prefill(self, *, label: str) -> RunResult:
        """Prompt-processing speed on a long prompt: cold (cache off) and warm (cache reused) separately."""
        w = Workload("prefill", "fresh", prefill_messages(self.settings.prefill_chars))
        run = RunResult("prefill", label, server_record(self.server), k=self.server.k)
        run.warmup = self.warm_up()
        before, ok_before = self.counters.snapshot()
        t0 = time.monotonic()
        for rep in range(self.settings.reps):
            rec = self.request(w, rep, max_tokens=8, t0=t0)
            rec.cls = "cold"
            run.requests.append(rec)
            self.progress.step(f"{label} prefill cold #{rep + 1}")
        if self.server.engine == "llama.cpp":
            # Reuse is the point here: fill the cache, then time a request that hits it.
            self.request(w, -1, max_tokens=8, cache_prompt=True, t0=t0)
            rec = self.request(w, 0, max_tokens=8, cache_prompt=True, t0=t0)
            rec.cls = "warm"
            run.requests.append(rec)
        else:
            run.notes.append("warm (cached) prefill is only measured on llama.cpp (cache_prompt)")
        self.progress.step(f"{label} prefill warm")
        after, ok_after = self.counters.snapshot()
        self._close_run(run, before, after, ok_before and ok_after, None)
        run.summary = summarize_prefill(run.requests)
        return run

    def _close_run(self, run: RunResult, before: SpecStats, after: SpecStats, settled: bool,
                   k: int | None) -> None:
        run.counters_before, run.counters_after = stats_json(before), stats_json(after)
        run.counters_settled = settled
        if self.counters.enabled:
            run.spec = spec_json(after - before, k)
            if not settled:
                run.notes.append("the engine's counters had not caught up when read: acceptance may be low")
        else:
            run.notes.append("no /metrics endpoint: acceptance length is derived from timings only")


# ---------------------------------------------------------------- summaries


def _by_workload(records: Sequence[RequestRecord]) -> dict[str, list[RequestRecord]]:
    out: dict[str, list[RequestRecord]] = {}
    for r in records:
        out.setdefault(r.workload, []).append(r)
    return out


def summarize_single(records: Sequence[RequestRecord]) -> dict[str, Any]:
    """Per-prompt medians, per-class and overall mean of medians, TTFT, lengths, errors."""
    ok = [r for r in records if r.ok]
    per_prompt: dict[str, Any] = {}
    by_class: dict[str, dict[str, list[float]]] = {}
    for name, recs in _by_workload(ok).items():
        tps = [r.decode_tps for r in recs if r.decode_tps is not None]
        per_prompt[name] = {
            "class": recs[0].cls, "decode_tps_median": stats.median(tps), "decode_tps": tps,
            "ttft_median": stats.median([r.ttft for r in recs if r.ttft is not None]),
            "completion_tokens_median": stats.median([float(r.completion_tokens or 0) for r in recs]),
            "derived_al_median": stats.median([r.derived_al for r in recs if r.derived_al is not None]),
        }
        by_class.setdefault(recs[0].cls, {})[name] = tps
    all_tps = {name: p["decode_tps"] for name, p in per_prompt.items()}
    failed = [r for r in records if not r.ok]
    return {
        "decode_tps": stats.mean_of_medians(all_tps),
        "decode_tps_by_class": {cls: stats.mean_of_medians(v) for cls, v in sorted(by_class.items())},
        "per_prompt": per_prompt,
        "ttft": stats.summary([r.ttft for r in ok if r.ttft is not None]),
        "tpot": stats.summary([r.tpot for r in ok if r.tpot is not None]),
        "completion_tokens": stats.summary([float(r.completion_tokens or 0) for r in ok]),
        "hit_cap": sum(1 for r in ok if r.finish_reason == "length"),
        "tokens_per_chunk": _ratio(sum(r.completion_tokens or 0 for r in ok), sum(r.chunks for r in ok)),
        "derived_al_mean": stats.mean([r.derived_al for r in ok if r.derived_al is not None]),
        "requests": len(records),
        "failed": len(failed),
        "first_errors": [r.error for r in failed[:3]],
    }


def summarize_concurrency(records: Sequence[RequestRecord], c: int) -> dict[str, Any]:
    ok = [r for r in records if r.ok]
    if not ok:
        return {"concurrency": c, "requests": len(records), "failed": len(records),
                "first_errors": [r.error for r in records[:3]]}
    start, end = min(r.start for r in ok), max(r.end for r in ok)
    tokens = sum(r.completion_tokens or 0 for r in ok)
    duration = end - start
    return {
        "concurrency": c,
        "output_throughput": tokens / duration if duration > 0 else None,
        "duration": duration,
        "ttft": stats.summary([r.ttft for r in ok if r.ttft is not None]),
        "tpot": stats.summary([r.tpot for r in ok if r.tpot is not None]),
        "per_stream_decode_tps": stats.summary([r.decode_tps for r in ok if r.decode_tps is not None]),
        "mean_active_streams": stats.mean_active_streams([(r.start, r.end) for r in ok]),
        "prompt_counts": {name: len(v) for name, v in _by_workload(records).items()},
        "requests": len(records),
        "failed": len(records) - len(ok),
        "first_errors": [r.error for r in records if not r.ok][:3],
    }


def summarize_prefill(records: Sequence[RequestRecord]) -> dict[str, Any]:
    def part(cls: str) -> dict[str, Any]:
        recs = [r for r in records if r.cls == cls and r.error is None]
        server_tps = [float(r.timings["prompt_per_second"]) for r in recs
                      if r.timings.get("prompt_per_second")]
        client_tps = [(r.prompt_tokens or 0) / r.ttft for r in recs if r.ttft and r.prompt_tokens]
        return {
            "n": len(recs),
            "prompt_tokens": stats.median([float(r.prompt_tokens or 0) for r in recs]),
            "prompt_tps_server": stats.median(server_tps),  # llama.cpp timings.prompt_per_second
            "prompt_tps_client": stats.median(client_tps),  # prompt_tokens / TTFT
            "ttft_median": stats.median([r.ttft for r in recs if r.ttft is not None]),
            "cached_tokens": stats.median([float(r.cached_tokens or 0) for r in recs]),
        }

    return {"cold": part("cold"), "warm": part("warm")}


def _ratio(a: float, b: float) -> float | None:
    return a / b if b else None
