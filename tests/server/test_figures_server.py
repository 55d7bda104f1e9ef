"""On the real llama-server: the running acceptance length (streamed counters) agrees with the
exact one (``/metrics`` deltas) within the stated tolerance, and live and final statistics
count the same tokens from the same TTFT."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from coder.backends.runtime.handle import chat_client
from coder.edit.run.engine import EditEngine
from coder.telemetry import figures
from coder.telemetry.stats import Chunk, Reply, RequestStats

# An edit request whose greedy reply (recorded while pinning tests/test_edit_server.py) repeats one
# docstring over and over: the n-gram drafter (ngram-mod) then drafts on most steps.
GREET = ('import sys\n\n\ndef main():\n    name = sys.argv[1]\n    print("Hello, " + name)\n\n\n'
         'if __name__ == "__main__":\n    main()\n')

pytestmark = [pytest.mark.server, pytest.mark.repo_files({"greet.py": GREET})]


def _messages(root: Path) -> list[dict[str, str]]:
    engine = EditEngine(None, root, ctx=4096)
    return engine.prepare(root / "greet.py", "Add a docstring to the function main", mode="full").messages


def test_running_and_exact_acceptance_agree(demo_server: Any, tmp_repo: Path) -> None:
    messages = _messages(tmp_repo)
    live = RequestStats()
    reply: Reply | None = None
    with demo_server.api(timeout=120) as api:
        before = api.metrics()
        for item in chat_client(demo_server).stream(messages, max_tokens=180, cache_prompt=False):
            if isinstance(item, Chunk):
                live.add(item)
            else:
                reply = item
        after = api.metrics()
    assert reply is not None
    delta = after - before
    exact = delta.acceptance_length
    running = reply.stats.running_acceptance
    assert delta.drafts >= 5 and exact is not None and exact > 1.0  # enough steps for a comparison
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
