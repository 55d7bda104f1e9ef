"""Speculative-decoding counters from a Prometheus ``/metrics`` page, and their deltas.

Both llama.cpp and vLLM count per position with the *prefix* convention: every
step that accepts ``n`` drafts adds one to positions ``0..n-1``. So
``accepted_per_pos[i] / drafts`` is the survival probability P(A ≥ i+1), and the
conditional rate is ``per_pos[i] / per_pos[i-1]``; never multiply survivals again.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from coder.telemetry import figures

PREFIXES = {"llamacpp:": "llama.cpp", "vllm:": "vllm", "sglang:": "sglang"}

_COUNTERS = {
    "spec_decode_num_drafts": "drafts",
    "spec_decode_num_draft_tokens": "draft_tokens",
    "spec_decode_num_accepted_tokens": "accepted",
    "tokens_predicted": "generated",  # llama.cpp
    "generation_tokens": "generated",  # vLLM
    "prompt_tokens": "prompt_tokens",
    "prompt_tokens_cached": "prompt_tokens_cached",
}
_PER_POS = {
    "spec_decode_num_accepted_tokens_per_pos": "accepted_per_pos",
    "spec_decode_num_draft_tokens_per_pos": "drafted_per_pos",
}
_GAUGES = {"spec_accept_length": "accept_length_gauge", "spec_accept_rate": "accept_rate_gauge"}


@dataclass(frozen=True)
class SpecStats:
    """One snapshot of an engine's cumulative speculation counters."""

    engine: str | None = None
    drafts: float = 0.0  # verification steps that carried a draft
    draft_tokens: float = 0.0
    accepted: float = 0.0
    generated: float = 0.0
    prompt_tokens: float = 0.0
    prompt_tokens_cached: float = 0.0
    accepted_per_pos: tuple[float, ...] = ()
    drafted_per_pos: tuple[float, ...] = ()  # only where exported; vLLM 0.26–0.33 keep it internal
    accept_length_gauge: float | None = None  # SGLang: interval average
    accept_rate_gauge: float | None = None
    has_spec_metrics: bool = False

    def __sub__(self, earlier: SpecStats) -> SpecDelta:
        return SpecDelta(
            drafts=self.drafts - earlier.drafts,
            draft_tokens=self.draft_tokens - earlier.draft_tokens,
            accepted=self.accepted - earlier.accepted,
            generated=self.generated - earlier.generated,
            accepted_per_pos=_sub(self.accepted_per_pos, earlier.accepted_per_pos),
            drafted_per_pos=_sub(self.drafted_per_pos, earlier.drafted_per_pos),
        )


def _sub(later: tuple[float, ...], earlier: tuple[float, ...]) -> tuple[float, ...]:
    n = max(len(later), len(earlier))

    def pad(v: tuple[float, ...]) -> tuple[float, ...]:
        return v + (0.0,) * (n - len(v))

    return tuple(a - b for a, b in zip(pad(later), pad(earlier), strict=True))


@dataclass(frozen=True)
class SpecDelta:
    """Counter movement over an interval; all derived figures come from here."""

    drafts: float = 0.0
    draft_tokens: float = 0.0
    accepted: float = 0.0
    generated: float = 0.0
    accepted_per_pos: tuple[float, ...] = field(default_factory=tuple)
    drafted_per_pos: tuple[float, ...] = field(default_factory=tuple)

    @property
    def acceptance_length(self) -> float | None:
        """Exact acceptance length (:func:`coder.telemetry.figures.exact_acceptance_length`)."""
        return figures.exact_acceptance_length(self.accepted, self.drafts)

    @property
    def acceptance_rate(self) -> float | None:
        """Accepted ÷ drafted tokens (what llama.cpp logs as ``draft acceptance``)."""
        return figures.acceptance_rate(self.accepted, self.draft_tokens)

    @property
    def mean_draft_len(self) -> float | None:
        """Draft tokens per step that carried a draft."""
        return self.draft_tokens / self.drafts if self.drafts > 0 else None

    def survival(self) -> list[float]:
        """P(A ≥ i+1) per position i: the share of steps that accepted past position i."""
        if self.drafts <= 0:
            return []
        return [a / self.drafts for a in self.accepted_per_pos]

    def survival_drafted(self) -> list[float]:
        """P(A ≥ i+1 | position i was drafted) = accepted_per_pos[i] / drafted_per_pos[i].

        Exact even when drafts vary in length (batch-size k schedules, truncation near
        max_tokens), where :meth:`survival` divides by steps that never drafted position i.
        Empty unless the server exports ``spec_decode_num_draft_tokens_per_pos``: released vLLM
        0.26.0–0.33.0 count it (``SpecDecodingStats.num_draft_tokens_per_pos``) but export only
        the accepted-per-position counter (``vllm/v1/spec_decode/metrics.py``).
        """
        return [a / d if d > 0 else 0.0 for a, d in zip(self.accepted_per_pos, self.drafted_per_pos, strict=False)]

    def conditional(self) -> list[float]:
        """P(accept position i | accepted position i-1), i.e. ``per_pos[i] / per_pos[i-1]``.

        Exact only over windows where every step drafted past position i (fixed k,
        no truncation near ``max_tokens``); the k controller only feeds such windows.
        """
        out: list[float] = []
        prev = self.drafts
        for acc in self.accepted_per_pos:
            out.append(acc / prev if prev > 0 else 0.0)
            prev = acc
        return out


