"""Deep copy drafts on a GPU from the first request; a CPU keeps its shallow launch and ladder."""

from __future__ import annotations

import pytest

from coder.backends.engines.llamacpp import k_flags
from coder.backends.runtime.server import ServerInfo
from coder.config import Profile
from coder.kpolicy import depth
from coder.kpolicy.controller import KController
from coder.kpolicy.policy import KPolicy

COPY = "prediction,ngram-mod"


def _policy(spec: str, ngl: int | None, adaptive: bool) -> KPolicy:
    # the server as the adapter reports it: layers offloaded to a GPU build (ServerInfo.on_gpu)
    server = ServerInfo(url="http://127.0.0.1:1", spec_type=spec, k=8, managed=True, draft_cap=True,
                        on_gpu=bool(ngl))
    return KPolicy(Profile(name="t", adaptive_k=adaptive, ngl=ngl), server, persist=False)


def _flag(flags: list[str], name: str) -> str:
    return flags[flags.index(name) + 1]


def test_a_copy_chain_launches_deep_on_a_gpu_and_at_k_on_a_cpu() -> None:
    gpu = k_flags("ngram-mod", 8, gpu=True)
    assert _flag(gpu, "--spec-draft-n-max") == "64" and _flag(gpu, "--spec-ngram-mod-n-max") == "64"
    cpu = k_flags("ngram-mod", 8)
    assert _flag(cpu, "--spec-draft-n-max") == "8" and _flag(cpu, "--spec-ngram-mod-n-max") == "8"
    # with a model drafter in the chain the step limit stays at its block, GPU or not
    assert k_flags("ngram-mod,draft-simple", 7, gpu=True)[:2] == ["--spec-draft-n-max", "7"]


@pytest.mark.parametrize("adaptive", [True, False])
def test_the_first_gpu_rewrite_drafts_at_the_benchmarks_best_depth(adaptive: bool) -> None:
    policy = _policy(COPY, 99, adaptive)
    assert policy.adaptive_max == depth.COPY_K_MAX
    full, region = policy.choose("full"), policy.choose("region")
    assert (full.k, full.cap) == (64, 64), full
    assert region.k == 32, region
    if adaptive:
        assert "start deep" in full.reason


def test_a_cpu_stays_shallow_as_before() -> None:
    adaptive = _policy(COPY, None, True)
    assert adaptive.adaptive_max == 8
    assert adaptive.choose("full").k == 8  # the usual ladder's first rung: the launch depth
    fixed = _policy(COPY, 0, False)
    assert fixed.choose("full").k == 8 and fixed.choose("region").k == 4


def test_the_gpu_ladder_learns_from_the_start_depth_without_a_shallow_rung() -> None:
    ctl = KController(64, start=depth.start_depths(COPY, on_gpu=True))
    assert ctl.ladder("full") == [64, 32] and ctl.ladder("region") == [32, 16]
    assert ctl.ladder("fresh") == [64, 32, 2]  # nothing to copy: the usual ladder
    for k, ms in ((64, 500.0), (32, 800.0)):
        ctl.observe("full", k, {"predicted_n": 1000, "predicted_ms": ms, "draft_n": 990, "draft_n_accepted": 960})
    decision = ctl.choose("full")
    assert decision.k == 64 and not decision.explore, decision
    assert depth.start_depths(COPY, on_gpu=False) == {}
    assert depth.start_depths("draft-simple,ngram-mod", on_gpu=True) == {}  # led by a model drafter


def test_a_model_drafter_slower_than_no_speculation_is_never_a_gpu_default() -> None:
    assert depth.GPU_SPEEDUP["draft-simple"] < 1.0
    assert depth.gpu_default_chain(COPY) == COPY
    assert depth.gpu_default_chain(COPY, {"draft-simple": 0.73, "draft-dflash": 1.4}) == COPY + ",draft-dflash"
    assert depth.gpu_default_chain("ngram-mod", {"ngram-simple": 2.0}) == "ngram-mod"  # not a model drafter
