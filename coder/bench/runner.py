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
from dataclasses import dataclass
from typing import Protocol

from coder.backends.engines.registry import adapter_for
from coder.backends.runtime.request import FixedServer, RequestOutcome, run_request
from coder.backends.runtime.server import ServerAPI, ServerInfo
from coder.bench import stats
from coder.bench.records import (
    RequestRecord,
    RunResult,
    server_record,
    spec_json,
    stats_json,
    summarize_concurrency,
    summarize_prefill,
    summarize_single,
)
from coder.bench.workloads import Workload, prefill_messages
from coder.errors import CoderError
from coder.kchoice import KChoice
from coder.telemetry.metrics import SpecStats
from coder.telemetry.stats import Chunk

THINKING_OFF = {"chat_template_kwargs": {"enable_thinking": False}}
PRIMING = Workload("priming", "fresh", [{"role": "user", "content": "Count from one to ten in words."}])


class Progress(Protocol):
    """Where a run reports work: ``add`` grows the total, ``step`` marks one request done."""

    def add(self, n: int) -> None:
        """Grow the total by ``n`` requests."""
        ...

    def step(self, description: str) -> None:
        """One request done."""
        ...


class NullProgress:
    """Progress that reports nowhere."""

    def add(self, n: int) -> None:
        """Ignore."""

    def step(self, description: str) -> None:
        """Ignore."""


@dataclass
class Settings:
    """Method knobs (defaults follow the seeds: 3 reps, 512 tokens, greedy, thinking off)."""

    reps: int = 3
    max_tokens: int = 512
    temperature: float = 0.0
    priming: bool = True
    cold: bool = True  # defeat the prefix cache (llama.cpp cache_prompt:false, else a unique prefix)
    per_request_counters: bool = True  # snapshot /metrics around every single-stream request
    prefill_chars: int = 6000
    settle_timeout: float = 5.0


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
        """Add a finished request's generated tokens to what the counters must reach."""
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
    """Runs workloads against one server; reuse it so priming happens once per server."""

    def __init__(self, server: ServerInfo, settings: Settings, progress: Progress | None = None) -> None:
        self.server = server
        self.settings = settings
        self.progress = progress or NullProgress()
        self.adapter = adapter_for(server.engine)
        self.api = server.api(timeout=30)
        self.backend = FixedServer(server, self.adapter)  # the k given is measured: nothing restarts or learns
        self.counters = Counters(self.api, settings.settle_timeout)
        self.primed = False

    def close(self) -> None:
        """Close the HTTP client."""
        self.api.close()

    # ------------------------------------------------------------ one request

    def _messages(self, w: Workload) -> list[dict[str, str]]:
        if not self.settings.cold or self.adapter.per_request_cache:
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
        cold = self.settings.cold and self.adapter.per_request_cache
        # a fixed k, never learned from: the bench measures the k it is given
        choice = (KChoice(k_cap, w.cls, "bench sweep", "cap") if k_cap is not None
                  else KChoice(None, w.cls, "launch k", "launch"))

        def tap(chunk: Chunk) -> None:
            rec.stats.add(chunk)  # what streamed before an error is still recorded

        rec.start = time.monotonic() - t0
        outcome: RequestOutcome | None = None
        try:
            outcome = run_request(
                self.backend, self._messages(w), choice, max_tokens=max_tokens or self.settings.max_tokens,
                temperature=self.settings.temperature, tap=tap,
                cache_prompt=cache_prompt if cache_prompt is not None else (False if cold else None),
                extra_body=THINKING_OFF, metrics=False, learn=False)  # the run snapshots its own counters
        except CoderError as exc:
            rec.error = str(exc)
        rec.end = time.monotonic() - t0
        if outcome is not None and outcome.answered:
            rec.stats, rec.text, rec.answered = outcome.stats, outcome.text, True
            if rec.completion_tokens is None and rec.error is None:
                rec.error = "the server returned no usage (completion_tokens); counts would be guesses"
            elif not rec.completion_tokens and rec.error is None:
                rec.error = "0 completion tokens"
        self.counters.count(rec.completion_tokens)
        return rec

    def prime(self) -> list[RequestRecord]:
        """One short untimed request so first-call costs (page-in, allocations) stay out of the numbers.

        Deliberately tiny: on a slow machine a full-size priming request would cost as much as a measurement.
        """
        if self.primed or not self.settings.priming:
            return []
        self.primed = True
        rec = self.request(PRIMING, -1, max_tokens=min(16, self.settings.max_tokens))
        self.progress.step("priming request")
        return [rec]

    # ------------------------------------------------------------ runs

    def single(self, workloads: Sequence[Workload], *, label: str, k_cap: int | None = None,
               k: int | None = None, k_applied: str | None = None) -> RunResult:
        """Each workload ``reps`` times, one at a time (reps outer, so drift hits every prompt alike)."""
        if not workloads:
            raise CoderError("no workloads to run")
        run = RunResult("single", label, server_record(self.server), k=k, k_applied=k_applied)
        run.priming = self.prime()
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
        run.priming = self.prime()
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
        run.priming = self.prime()
        before, ok_before = self.counters.snapshot()
        t0 = time.monotonic()
        for rep in range(self.settings.reps):
            rec = self.request(w, rep, max_tokens=8, t0=t0)
            rec.cls = "cold"
            run.requests.append(rec)
            self.progress.step(f"{label} prefill cold #{rep + 1}")
        if self.adapter.per_request_cache:
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


