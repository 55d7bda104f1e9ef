"""On the real llama-server: the running acceptance length (streamed counters) agrees with the
exact one (``/metrics`` deltas) within the stated tolerance, and live and final statistics
count the same tokens from the same TTFT."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from coder.telemetry import figures
from coder.telemetry.stats import Chunk, Reply, RequestStats

pytestmark = pytest.mark.server

SOURCE = (Path(__file__).resolve().parent.parent / "coder" / "telemetry" / "metrics.py").read_text()[:1800]
COPY = [{"role": "user", "content": f"Repeat this text exactly:\n\n{SOURCE}"}]


def test_running_and_exact_acceptance_agree(demo_server: Any) -> None:
    live = RequestStats()
    reply: Reply | None = None
    with demo_server.api(timeout=120) as api:
        before = api.metrics()
        for item in demo_server.chat().stream(COPY, max_tokens=160, cache_prompt=False):
            if isinstance(item, Chunk):
                live.add(item)
            else:
                reply = item
        after = api.metrics()
    assert reply is not None
    delta = after - before
    exact = delta.acceptance_length
    running = reply.stats.running_acceptance
    assert delta.drafts > 0 and exact is not None and exact > 1.0
    assert running is not None and live.running_acceptance is not None
    assert reply.stats.draft_steps == live.draft_steps > 0
    assert figures.agree(running, exact), (running, exact, delta.drafts, reply.stats.draft_steps)
    # the old formula, tokens / (tokens − accepted), counts steps without a draft: far off on n-gram drafts
    n, a = reply.stats.tokens, reply.stats.draft_n_accepted or 0
    print(f"running {running:.3f} exact {exact:.3f} (steps seen {reply.stats.draft_steps}, "
          f"drafts {delta.drafts:.0f}); tokens/(tokens-accepted) = {n / (n - a):.3f}")
    # decode tok/s: one definition live and final; both count the same tokens from the same TTFT
    assert live.decode_tps is not None and reply.stats.decode_tps is not None
    assert live.ttft == reply.stats.ttft and live.tokens == reply.stats.tokens
