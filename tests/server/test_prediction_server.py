"""The prediction drafter on coder's real llama-server build (demo model, CPU)."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

from coder.backends.engines.llamacpp_probe import probe_prediction
from coder.backends.runtime.handle import BackendHandle
from coder.backends.runtime.server import ServerInfo
from coder.edit.proposal import EditProposal
from coder.edit.run.engine import EditEngine

pytestmark = pytest.mark.server

PROMPT = "List the first words of the Greek alphabet: alpha beta gamma delta epsilon zeta eta theta"
SOURCE = "".join(f"def f{i}(x):\n    return x + {i}\n\n\n" for i in range(12))


def _complete(info: ServerInfo, **body: Any) -> dict[str, Any]:
    with info.api(timeout=120) as api:
        resp = api.post("/completion", {"prompt": PROMPT, "n_predict": 64, "temperature": 0,
                                        "cache_prompt": False, **body})
    assert resp.status_code == 200, resp.text
    data: dict[str, Any] = resp.json()
    return data


def _by_type(data: dict[str, Any], kind: str) -> dict[str, int]:
    by_type: dict[str, dict[str, int]] = data["timings"].get("draft_by_type", {})
    return by_type.get(kind, {"steps": 0, "draft_n": 0, "draft_n_accepted": 0})


@pytest.fixture
def chain(server_factory: Any) -> ServerInfo:
    info = server_factory(name="pred-chain", spec_type="prediction,ngram-mod", k=8)
    assert isinstance(info, ServerInfo)
    return info


def test_the_chain_is_built_as_listed_and_the_prediction_probed(chain: ServerInfo) -> None:
    assert chain.spec_type == "prediction,ngram-mod"
    assert chain.prediction is True
    with chain.api() as api:
        assert probe_prediction(api)
        assert {s["speculative_types"] for s in api.slots()} == {"prediction,ngram-mod"}


def test_the_output_as_prediction_is_drafted_and_accepted(chain: ServerInfo) -> None:
    plain = _complete(chain)
    again = _complete(chain, prediction={"type": "content", "content": plain["content"]})
    pred = _by_type(again, "prediction")
    n = again["timings"]["predicted_n"]
    assert pred["draft_n_accepted"] >= 0.8 * n, again["timings"]
    assert pred["steps"] <= n // 4  # deep drafts: few verification steps for the whole reply
    # counted like any other speculator: the server's totals include the prediction's drafts
    assert again["timings"]["draft_n_accepted"] >= pred["draft_n_accepted"]
    with chain.api() as api:
        metrics = api.metrics_text()
    assert 'llamacpp:spec_decode_num_accepted_tokens_by_type_total{type="prediction"}' in metrics


def test_a_prediction_that_matches_nothing_costs_a_few_short_drafts(chain: ServerInfo) -> None:
    wrong = " ".join(f"zq{i}x" for i in range(300))
    data = _complete(chain, prediction={"type": "content", "content": wrong})
    assert _by_type(data, "prediction")["draft_n"] <= 16, data["timings"]


def test_empty_prediction_is_a_no_op_and_a_malformed_one_is_refused(chain: ServerInfo) -> None:
    data = _complete(chain, prediction={"type": "content", "content": ""})
    assert _by_type(data, "prediction")["draft_n"] == 0
    with chain.api() as api:
        resp = api.post("/completion", {"prompt": "a", "n_predict": 1, "prediction": {"content": 3}})
    assert resp.status_code == 400 and "prediction" in resp.text


def test_the_edit_engine_sends_the_original_as_prediction(server_factory: Any, tmp_repo: Path) -> None:
    info = server_factory(name="pred-edit", spec_type="prediction,ngram-mod,draft-simple", drafter="demo", k=7)
    assert isinstance(info, ServerInfo) and info.prediction
    (tmp_repo / "funcs.py").write_text(SOURCE)
    subprocess.run(["git", "add", "funcs.py"], cwd=tmp_repo, check=True)
    subprocess.run(["git", "commit", "-qm", "funcs"], cwd=tmp_repo, check=True)
    engine = EditEngine(BackendHandle(info), tmp_repo)
    assert engine.prediction_notice() is None  # nothing to say: this server drafts from predictions
    request = engine.prepare(tmp_repo / "funcs.py", "Add a comment at the top of the file.", mode="full")
    proposal = [e for e in engine.run(request) if isinstance(e, EditProposal)][-1]
    assert proposal.stats.prediction_sent
    assert proposal.stats.draft_by_type is not None
    assert proposal.stats.draft_by_type["prediction"]["draft_n_accepted"] > 0, proposal.stats
