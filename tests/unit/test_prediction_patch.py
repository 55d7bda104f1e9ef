"""The prediction drafter patch: anchors on the pinned source, and the request side in coder."""

from __future__ import annotations

from pathlib import Path

import pytest
from llama_source import unpack_pristine

from coder.backends.engines.llamacpp import k_flags, parse_help
from coder.backends.toolchain import draft_cap_patch, prediction_patch
from coder.edit.run.prompt import build_messages, predicted_reply
from coder.errors import CoderError
from coder.kpolicy.depth import COPY_K_MAX


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The files both patches touch, straight from the pinned sdist (no patch applied)."""
    paths = {e.path for e in (*draft_cap_patch.EDITS, *prediction_patch.EDITS)}
    return unpack_pristine(tmp_path_factory.mktemp("pristine") / "llama.cpp", paths)


@pytest.fixture
def sources(pristine: Path, tmp_path: Path) -> Path:
    import shutil

    shutil.copytree(pristine, tmp_path / "llama.cpp")
    return tmp_path / "llama.cpp"


def test_every_edit_lands_once_after_the_draft_cap_and_is_idempotent(sources: Path) -> None:
    draft_cap_patch.apply(sources)
    prediction_patch.apply(sources)
    first = {e.path: (sources / e.path).read_text() for e in prediction_patch.EDITS}
    prediction_patch.apply(sources)
    for edit in prediction_patch.EDITS:
        text = (sources / edit.path).read_text()
        assert text == first[edit.path]
        assert text.count(edit.text) == 1, edit.anchor[:60]
    spec = first["common/speculative.cpp"]
    assert '{"prediction",    COMMON_SPECULATIVE_TYPE_PREDICTION}' in spec
    assert "struct common_speculative_impl_prediction" in spec
    assert 'add((new field_json("prediction"))' in first["tools/server/server-schema.cpp"]


def test_the_sizing_policy_is_three_request_fields_defaulting_to_today(sources: Path) -> None:
    draft_cap_patch.apply(sources)
    prediction_patch.apply(sources)
    header = (sources / "common/speculative.h").read_text()
    schema = (sources / "tools/server/server-schema.cpp").read_text()
    task = (sources / "tools/server/server-task.h").read_text()
    ctx = (sources / "tools/server/server-context.cpp").read_text()
    spec = (sources / "common/speculative.cpp").read_text()
    assert prediction_patch.POLICY_MARKER in header and "struct common_speculative_prediction_policy" in header
    for i, name in enumerate(prediction_patch.POLICY_FIELDS):
        assert f'add((new field_num("{name}", params.prediction_policy[{i}]))' in schema
    assert "int32_t prediction_policy[3] = {0, 0, 0};" in task  # unset: the default sizing
    # the policy is set right after the prediction, which begin() has just reset
    at = ctx.index("common_speculative_set_prediction(spec.get(), slot.id, pred);")
    assert ctx.index("common_speculative_set_prediction_policy(spec.get(), slot.id, policy);") > at
    assert "->set_policy(seq_id, policy);" in spec and "static bool resync_near(" in spec


def test_order_does_not_matter_between_the_two_patches(sources: Path, pristine: Path) -> None:
    prediction_patch.apply(sources)
    draft_cap_patch.apply(sources)
    ctx = (sources / "tools/server/server-context.cpp").read_text()
    assert "spec_n_max_cap" in ctx and "common_speculative_set_prediction" in ctx


def test_a_moved_anchor_fails_loudly(sources: Path) -> None:
    spec = sources / "common/speculative.cpp"
    spec.write_text(spec.read_text().replace("// the one with highest priority are listed first", "// moved"))
    with pytest.raises(CoderError, match=r"prediction-v1 patch: anchor found 0× in common/speculative\.cpp"):
        prediction_patch.apply(sources)


def test_the_prediction_is_the_original_in_the_reply_fence() -> None:
    prompt = build_messages("a.py", "x = 1\n```\n", "rename x", mode="full")
    assert predicted_reply(prompt) == f"{prompt.fence}python\nx = 1\n```\n{prompt.fence}\n"
    assert prompt.fence == "````"


def test_chained_copy_drafters_launch_deep_and_the_model_drafter_at_k() -> None:
    flags = k_flags("prediction,ngram-mod,draft-simple", 7)
    assert flags[:2] == ["--spec-draft-n-max", "7"]
    assert flags[flags.index("--spec-ngram-mod-n-max") + 1] == str(COPY_K_MAX)
    alone = k_flags("ngram-mod", 8)
    assert alone[alone.index("--spec-ngram-mod-n-max") + 1] == "8"


def test_help_lists_the_prediction_type() -> None:
    text = ("--spec-type [none,draft-simple,ngram-mod,prediction]   comma-separated list of types\n")
    assert "prediction" in parse_help(text).spec_types


def _chain_policy(spec: str, on_gpu: bool, k_max: int | None = None) -> object:
    from coder.backends.runtime.server import ServerInfo
    from coder.config import Profile
    from coder.kpolicy.policy import KPolicy

    server = ServerInfo(url="http://127.0.0.1:1", spec_type=spec, k=7, k_max=k_max, managed=True, draft_cap=True,
                        on_gpu=on_gpu)
    return KPolicy(Profile(name="t", adaptive_k=False, ngl=99), server, persist=False)


@pytest.mark.parametrize(("on_gpu", "full", "region"), [(True, 64, 32), (False, 16, 16)])
def test_copy_chain_drafts_deep_on_gpu_shallow_on_cpu_model_at_block(on_gpu: bool, full: int,
                                                                     region: int) -> None:
    from coder.kpolicy.policy import KPolicy

    policy = _chain_policy("prediction,draft-dflash", on_gpu, k_max=7)
    assert isinstance(policy, KPolicy)
    assert policy.choose("full").k == full
    assert policy.choose("region").k == region
    assert policy.choose("fresh").k == 7  # nothing to copy: the model drafter's block
    policy.override(40, "full")  # above the DFlash block, allowed: the cap is the copy depth
    assert policy.choose("full").k == 40


def test_a_single_model_drafter_keeps_its_block_bound() -> None:
    from coder.kpolicy.policy import KPolicy

    policy = _chain_policy("draft-dflash", True, k_max=7)
    assert isinstance(policy, KPolicy)
    with pytest.raises(CoderError, match="maximum k=7"):
        policy.override(8, "full")


def test_one_answer_to_gpu_or_cpu_for_a_cpu_build_asked_for_layers(tmp_path: Path) -> None:
    """A CPU build with ``ngl = 999`` runs on the CPU: the adapter's answer (ServerInfo.on_gpu) and the
    CPU-only launch flags agree (the k policy once said GPU here, the launch flags CPU)."""
    import json

    from coder.backends.engines.llamacpp import LlamaCppAdapter
    from coder.config import builtin_profiles

    build = tmp_path / "11434.0.0-cpu-native-x"
    (build / "bin").mkdir(parents=True)
    binary = build / "bin" / "llama-server"
    binary.write_text("#!/bin/sh\n")
    (build / "build.json").write_text(json.dumps({"binary": str(binary), "version": "v", "build_number": 1,
                                                  "variant": "cpu"}))
    profile = builtin_profiles()["demo"].with_overrides(binary=str(binary), ngl=999)
    adapter = LlamaCppAdapter()
    assert adapter.runs_on_gpu(profile) is False
    from coder.backends.engines.llamacpp import _cpu_only

    assert _cpu_only(profile, binary)  # what decides the CPU prefill batch (-b/-ub)
    (build / "build.json").write_text(json.dumps({"binary": str(binary), "version": "v", "build_number": 1,
                                                  "variant": "cuda"}))
    assert adapter.runs_on_gpu(profile) is True
