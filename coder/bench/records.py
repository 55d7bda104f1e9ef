"""What a bench run records: per-request records, run results, counter JSON and summaries.

Plain data and pure arithmetic; :mod:`coder.bench.runner` produces these.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field

from coder.backends.runtime.server import ServerInfo
from coder.bench import stats
from coder.bench.schema import PrefillPart, PromptSummary, RunJSON, RunSummary, SpecJSON
from coder.jsontypes import JSONObject
from coder.redact import redact_argv
from coder.telemetry.metrics import SpecDelta, SpecStats
from coder.telemetry.stats import RequestStats, Timings


@dataclass
class RequestRecord:
    """One bench request: which workload and repetition, when it ran, and its :class:`RequestStats`.

    ``start``/``end`` are seconds relative to the run's t0. The numbers themselves
    live in ``stats`` (the one request-stats model); the properties below are views.
    """

    workload: str
    cls: str
    rep: int
    k_cap: int | None = None
    start: float = 0.0
    end: float = 0.0
    stats: RequestStats = field(default_factory=RequestStats)
    spec: SpecJSON | None = None  # counter delta around this request (single-stream only)
    text: str = ""
    error: str | None = None
    answered: bool = False  # the stream ended with a final usage/timings chunk

    @property
    def ok(self) -> bool:
        """Finished without error and with a server-counted, non-zero completion."""
        return self.error is None and bool(self.completion_tokens)

    @property
    def ttft(self) -> float | None:
        """Seconds to the first content chunk."""
        return self.stats.ttft

    @property
    def wall(self) -> float:
        """Seconds from send to the end of the stream."""
        return self.stats.elapsed

    @property
    def completion_tokens(self) -> int | None:
        """The server's count of generated tokens (None when it sent no usage)."""
        return self.stats.completion_tokens if self.answered else None

    @property
    def decode_tps(self) -> float | None:
        """Decode tok/s (:func:`coder.telemetry.figures.decode_tps`)."""
        return self.stats.decode_tps if self.answered else None

    @property
    def tpot(self) -> float | None:
        """Seconds per output token after the first."""
        return self.stats.tpot if self.answered else None

    @property
    def derived_al(self) -> float | None:
        """Running acceptance length from llama.cpp's final timings."""
        return self.stats.running_acceptance if self.answered else None

    @property
    def timings(self) -> Timings:
        """llama.cpp's final ``timings`` (empty on other engines)."""
        return self.stats.timings

    @property
    def prompt_tokens(self) -> int | None:
        """Prompt tokens reported by the server."""
        return self.stats.prompt_tokens

    @property
    def cached_tokens(self) -> int | None:
        """Prompt tokens served from the cache."""
        return self.stats.cached_tokens

    @property
    def finish_reason(self) -> str | None:
        """``stop``, ``length``, …"""
        return self.stats.finish_reason

    @property
    def draft_n(self) -> int | None:
        """Draft tokens proposed (llama.cpp timings)."""
        return self.stats.draft_n

    @property
    def draft_n_accepted(self) -> int | None:
        """Draft tokens accepted (llama.cpp timings)."""
        return self.stats.draft_n_accepted

    @property
    def chunks(self) -> int:
        """Content-bearing SSE frames (≠ tokens under speculation)."""
        return self.stats.chunks

    def to_json(self) -> dict[str, object]:
        """Identity, every counter and every derived figure, flat."""
        out: dict[str, object] = {"workload": self.workload, "cls": self.cls, "rep": self.rep,
                                  "k_cap": self.k_cap, "start": self.start, "end": self.end}
        out.update(self.stats.to_dict())
        out.update(wall=self.wall, completion_tokens=self.completion_tokens, decode_tps=self.decode_tps,
                   tpot=self.tpot, derived_al=self.derived_al, spec=self.spec, text=self.text, error=self.error)
        return out


@dataclass
class RunResult:
    """One measured run: its configuration, every request, counters and a summary."""

    kind: str  # single | concurrency | prefill
    label: str
    server: JSONObject
    k: int | None = None  # effective draft depth of the run (None = no speculation)
    k_applied: str | None = None  # launch | request-cap | restart | none
    concurrency: int = 1
    requests: list[RequestRecord] = field(default_factory=list)
    priming: list[RequestRecord] = field(default_factory=list)
    counters_before: JSONObject = field(default_factory=dict)
    counters_after: JSONObject = field(default_factory=dict)
    counters_settled: bool = True
    spec: SpecJSON = field(default_factory=lambda: SpecJSON())
    summary: RunSummary = field(default_factory=lambda: RunSummary())
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> RunJSON:
        """The report form (requests flattened by :meth:`RequestRecord.to_json`)."""
        return {"kind": self.kind, "label": self.label, "server": self.server, "k": self.k,
                "k_applied": self.k_applied, "concurrency": self.concurrency,
                "requests": [r.to_json() for r in self.requests], "priming": [r.to_json() for r in self.priming],
                "counters_before": self.counters_before, "counters_after": self.counters_after,
                "counters_settled": self.counters_settled, "spec": self.spec, "summary": self.summary,
                "notes": self.notes}


def server_record(server: ServerInfo) -> JSONObject:
    """The server facts every run carries (engine, build, model, drafter, k, argv)."""
    return {
        "url": server.url, "engine": server.engine, "profile": server.profile, "managed": server.managed,
        "model": server.model, "drafter": server.drafter, "spec_type": server.spec_type,
        "k_launch": server.k, "k_max": server.k_max, "draft_cap": server.draft_cap,
        "verified": server.verified, "verdict": server.verdict, "build": server.build,
        "argv": redact_argv(server.argv, [server.api_key]),
    }


def spec_json(delta: SpecDelta, k: int | None = None) -> SpecJSON:
    """A counter delta with every derived figure (survival and conditional per position)."""
    out: SpecJSON = {
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


def stats_json(s: SpecStats) -> JSONObject:
    """A counter snapshot as JSON."""
    return asdict(s)


# ---------------------------------------------------------------- summaries


def _by_workload(records: Sequence[RequestRecord]) -> dict[str, list[RequestRecord]]:
    out: dict[str, list[RequestRecord]] = {}
    for r in records:
        out.setdefault(r.workload, []).append(r)
    return out


def summarize_single(records: Sequence[RequestRecord]) -> RunSummary:
    """Per-prompt medians, per-class and overall mean of medians, TTFT, lengths, errors."""
    ok = [r for r in records if r.ok]
    per_prompt: dict[str, PromptSummary] = {}
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


def summarize_concurrency(records: Sequence[RequestRecord], c: int) -> RunSummary:
    """Aggregate output throughput (TTFT included), latency spreads and stream occupancy."""
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


def summarize_prefill(records: Sequence[RequestRecord]) -> RunSummary:
    """Cold and warm prompt-processing speed, server- and client-measured."""
    def part(cls: str) -> PrefillPart:
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
