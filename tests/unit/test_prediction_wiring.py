"""Issue 14's features in the issue-11 structure: the prediction request field in the llama.cpp
adapter, per-speculator stats in the one stats model, the chain check, the config vocabulary."""

from __future__ import annotations

from pathlib import Path

import pytest

from coder.backends.engines.llamacpp import LlamaCppAdapter
from coder.backends.engines.llamacpp_probe import chain_checks
from coder.backends.engines.script_common import ScriptEngineBase
from coder.config import Profile, builtin_profiles
from coder.config_schema import build_profile
from coder.errors import CoderError
from coder.telemetry.stats import Chunk, RequestStats, by_type

BY_TYPE = {"prediction": {"steps": 3, "draft_n": 40, "draft_n_accepted": 38},
           "draft-simple": {"steps": 1, "draft_n": 7, "draft_n_accepted": 2}}


def test_llamacpp_sends_the_prediction_in_predicted_outputs_shape() -> None:
    body = LlamaCppAdapter().request_extras(k_cap=None, cache_prompt=True, prediction="def f(): ...\n")
    assert body["prediction"] == {"type": "content", "content": "def f(): ...\n"}
    assert "prediction" not in LlamaCppAdapter().request_extras(k_cap=None, cache_prompt=True)


def test_script_engines_never_send_a_prediction() -> None:
    assert ScriptEngineBase().request_extras(k_cap=None, cache_prompt=None, prediction="x") == {}


def test_draft_by_type_is_read_from_timings_and_carried_by_chunks() -> None:
    assert by_type({"draft_n": 3}) is None  # a stock build has no breakdown
    parsed = by_type({"draft_by_type": BY_TYPE})
    assert parsed == BY_TYPE
    stats = RequestStats()
    stats.add(Chunk("a", 0.1, 47, 40, 10, parsed))
    assert stats.draft_by_type == BY_TYPE
    assert stats.to_dict()["draft_by_type"] == BY_TYPE


def test_chain_check_names_a_type_the_server_did_not_build() -> None:
    slots: list[dict[str, object]] = [{"speculative": True, "speculative_types": "ngram-mod,draft-simple"}]
    (check,) = chain_checks("prediction,ngram-mod,draft-simple", slots)
    assert check.ok is False and "missing prediction" in check.detail
    (ok,) = chain_checks("ngram-mod,draft-simple", slots)
    assert ok.ok is True
    assert chain_checks("ngram-mod", [{"speculative": True}]) == []  # stock build: nothing listed


def test_config_accepts_prediction_chains_and_refuses_unknown_types() -> None:
    base = Profile(name="p")
    prof = build_profile("p", {"spec_type": "prediction,ngram-mod,draft-simple"}, base, Path("c.toml"))
    assert prof.spec_type == "prediction,ngram-mod,draft-simple"
    with pytest.raises(CoderError, match="spec_type"):
        build_profile("p", {"spec_type": "prediction,bogus"}, base, Path("c.toml"))
    assert builtin_profiles()["demo-hybrid"].spec_type == "ngram-mod,draft-simple"


def test_edits_without_a_prediction_drafter_are_said_once(tmp_path: Path) -> None:
    from coder.backends.runtime.handle import BackendHandle
    from coder.backends.runtime.server import ServerInfo
    from coder.edit.run.engine import EditEngine

    # a profile that never asked for the prediction drafter has nothing to be told
    plain = ServerInfo(url="http://127.0.0.1:9", engine="llama.cpp", profile="p", spec_type="ngram-mod")
    engine = EditEngine(BackendHandle(plain), tmp_path, ctx=4096)
    (tmp_path / "a.py").write_text("x = 1\n")
    request = engine.prepare(tmp_path / "a.py", "rename x to y", mode="full")
    assert engine.prediction_for(request) is None and engine.prediction_notice() is None
    # one that asked for it, on a server that cannot (a stock build), is told once
    stock = ServerInfo(url="http://127.0.0.1:9", engine="llama.cpp", profile="p", spec_type="prediction,ngram-mod")
    engine.backend.replace(stock)
    assert engine.prediction_for(request) is None
    notice = engine.prediction_notice()
    assert notice is not None and "does not draft from a prediction" in notice
    assert engine.prediction_notice() is None  # once per engine (one per CLI run or TUI session)
    patched = ServerInfo(url="http://127.0.0.1:9", engine="llama.cpp", profile="p", prediction=True)
    engine.backend.replace(patched)
    predicted = engine.prediction_for(request)
    assert predicted is not None and "x = 1" in predicted and predicted.startswith(request.prompt.fence)
