"""greedy-argmax-v1: its anchors on the pinned source (after the patches before it), what it adds where."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from llama_source import unpack_pristine

from coder.backends.toolchain import greedy_argmax_patch, greedy_fast_patch
from coder.backends.toolchain.install import PATCHES
from coder.errors import CoderError

PATCH = greedy_argmax_patch


@pytest.fixture(scope="module")
def before(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The pinned source with every patch that comes before greedy-argmax-v1 applied."""
    root: Path = unpack_pristine(tmp_path_factory.mktemp("pristine") / "llama.cpp",
                                 {e.path for p in PATCHES for e in p.EDITS})
    for patch in PATCHES[:PATCHES.index(PATCH)]:
        patch.apply(root)
    return root


@pytest.fixture
def sources(before: Path, tmp_path: Path) -> Path:
    shutil.copytree(before, tmp_path / "llama.cpp")
    return tmp_path / "llama.cpp"


def test_it_is_in_the_build_after_the_greedy_fast_path_it_extends() -> None:
    assert PATCHES.index(greedy_fast_patch) < PATCHES.index(PATCH)
    assert PATCH.PATCH_NAME == "greedy-argmax-v1"


def test_every_anchor_is_there_exactly_once_before_it_applies(before: Path) -> None:
    for edit in PATCH.EDITS:
        count = (before / edit.path).read_text().count(edit.anchor)
        assert count == 1, (edit.path, edit.anchor[:70], count)


def test_it_applies_once_and_puts_each_part_in_its_place(sources: Path) -> None:
    PATCH.apply(sources)
    first = {e.path: (sources / e.path).read_text() for e in PATCH.EDITS}
    PATCH.apply(sources)
    assert {p: (sources / p).read_text() for p in first} == first

    api = first["include/llama.h"]
    for name in ("llama_coder_set_argmax", "llama_coder_argmax_ith", "llama_coder_argmax_stats"):
        assert "LLAMA_API" in api and f" {name}(" in api
        assert f" {name}(" in first["src/llama-context.cpp"]
    # the graph: argmax, the row's maximum and the uniqueness sum, all after the logits
    model = first["src/llama-model.cpp"]
    nodes = model.index("ggml_argmax(ctx0, logits)")
    assert model.index("llm->build_sampling();") < nodes < model.index("llm->res->set_outputs(params);")
    assert "ggml_sum_rows(ctx0, ggml_sgn_inplace(ctx0, ggml_sub(ctx0, logits, mx)))" in model
    # a switch change may not reuse a graph built the other way
    assert "cparams.coder_argmax != other.cparams.coder_argmax" in first["src/llama-graph.h"]
    ctx = first["src/llama-context.cpp"]
    # the stock copy of the logits is still there, now behind the deferred one
    assert "} else\n        if (logits.data && t_logits && n_outputs > 0 && needs_raw_logits(" in ctx
    # both logits getters copy the pending rows before they reorder or return anything
    for getter in ("get_logits() {\n", "get_logits_ith(int32_t i) {\n"):
        body = ctx[ctx.index("float * llama_context::" + getter):]
        assert body.index("coder_logits_materialize();") < body.index("output_reorder();")
    # only a unique maximum is answered from the ids
    assert "coder_am.sgn[j] != (float) -(n_vocab - 1)" in ctx
    sampling = first["common/sampling.cpp"]
    # the ids first, for an eligible chain only; the greedy fast path's row scan after them, left whole
    ids = sampling.index("llama_coder_argmax_ith(ctx, idx, &coder_max)")
    assert sampling.index("if (coder_greedy_fast_eligible(gsmpl,") < ids
    assert ids < sampling.index(greedy_fast_patch.EDITS[2].text) < sampling.index("gsmpl->set_logits(ctx, idx);")
    server = first["tools/server/server-context.cpp"]
    assert f'getenv("{PATCH.DISABLE_ENV}")' in server
    assert server.index("llama_coder_set_argmax(ctx_tgt, coder_greedy);") < server.index(
        "for (int32_t off = 0; off < batch.size(); off = off_next) {")
    assert f'"{PATCH.LOG_PREFIX} ids=%"' in server


def test_without_the_greedy_fast_path_it_fails_loudly(tmp_path: Path) -> None:
    root = unpack_pristine(tmp_path / "llama.cpp", {e.path for e in PATCH.EDITS})
    with pytest.raises(CoderError, match=r"greedy-argmax-v1 patch: anchor found 0× in common/sampling\.cpp"):
        PATCH.apply(root)
