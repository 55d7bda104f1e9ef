"""Statistics for ``coder bench``: pure functions on plain numbers, no I/O.

Per-request speed figures (decode tok/s, TPOT, acceptance length) are defined once in
:mod:`coder.telemetry.figures`; this module aggregates them.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence


def mean(values: Iterable[float]) -> float | None:
    """Arithmetic mean; None when empty."""
    vals = list(values)
    return sum(vals) / len(vals) if vals else None


def median(values: Iterable[float]) -> float | None:
    """Median; None when empty."""
    return percentile(values, 50.0)


def percentile(values: Iterable[float], pct: float) -> float | None:
    """Linear-interpolated percentile (numpy's default, which vLLM bench also uses)."""
    vals = sorted(values)
    if not vals:
        return None
    if not 0.0 <= pct <= 100.0:
        raise ValueError(f"percentile out of range: {pct}")
    pos = (len(vals) - 1) * pct / 100.0
    lo = math.floor(pos)
    hi = min(lo + 1, len(vals) - 1)
    return vals[lo] + (vals[hi] - vals[lo]) * (pos - lo)


def stdev(values: Iterable[float]) -> float | None:
    """Sample standard deviation (n − 1); None below two values."""
    vals = list(values)
    if len(vals) < 2:
        return None
    m = sum(vals) / len(vals)
    return math.sqrt(sum((v - m) ** 2 for v in vals) / (len(vals) - 1))


def summary(values: Iterable[float]) -> dict[str, float | int | None]:
    """n, mean, std, min, p50, p90, p99, max of ``values`` (all None when empty)."""
    vals = list(values)
    return {
        "n": len(vals),
        "mean": mean(vals),
        "std": stdev(vals),
        "min": min(vals) if vals else None,
        "p50": percentile(vals, 50),
        "p90": percentile(vals, 90),
        "p99": percentile(vals, 99),
        "max": max(vals) if vals else None,
    }


def mean_of_medians(samples: Mapping[str, Sequence[float]]) -> float | None:
    """The seeds' single-stream figure: median per prompt over repetitions, then the mean over prompts.

    Prompts with no valid sample are left out rather than counted as zero.
    """
    medians = [m for vals in samples.values() if (m := median(vals)) is not None]
    return mean(medians)


def fraction_of_ideal(delivered: float | None, baseline: float | None, al: float | None) -> float | None:
    """delivered ÷ (baseline × AL): the share of the speedup that perfect, free drafting would give."""
    if not delivered or not baseline or not al:
        return None
    return delivered / (baseline * al)


def speedup(value: float | None, baseline: float | None) -> float | None:
    """``value`` ÷ ``baseline``; None when either is missing or the baseline is 0."""
    if value is None or not baseline:
        return None
    return value / baseline


def binomial_tolerance(p: float, n: float, z: float = 4.0) -> float:
    """Half-width z·√(p(1−p)/n) of a binomial proportion estimate from n trials.

    A floor of 1/n keeps the tolerance honest when p is 0 or 1 (no variance, but
    one trial can still land on the other side).
    """
    if n <= 0:
        return math.inf
    return z * math.sqrt(max(p * (1.0 - p), 0.0) / n) + 1.0 / n


def survival_from_conditional(conditional: Sequence[float]) -> list[float]:
    """P(A ≥ i+1) from per-position conditional rates: running product."""
    out: list[float] = []
    acc = 1.0
    for c in conditional:
        acc *= c
        out.append(acc)
    return out


def conditional_from_survival(survival: Sequence[float]) -> list[float]:
    """P(accept i | accepted i−1) from survival rates: successive ratios."""
    out: list[float] = []
    prev = 1.0
    for s in survival:
        out.append(s / prev if prev > 0 else 0.0)
        prev = s
    return out


def common_prefix_fraction(a: str, b: str) -> float:
    """Length of the common prefix ÷ the longer text (1.0 for two empty texts)."""
    longest = max(len(a), len(b))
    if longest == 0:
        return 1.0
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n / longest


def balanced_assignment(n_prompts: int, concurrency: int, rounds: int = 1) -> list[int]:
    """Prompt indices for a closed-loop run at ``concurrency`` where every prompt runs equally often.

    The count is the least common multiple of prompts and concurrency (times
    ``rounds``), so no stream is left idle for lack of work and no prompt is over-weighted.
    """
    if n_prompts < 1 or concurrency < 1 or rounds < 1:
        raise ValueError("prompts, concurrency and rounds must be ≥ 1")
    total = math.lcm(n_prompts, concurrency) * rounds
    return [i % n_prompts for i in range(total)]


def mean_active_streams(intervals: Sequence[tuple[float, float]]) -> float | None:
    """Σ request durations ÷ span of the run: how many streams were busy on average.

    Below the nominal concurrency it exposes the tail where long prompts run alone
    (the c=1/c=2 imbalance the seeds flag).
    """
    if not intervals:
        return None
    start = min(s for s, _ in intervals)
    end = max(e for _, e in intervals)
    if end <= start:
        return None
    return sum(e - s for s, e in intervals) / (end - start)


def best_k(tps_by_k: Mapping[int, float | None], tie_tol: float = 0.01) -> int | None:
    """The k with the highest tok/s; values within ``tie_tol`` (relative) of the best tie → smaller k.

    The tolerance exists because run-to-run noise on a shared machine is larger than
    a fraction of a percent; preferring the smaller k among ties wastes less draft work.
    """
    valid = {k: v for k, v in tps_by_k.items() if v is not None and v > 0}
    if not valid:
        return None
    top = max(valid.values())
    return min(k for k, v in valid.items() if v >= top * (1.0 - tie_tol))
