"""greedy-argmax-v1 on coder's real llama-server build: the same greedy replies from the graph's argmax ids
as from the logits, and the ids path really taken (its counters in the server log)."""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import pytest

from coder.backends.runtime.server import ServerInfo
from coder.backends.toolchain import greedy_argmax_patch, greedy_fast_patch, spec_step_patch

pytestmark = pytest.mark.server

SOURCE = "".join(f"def f{i}(x):\n    return x * {i} + {i % 3}\n\n\n" for i in range(5))
PROMPTS = [
    "List the first words of the Greek alphabet: alpha beta gamma delta epsilon zeta eta theta",
    f"Copy this file exactly:\n{SOURCE}\nCopy:\n",
]
# top_k 1 (coder's benchmarks) and temperature 0 alone (coder's edit requests: top_k stays 40)
SAMPLING: list[dict[str, Any]] = [{"temperature": 0, "top_k": 1}, {"temperature": 0}]
COUNTERS = re.compile(greedy_argmax_patch.LOG_PREFIX + r" ids=(\d+) cpu_rows=(\d+) logits_copies=(\d+)")


def _replies(info: ServerInfo, cap: int, extra: dict[str, Any] | None = None,
             prompts: list[str] = PROMPTS) -> list[list[int]]:
    out = []
    with info.api(timeout=600) as api:
        for prompt in prompts:
            for sampling in SAMPLING:
                resp = api.post("/completion", {"prompt": prompt, "n_predict": 64, "cache_prompt": False,
                                                "return_tokens": True, "speculative.n_max": cap, **sampling,
                                                **(extra or {})})
                assert resp.status_code == 200, resp.text
                out.append(resp.json()["tokens"])
    return out


def _lines(info: ServerInfo) -> list[tuple[int, int, int]]:
    """Every ``coder-argmax`` line of the server's log (one per finished request, counters since its start:
    ids, rows that read the logits, lazy copies of the logits)."""
    text = Path(info.log_path or "").read_text(errors="replace")
    return [(int(a), int(b), int(c)) for a, b, c in COUNTERS.findall(text)]


def _counters(info: ServerInfo, n_lines: int) -> tuple[int, int, int]:
    """The counters once the log holds ``n_lines`` such lines (the server's log is written asynchronously)."""
    deadline = time.monotonic() + 20
    while len(found := _lines(info)) < n_lines and time.monotonic() < deadline:
        time.sleep(0.2)
    assert len(found) >= n_lines, (len(found), n_lines)
    return found[-1]


def test_greedy_replies_are_identical_with_the_argmax_ids_and_the_ids_are_used(
    server_factory: Any, monkeypatch: pytest.MonkeyPatch,
) -> None:
    # build 11434's own sampling in the same binary: no fast path (so no ids either), the clone every step
    monkeypatch.setenv(greedy_fast_patch.DISABLE_ENV, "1")
    monkeypatch.setenv(spec_step_patch.ALWAYS_CLONE_ENV, "1")
    stock = server_factory(name="argmax-stock", spec_type="ngram-mod", k=16)
    monkeypatch.delenv(greedy_fast_patch.DISABLE_ENV)
    monkeypatch.delenv(spec_step_patch.ALWAYS_CLONE_ENV)
    monkeypatch.setenv(greedy_argmax_patch.DISABLE_ENV, "1")
    off = server_factory(name="argmax-off", spec_type="ngram-mod", k=16)
    monkeypatch.delenv(greedy_argmax_patch.DISABLE_ENV)
    on = server_factory(name="argmax-on", spec_type="ngram-mod", k=16)

    reference = _replies(stock, 16)
    assert all(len(t) > 0 for t in reference)
    n_req = len(reference)
    seen = len(_lines(on))  # the start-up probe's request
    before = _counters(on, seen) if seen else (0, 0, 0)
    assert _replies(on, 16) == reference
    after = _counters(on, seen + n_req)
    ids, cpu, copies = (a - b for a, b in zip(after, before, strict=True))
    # every sampled row (at least one per generated token) came from the ids or, on a tie, the logits;
    # the logits were copied only for such a tie (at most one copy per decode that had one)
    n_tokens = sum(len(t) for t in reference)
    assert ids > 0 and ids + cpu >= n_tokens, (ids, cpu, n_tokens)
    assert copies <= cpu, (copies, cpu)
    # no speculation at all (cap 0) on the server with the ids: the same replies
    assert _replies(on, 0) == reference
    # the off switch: no ids computed, the same replies from the logits
    assert _replies(off, 16, prompts=PROMPTS[1:]) == reference[len(SAMPLING):]
    assert _counters(off, 1) == (0, 0, 0)
    assert _counters(stock, n_req) == (0, 0, 0)

    # a request that reads probabilities is not greedy-fast eligible: no ids for it, the same tokens
    seen = len(_lines(on))
    ids_before = _counters(on, seen)[0]
    assert _replies(on, 16, {"n_probs": 2}, prompts=PROMPTS[1:]) == reference[len(SAMPLING):]
    assert _counters(on, seen + len(SAMPLING))[0] == ids_before
