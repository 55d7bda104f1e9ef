"""logscan against a live llama-server (the real engine): its acceptance line equals its /metrics delta."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from coder.backends.engines import logscan


@pytest.mark.server
def test_live_acceptance_line_matches_metrics(server_factory) -> None:  # type: ignore[no-untyped-def]
    info = server_factory(drafter="demo", spec_type="draft-simple", k=4)
    with info.api(timeout=600) as api:
        before = api.metrics()
        seen = len(logscan.llamacpp_acceptance(Path(info.log_path).read_text()))
        body = {
            "messages": [{"role": "user", "content": "Count from 1 to 20 separated by commas."}],
            "max_tokens": 24,
            "temperature": 0,
        }
        assert api.post("/v1/chat/completions", body).status_code == 200
        lines: list[logscan.DraftAcceptance] = []
        for _ in range(50):  # the line is written as the slot is released
            lines = logscan.llamacpp_acceptance(Path(info.log_path).read_text())
            if len(lines) > seen:
                break
            time.sleep(0.1)
        # the counters are read once the slot is released too: read as the reply arrived, they could lag the log
        # line by the release (seen once in 5 runs of tests/server on the 2-core CPU)
        delta = api.metrics() - before
    assert len(lines) == seen + 1
    line = lines[-1]
    assert delta.drafts > 0
    assert (line.accepted, line.generated) == (delta.accepted, delta.draft_tokens)
    assert line.mean_len == pytest.approx(delta.acceptance_length, abs=0.005)
    assert logscan.known_failures("llama.cpp", Path(info.log_path).read_text()) == []
