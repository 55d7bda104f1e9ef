"""The shapes of a bench report (schema 1): what :mod:`coder.bench.report` writes and every reader indexes.

A run's ``summary`` holds the keys of its ``kind`` (single, concurrency or prefill), so
:class:`RunSummary` lists all three with none required. Request records, server records and
counter snapshots are flat free-form JSON (:mod:`coder.jsontypes`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NotRequired, TypeAlias, TypedDict

from coder.bench.lossless import CheckItemJSON, CheckJSON
from coder.jsontypes import JSONObject

Spread: TypeAlias = Mapping[str, float | int | None]  # :func:`coder.bench.stats.summary`: n, mean, p50, ...


class SpecJSON(TypedDict, total=False):
    """A counter delta with every derived figure (:func:`coder.bench.records.spec_json`); empty without one."""

    drafts: float
    draft_tokens: float
    accepted: float
    generated: float
    accepted_per_pos: list[float]
    drafted_per_pos: list[float]
    acceptance_length: float | None
    acceptance_rate: float | None
    mean_draft_len: float | None
    survival: list[float]
    conditional: list[float]
    draft_slot_deficit: float  # only with a known k and drafts


PromptSummary = TypedDict("PromptSummary", {
    "class": str, "decode_tps_median": float | None, "decode_tps": list[float], "ttft_median": float | None,
    "completion_tokens_median": float | None, "derived_al_median": float | None,
})
"""One prompt's medians over its repetitions (``summary.per_prompt``)."""


class PrefillPart(TypedDict):
    """Cold or warm prompt processing: medians over the requests of that part."""

    n: int
    prompt_tokens: float | None
    prompt_tps_server: float | None  # llama.cpp timings.prompt_per_second
    prompt_tps_client: float | None  # prompt_tokens / TTFT
    ttft_median: float | None
    cached_tokens: float | None


class RunSummary(TypedDict, total=False):
    """A run's summary: the keys of its kind (:mod:`coder.bench.records` ``summarize_*``)."""

    # every kind that sends measured requests
    requests: int
    failed: int
    first_errors: list[str | None]
    ttft: Spread
    tpot: Spread
    # single
    decode_tps: float | None
    decode_tps_by_class: dict[str, float | None]
    per_prompt: dict[str, PromptSummary]
    completion_tokens: Spread
    hit_cap: int
    tokens_per_chunk: float | None
    derived_al_mean: float | None
    # concurrency
    concurrency: int
    output_throughput: float | None
    duration: float
    per_stream_decode_tps: Spread
    mean_active_streams: float | None
    prompt_counts: dict[str, int]
    # prefill
    cold: PrefillPart
    warm: PrefillPart


class RunJSON(TypedDict):
    """One measured run (:meth:`coder.bench.records.RunResult.to_json`)."""

    kind: str  # single | concurrency | prefill
    label: str
    server: JSONObject
    k: int | None
    k_applied: str | None
    concurrency: int
    requests: list[dict[str, object]]  # RequestRecord.to_json: identity, counters, figures, text
    priming: list[dict[str, object]]
    counters_before: JSONObject
    counters_after: JSONObject
    counters_settled: bool
    spec: SpecJSON
    summary: RunSummary
    notes: list[str]


class TargetJSON(TypedDict):
    """Every run on one target (a profile or an attached server), and its baseline."""

    name: str
    profile: JSONObject | None
    runs: list[RunJSON]
    baseline_runs: list[RunJSON]
    lossless_check: NotRequired[CheckJSON | None]  # --verify-lossless on llama.cpp: every divergence explained
    notes: list[str]


WorkloadJSON = TypedDict("WorkloadJSON", {
    "name": str, "class": str, "file": str | None, "source": str, "messages": list[dict[str, str]],
})
"""A prompt as recorded in the report (:meth:`coder.bench.workloads.Workload.to_json`)."""


class SingleRow(TypedDict):
    """A single-stream run's derived figures (:func:`coder.bench.report.analyse`)."""

    label: str
    k: int | None
    k_applied: str | None
    decode_tps: float | None
    decode_tps_by_class: dict[str, float | None]
    acceptance_length: float | None
    acceptance_rate: float | None
    survival: list[float]
    conditional: list[float]
    ttft_p50: float | int | None
    speedup: float | None
    speedup_by_class: dict[str, float | None]
    fraction_of_ideal: float | None
    failed: int
    baseline: NotRequired[bool]


class ConcurrencyRow(TypedDict):
    """A concurrency point's derived figures."""

    label: str
    concurrency: int
    output_throughput: float | None
    ttft_p50: float | int | None
    acceptance_length: float | None
    mean_active_streams: float | None
    speedup: float | None
    baseline: bool
    notes: list[str]


class PrefillRow(TypedDict):
    """A prefill run's cold and warm parts, labelled."""

    label: str
    cold: PrefillPart
    warm: PrefillPart


class LosslessItem(TypedDict):
    """One prompt's greedy output with speculation vs without."""

    workload: str
    exact: bool
    chars: list[int]
    prefix_fraction: float


class LosslessJSON(TypedDict, total=False):
    """The lossless comparison of a target (empty without a baseline and a speculative run)."""

    compared: str
    items: list[LosslessItem]
    exact_share: float | None
    mean_prefix_fraction: float | None
    divergences: list[CheckItemJSON]
    real_differences: int
    noise_floor: float
    divergence_k: int | None


class Analysis(TypedDict):
    """Derived results of one target: speedups, per-class k recommendation, lossless agreement."""

    name: str
    single: list[SingleRow]
    concurrency: list[ConcurrencyRow]
    prefill: list[PrefillRow]
    recommendation: dict[str, int]
    lossless: LosslessJSON


class Environment(TypedDict):
    """The host and each distinct server measured."""

    host: JSONObject
    servers: list[JSONObject]


class BenchReport(TypedDict):
    """The versioned document ``coder bench`` writes and ``coder bench compare`` reads."""

    schema: int
    tool: str
    coder_version: str
    created: str
    argv: list[str]
    settings: JSONObject
    environment: Environment
    definitions: dict[str, str]
    workloads: list[WorkloadJSON]
    targets: list[TargetJSON]
    results: list[Analysis]
