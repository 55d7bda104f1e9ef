"""greedy-fast-v1 and spec-step-v1: anchors on the pinned source, and the argmax helper compiled and run."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from llama_source import unpack_pristine

from coder.backends.toolchain import cache, greedy_fast_patch, spec_step_patch
from coder.backends.toolchain.anchored import AnchoredEdit, apply_edits
from coder.backends.toolchain.install import PATCHES
from coder.errors import CoderError

NEW = (greedy_fast_patch, spec_step_patch)


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Every file coder's patches touch, straight from the pinned sdist."""
    paths = {e.path for p in PATCHES for e in p.EDITS}
    return unpack_pristine(tmp_path_factory.mktemp("pristine") / "llama.cpp", paths)


@pytest.fixture
def sources(pristine: Path, tmp_path: Path) -> Path:
    shutil.copytree(pristine, tmp_path / "llama.cpp")
    return tmp_path / "llama.cpp"


def test_every_anchor_is_there_exactly_once_in_the_pinned_source(pristine: Path) -> None:
    for patch in NEW:
        for edit in patch.EDITS:
            count = (pristine / edit.path).read_text().count(edit.anchor)
            assert count == 1, (patch.PATCH_NAME, edit.anchor[:70], count)


def test_the_whole_patch_set_applies_in_order_and_again_without_change(sources: Path) -> None:
    for patch in PATCHES:
        patch.apply(sources)
    first = {p: (sources / p).read_text() for p in {e.path for q in PATCHES for e in q.EDITS}}
    for patch in PATCHES:
        patch.apply(sources)
    assert {p: (sources / p).read_text() for p in first} == first
    sampling = first["common/sampling.cpp"]
    # the fast path's block once (greedy-argmax-v1 adds its own eligibility checks before it)
    assert sampling.count(greedy_fast_patch.EDITS[2].text) == 1
    assert sampling.index("static int32_t coder_unique_argmax") < sampling.index(
        "llama_token common_sampler_sample(")
    ctx = first["tools/server/server-context.cpp"]
    assert "common_sampler_clone(slot.smpl.get()));" not in ctx  # the unconditional clone is gone
    assert "coder_may_restore ? common_sampler_clone(slot.smpl.get()) : nullptr" in ctx
    for env in (greedy_fast_patch.DISABLE_ENV, spec_step_patch.ALWAYS_CLONE_ENV, spec_step_patch.STEP_TIMINGS_ENV):
        assert f'"{env}"' in sampling + ctx


def test_a_moved_anchor_fails_loudly_and_names_the_patch(sources: Path) -> None:
    path = sources / "common/sampling.cpp"
    path.write_text(path.read_text().replace("// initialized by set_logits", "// moved"))
    with pytest.raises(CoderError, match=r"greedy-fast-v1 patch: anchor found 0× in common/sampling\.cpp"):
        greedy_fast_patch.apply(sources)


def test_a_replacing_edit_swaps_the_anchor_and_changes_the_build_key(tmp_path: Path) -> None:
    (tmp_path / "a.c").write_text("int x = 1;\nint y = 2;\n")
    edit = AnchoredEdit("a.c", "int x = 1;\n", "int x = 3;\n", replace=True)
    apply_edits("t", (edit,), tmp_path)
    apply_edits("t", (edit,), tmp_path)
    assert (tmp_path / "a.c").read_text() == "int x = 3;\nint y = 2;\n"

    class Insert:
        PATCH_NAME = "t"
        EDITS = (AnchoredEdit("a.c", "int x = 1;\n", "int x = 3;\n"),)

        def apply(self, llama_root: Path) -> None:
            """Unused."""

    class Replace(Insert):
        EDITS = (edit,)

    assert cache.patch_digest([Insert()]) != cache.patch_digest([Replace()])


_HARNESS = r"""
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>
%s
int main() {
    const float inf = INFINITY;
    auto run = [](std::vector<float> v) { return (int) coder_unique_argmax(v.data(), (int32_t) v.size()); };
    std::vector<float> big(151936, -3.0f);
    big[151935] = 7.0f;
    std::vector<float> tie(151936, 0.5f);
    tie[40] = 9.0f;
    tie[100000] = 9.0f;
    std::vector<float> odd(37, 1.0f);
    odd[3] = 0.0f;
    odd[36] = 2.0f;
    printf("%%d %%d %%d %%d %%d %%d %%d\n", run(big), run(tie), run(odd), run({-inf, -inf}),
           run({NAN, 1.0f, 0.0f}), run({2.0f}), run({1.0f, 1.0f}));
    return 0;
}
"""


def _argmax_source() -> str:
    text = greedy_fast_patch.EDITS[1].text
    start = text.index("static int32_t coder_unique_argmax")
    return text[start:]


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++ to compile the helper")
def test_the_argmax_is_the_first_unique_maximum_and_steps_aside_on_ties(tmp_path: Path) -> None:
    src = tmp_path / "argmax.cpp"
    src.write_text(_HARNESS % _argmax_source())
    exe = tmp_path / "argmax"
    subprocess.run(["g++", "-std=c++17", "-O2", str(src), "-o", str(exe)], check=True, capture_output=True)
    out = subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout.split()
    # last element of a full vocabulary row; a tie (the chain decides); a row shorter than the lanes;
    # no finite maximum; a NaN never wins; one element; a two-way tie
    assert out == ["151935", "-1", "36", "-1", "1", "0", "-1"]
