"""greedy-fast-v1 and spec-step-v1 on coder's real llama-server build: same greedy replies, phase log on demand."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from coder.backends.runtime.server import ServerInfo
from coder.backends.toolchain import greedy_fast_patch, spec_step_patch

pytestmark = pytest.mark.server

SOURCE = "".join(f"def f{i}(x):\n    return x * {i} + {i % 3}\n\n\n" for i in range(10))
PROMPTS = [
    "List the first words of the Greek alphabet: alpha beta gamma delta epsilon zeta eta theta",
    f"Copy this file exactly:\n{SOURCE}\nCopy:\n",
]
# top_k 1 (coder's benchmarks) and temperature 0 alone (coder's edit requests: top_k stays 40)
SAMPLING = [{"temperature": 0, "top_k": 1}, {"temperature": 0}]


def _replies(info: ServerInfo, cap: int) -> list[list[int]]:
    out = []
    with info.api(timeout=300) as api:
        for prompt in PROMPTS:
            for sampling in SAMPLING:
                resp = api.post("/completion", {"prompt": prompt, "n_predict": 96, "cache_prompt": False,
                                                "return_tokens": True, "speculative.n_max": cap, **sampling})
                assert resp.status_code == 200, resp.text
                out.append(resp.json()["tokens"])
    return out


def test_greedy_replies_are_identical_with_and_without_the_patches(
    server_factory: Any, monkeypatch: pytest.MonkeyPatch,
) -> None:
    # the stock behaviour, in the same binary: no fast path, the sampler cloned every step
    monkeypatch.setenv(greedy_fast_patch.DISABLE_ENV, "1")
    monkeypatch.setenv(spec_step_patch.ALWAYS_CLONE_ENV, "1")
    stock = server_factory(name="greedy-stock", spec_type="ngram-mod", k=16)
    monkeypatch.delenv(greedy_fast_patch.DISABLE_ENV)
    monkeypatch.delenv(spec_step_patch.ALWAYS_CLONE_ENV)
    monkeypatch.setenv(spec_step_patch.STEP_TIMINGS_ENV, "1")
    fast = server_factory(name="greedy-fast", spec_type="ngram-mod", k=16)
    for cap in (4, 16):
        a, b = _replies(stock, cap), _replies(fast, cap)
        assert all(len(t) > 0 for t in a)
        assert a == b, cap
    # only the server started with the timings switch logs its steps, one line per decoding step
    fast_log = Path(fast.log_path or "").read_text(errors="replace")
    steps = [line for line in fast_log.splitlines() if spec_step_patch.STEP_LOG_PREFIX + " n_batch=" in line]
    assert steps and all("decode_ms=" in s and "verify_ms=" in s for s in steps)
    assert any(" n_draft=0 " not in s for s in steps)  # speculative steps among them
    assert spec_step_patch.STEP_LOG_PREFIX not in Path(stock.log_path or "").read_text(errors="replace")
