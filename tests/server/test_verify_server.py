"""The failing side of speculator verification, on the real llama-server.

A server without a speculator, attached or managed, must come out NOT VERIFIED with a reason, and
verification fed a real failure log must fail even when the server itself answers.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from coder.backends.engines.llamacpp import LlamaCppAdapter
from coder.backends.runtime import manager
from coder.backends.runtime.server import ServerInfo

pytestmark = pytest.mark.server
DATA = Path(__file__).parents[1] / "data" / "engines"


def test_a_server_without_speculator_is_not_verified(server_factory: Callable[..., ServerInfo]) -> None:
    info = server_factory(spec_type="none")
    assert info.verified is False
    assert "NOT VERIFIED" in (info.verdict or "") and "no speculator" in (info.verdict or "")
    # the full verification, run against it anyway, fails on /slots and on the probe
    with info.api(timeout=60) as api:
        verdict = LlamaCppAdapter().verify(info, api, Path(info.log_path or "").read_text(errors="replace"))
    assert verdict.verified is False
    failed = {c.name: c.detail for c in verdict.checks if not c.ok}
    assert failed["/slots"] == "0/1 slots speculative"
    assert failed["probe"].startswith("probe drafted 0")


def test_attaching_to_a_server_without_speculator_is_not_verified(
    server_factory: Callable[..., ServerInfo],
) -> None:
    plain = server_factory(spec_type="none")
    attached = manager.attach(plain.url, plain.api_key, name=f"attached-{Path(plain.log_path or 'x').stem}")
    try:
        assert attached.engine == "llama.cpp"
        assert attached.verified is False
        assert attached.verdict == "NOT VERIFIED: /slots does not report speculative: true"
    finally:
        manager.stop(attached.profile or "")


def test_verify_fails_on_a_real_failure_log(demo_server: ServerInfo) -> None:
    # real output of this build given the demo model as a DFlash drafter: it aborts on a GGML_ASSERT
    log = (DATA / "llamacpp_real_dflash_not_dflash.log").read_text()
    with demo_server.api(timeout=60) as api:
        verdict = LlamaCppAdapter().verify(demo_server, api, log)
    assert verdict.verified is False
    assert any(c.name == "log" and not c.ok for c in verdict.checks)
    # the same server with its own log verifies: the log line alone made the difference
    with demo_server.api(timeout=60) as api:
        own = LlamaCppAdapter().verify(demo_server, api, Path(demo_server.log_path or "").read_text())
    assert own.verified is True
