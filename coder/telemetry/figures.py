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
* **Running acceptance length** = 1 + A / S from the streamed counters
  (llama.cpp ``timings_per_token``): A = ``draft_n_accepted``, S = the number of
  times the running ``draft_n`` grew between chunks, i.e. the verification steps
  that carried a draft. Every step emits at least one token, so two drafts can
  never fall between two chunks and S counts them exactly; it is the exact
  formula computed on the client while the reply streams. (tokens ÷ (tokens −
  accepted) would count steps without a draft as steps: with n-gram drafters that
  draft only on a match it reads 2.3 where the counters say 9.) The exact figure
  can still differ slightly: ``/metrics`` also counts drafts of the request's last
  step, which may come after the last content chunk. The two agree within
  :data:`RUNNING_VS_EXACT_TOLERANCE` (relative), checked on the real server by
  ``tests/test_figures_server.py``.
* **Draft share** of a speculator = its drafted tokens ÷ all drafted tokens of the request
  (``timings.draft_by_type`` of coder's llama-server build): which speculator of a chain
  (``ngram-mod,draft-simple``) did the drafting.
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


def running_acceptance_length(accepted: int | None, draft_steps: int) -> float | None:
    """1 + A / S from streamed counters (S: steps whose draft the stream saw); None before a draft."""
    if accepted is None or draft_steps <= 0:
        return None
    return 1.0 + accepted / draft_steps


def acceptance_rate(accepted: float, drafted: float) -> float | None:
    """Accepted ÷ drafted tokens (llama.cpp's logged ``draft acceptance``)."""
    return accepted / drafted if drafted > 0 else None


def draft_share(drafted: float, total: float) -> float | None:
    """One speculator's drafted tokens ÷ the request's drafted tokens; None without drafts."""
    return drafted / total if total > 0 else None


def agree(running: float, exact: float, tolerance: float = RUNNING_VS_EXACT_TOLERANCE) -> bool:
    """True when running and exact acceptance length agree within the stated tolerance."""
    return abs(running - exact) <= tolerance * exact