def _strip(name: str) -> tuple[str | None, str]:
    for prefix, engine in PREFIXES.items():
        if name.startswith(prefix):
            return engine, name[len(prefix):]
    return None, name


# one sample line as the engines write it: name, optional plain labels, a value (no escapes, no timestamp)
_SAMPLE = re.compile(r'([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{((?:[a-zA-Z_][a-zA-Z0-9_]*="[^"\\]*",?)*)\})? (\S+)')
_LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="([^"\\]*)"')


def _plain_samples(text: str) -> list[tuple[str, dict[str, str], float]]:
    """(name, labels, value) of every sample; ValueError on any line beyond the plain form the engines write."""
    out = []
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        match = _SAMPLE.fullmatch(line)
        if match is None:
            raise ValueError(f"not a plain sample line: {line[:80]!r}")
        name, labels, value = match.groups()
        out.append((name, dict(_LABEL.findall(labels)) if labels else {}, float(value)))
    return out


def _samples(text: str) -> list[tuple[str, dict[str, str], float]]:
    """Every sample of an exposition page: read directly (~0.1 s of prometheus_client's import saved per
    process), by the reference parser when a line uses more of the format (escapes, timestamps)."""
    try:
        return _plain_samples(text)
    except ValueError:
        from prometheus_client.parser import text_string_to_metric_families

        return [(s.name, dict(s.labels), s.value) for family in text_string_to_metric_families(text)
                for s in family.samples]


def parse_metrics(text: str) -> SpecStats:
    """Parse exposition text (any of the three engines) into a :class:`SpecStats`."""
    values: dict[str, float] = {}
    per_pos: dict[str, dict[int, float]] = {"accepted_per_pos": {}, "drafted_per_pos": {}}
    gauges: dict[str, float] = {}
    engine: str | None = None
    seen_spec = False
    for name, labels, value in _samples(text):
        eng, base = _strip(name)
        if eng is None:
            continue
        engine = engine or eng
        if base.endswith("_created"):
            continue
        base = base.removesuffix("_total")
        if base.startswith("spec_"):
            seen_spec = True
        if base in _PER_POS:
            pos = labels.get("position", labels.get("pos"))
            if pos is not None:
                bucket = per_pos[_PER_POS[base]]
                bucket[int(pos)] = bucket.get(int(pos), 0.0) + value
        elif base in _COUNTERS:
            key = _COUNTERS[base]
            values[key] = values.get(key, 0.0) + value  # sum over engines/labels
        elif base in _GAUGES:
            gauges[_GAUGES[base]] = value

    def dense(bucket: dict[int, float]) -> tuple[float, ...]:
        return tuple(bucket.get(i, 0.0) for i in range(max(bucket) + 1)) if bucket else ()

    return SpecStats(
        engine=engine,
        drafts=values.get("drafts", 0.0),
        draft_tokens=values.get("draft_tokens", 0.0),
        accepted=values.get("accepted", 0.0),
        generated=values.get("generated", 0.0),
        prompt_tokens=values.get("prompt_tokens", 0.0),
        prompt_tokens_cached=values.get("prompt_tokens_cached", 0.0),
        accepted_per_pos=dense(per_pos["accepted_per_pos"]),
        drafted_per_pos=dense(per_pos["drafted_per_pos"]),
        accept_length_gauge=gauges.get("accept_length_gauge"),
        accept_rate_gauge=gauges.get("accept_rate_gauge"),
        has_spec_metrics=seen_spec,
    )
