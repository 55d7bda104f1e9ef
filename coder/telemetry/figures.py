"""The one definition of every per-request speed figure coder shows or learns from.

CLI, TUI, bench and the k controller all call these; nothing else computes them.

* **TTFT**: seconds from sending the request to the first non-empty content chunk.
* **Decode tok/s** = (N − 1) / (elapsed − TTFT). The first token arrives at TTFT
  (it is sampled from the prefill), so N − 1 tokens were decoded in
  (elapsed − TTFT). This is 1 / TPOT as vLLM's and AIPerf's benchmarks define it,
  and it is well defined at every moment of a stream, so the live figure and
  the final figure are the same formula and the live one converges on the final
  one. (N / (elapsed − TTFT) would count the prefill token as decoded and
  overstate short replies.)
* **Exact acceptance length** = 1 + Δaccepted / Δdrafts from the engine's
  ``spec_decode_*`` counters (``/metrics`` deltas around the request): tokens per
  verification step, bonus token included.
* **Running acceptance length** = (N − 1) / (N − 1 − A) from the streamed counters
  (llama.cpp ``timings_per_token``: N = ``predicted_n``, A = ``draft_n_accepted``).
  Every decode step yields its accepted drafts plus one token of its own, so the
  N − 1 decoded tokens took N − 1 − A steps. It equals the exact figure when every
  step carried a draft; steps where the drafter proposed nothing count as steps
  here but not in Δdrafts, so running ≤ exact. On the demo model and pinned build
  the two agree within :data:`RUNNING_VS_EXACT_TOLERANCE` (relative), checked on
  the real server by ``tests/test_figures_server.py``.
"""

from __future__ import annotations

RUNNING_VS_EXACT_TOLERANCE = 0.05  # relative; see the module docstring


def decode_tps(tokens: int | None, ttft: float | None, elapsed: float) -> float | None:
    """Decode tokens per second, prefill excluded: (N − 1) / (elapsed − TTFT); None before 2 tokens."""
    if not tokens or tokens < 2 or ttft is None or elapsed <= ttft:
        return None
    return (tokens - 1) / (elapsed - ttft)


def tpot(tokens: int | None, ttft: float | None, elapsed: float) -> float | None:
    """Seconds per output token after the first: the reciprocal of :func:`decode_tps`."""
    tps = decode_tps(tokens, ttft, elapsed)
    return 1.0 / tps if tps else None


def exact_acceptance_length(accepted: float, drafts: float) -> float | None:
    """1 + accepted / drafts from ``/metrics`` counter deltas; None without drafts."""
    return 1.0 + accepted / drafts if drafts > 0 else None


def running_acceptance_length(tokens: int | None, accepted: int | None) -> float | None:
    """(N − 1) / (N − 1 − A) from streamed counters; None before any draft counter arrived."""
    if not tokens or accepted is None:
        return None
    steps = tokens - 1 - accepted
    return (tokens - 1) / steps if steps > 0 else None


def acceptance_rate(accepted: float, drafted: float) -> float | None:
    """Accepted ÷ drafted tokens (llama.cpp's logged ``draft acceptance``)."""
    return accepted / drafted if drafted > 0 else None


def agree(running: float, exact: float, tolerance: float = RUNNING_VS_EXACT_TOLERANCE) -> bool:
    """True when running and exact acceptance length agree within the stated tolerance."""
    return abs(running - exact) <= tolerance * exact
