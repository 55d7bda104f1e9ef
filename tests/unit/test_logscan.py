"""Log-line parsers against the engine lines kept in tests/data/engines (sources in SOURCES.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

from coder.backends.engines import logscan
from coder.telemetry.metrics import parse_metrics

DATA = Path(__file__).parents[1] / "data" / "engines"


def read(name: str) -> str:
    return (DATA / name).read_text()


def test_llamacpp_draft_acceptance_line() -> None:
    (line,) = logscan.llamacpp_acceptance(read("llamacpp_dflash2_load.log"))
    assert (line.accepted, line.generated) == (376, 757)
    assert line.mean_len == pytest.approx(4.47)
    assert line.rate == pytest.approx(376 / 757, abs=1e-5)


def test_llamacpp_dflash2_load_lines() -> None:
    load = logscan.llamacpp_spec_load(read("llamacpp_dflash2_load.log"))
    assert load.family == "DFlash 2"
    assert load.dflash2 == {"kernel": 2, "group": 16, "rank": 256, "top_k": 16}
    assert load.extract_layers == [6, 20, 34, 48, 62]
    assert (load.block_size, load.effective_n_max, load.n_extract) == (8, 7, 5)
    assert load.sample_from_anchor is False
    assert load.impl_types == ["draft-dflash"]


def test_llamacpp_dspark_clamp_reports_effective_n_max() -> None:
    load = logscan.llamacpp_spec_load(read("llamacpp_dspark_clamp.log"))
    assert load.family == "DSpark"
    assert load.n_max == 15  # printed before the clamp
    assert load.effective_n_max == 7
    assert load.dspark_rank == 64


def test_llamacpp_plain_log_has_no_family() -> None:
    assert logscan.llamacpp_spec_load("srv  load_model: loading model\nmodel loaded\n").family is None


def test_llamacpp_spec_init_failure_is_reported() -> None:
    (fail, *_) = logscan.known_failures("llama.cpp", read("llamacpp_spec_init_failed.log"))
    assert "WITHOUT speculation" in fail.reason
    assert "DFlash2 model is missing conv/selector metadata" in fail.reason
    assert fail.line.startswith("srv    load_model: failed to initialize")


def test_vllm_banner_parsed() -> None:
    cfg = logscan.vllm_spec_config(read("vllm_dflash2_ok.log"))
    assert cfg == logscan.VllmSpecConfig("dflash", "z-lab/Qwen3.8-27B-DFlash2", 7)
    assert logscan.vllm_version(read("vllm_dflash2_ok.log")) == "0.30.0"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("SpeculativeConfig(method='ngram', model=None, num_spec_tokens=5)", ("ngram", None, 5)),
        ("speculative_config=SpeculativeConfig(method='dflash', num_spec_tokens=7)", ("dflash", None, 7)),
        (
            "SpeculativeConfig(method='mtp', model='/data/q-nvfp4-mtp', num_spec_tokens=3)",
            ("mtp", "/data/q-nvfp4-mtp", 3),
        ),
    ],
)
def test_vllm_banner_variants(text: str, expected: tuple[str, str | None, int]) -> None:
    cfg = logscan.vllm_spec_config(text)
    assert cfg is not None
    assert (cfg.method, cfg.model, cfg.num_spec_tokens) == expected


def test_vllm_no_speculator_banner() -> None:
    assert logscan.vllm_spec_config(read("vllm_no_spec.log")) is None


def test_vllm_runner_and_capture_lines() -> None:
    ok = read("vllm_dflash2_ok.log")
    assert logscan.vllm_v2_runner(ok)
    assert logscan.vllm_captured_speculators(ok) == ["DFlash2"]
    old = read("vllm_dflash1_fallback.log")
    assert not logscan.vllm_v2_runner(old)
    assert logscan.vllm_captured_speculators(old) == ["DFlash"]
    assert logscan.vllm_v2_fallback(read("vllm_dflash2_v1_refused.log")) == "custom logits processors"


def test_vllm_spec_decoding_metrics_line() -> None:
    (line,) = logscan.vllm_spec_lines(read("vllm_dflash2_ok.log"))
    assert line.mean_acceptance_length == pytest.approx(2.74)
    assert (line.accepted, line.drafted) == (134, 3024)
    assert line.per_position == pytest.approx((0.579, 0.447, 0.310, 0.198, 0.120, 0.061, 0.025))
    assert line.draft_acceptance_rate == pytest.approx(34.7)


@pytest.mark.parametrize(
    ("name", "needle"),
    [
        ("vllm_quant_head.log", "LM head is quantized"),
        ("vllm_quant_head_seed.log", "LM head is quantized"),
        ("vllm_dflash2_v1_refused.log", "V1 model runner"),
        ("vllm_illegal_memory.log", "#57964"),
    ],
)
def test_vllm_known_failures(name: str, needle: str) -> None:
    failures = logscan.known_failures("vllm", read(name))
    assert failures, name
    assert needle in failures[0].reason


def test_vllm_quant_head_points_to_llamacpp() -> None:
    (fail, *_) = logscan.known_failures("vllm", read("vllm_quant_head.log"))
    assert "--spec-type draft-dflash" in fail.reason
    assert "ModelOptNvFp4LinearMethod" in fail.reason


def test_success_logs_have_no_failures() -> None:
    assert logscan.known_failures("vllm", read("vllm_dflash2_ok.log")) == []
    assert logscan.known_failures("sglang", read("sglang_dflash_ok.log")) == []
    assert logscan.known_failures("llama.cpp", read("llamacpp_dflash2_load.log")) == []


def test_sglang_decode_lines() -> None:
    lines = logscan.sglang_decode_lines(read("sglang_dflash_ok.log"))
    assert [x.accept_len for x in lines] == [3.21, 4.02]
    assert lines[0].accept_rate == pytest.approx(0.45)
    assert lines[1].gen_throughput == pytest.approx(131.07)
    assert lines[0].running == 1 and lines[0].tokens == 1234


def test_sglang_0523_decode_lines_iteration_and_hybrid_pools() -> None:
    """SGLang 0.5.23's own format (SOURCES.md): ``Decode batch,`` with an optional ``[iter]`` and,
    for hybrid SWA / linear-attention models, ``#full token:`` instead of ``#token:``."""
    lines = logscan.sglang_decode_lines(read("sglang_0523_decode.log"))
    assert [x.accept_len for x in lines] == [3.87, 5.10, 6.25]
    assert [x.tokens for x in lines] == [812, 2048, 3000]
    assert lines[1].running == 2 and lines[1].accept_rate == pytest.approx(0.59)
    assert lines[2].gen_throughput == pytest.approx(402.0)


def test_sglang_dense_head_failure() -> None:
    (fail,) = logscan.known_failures("sglang", read("sglang_quant_head.log"))
    assert "lm_head is quantized" in fail.reason


def test_sglang_0523_quant_head_failure() -> None:
    """SGLang 0.5.23's wording of the refusal (srt/models/dflash.py:127, SOURCES.md)."""
    (fail,) = logscan.known_failures("sglang", read("sglang_0523_quant_head.log"))
    assert "lm_head is quantized" in fail.reason and fail.line.startswith("RuntimeError: DFlash candidate top-k")


def test_vllm_metrics_exposition() -> None:
    """The real vLLM 0.26.0 page (SOURCES.md); replaces a page written from documentation."""
    stats = parse_metrics(read("real_vllm_0.26.0/vllm_metrics.txt"))
    assert stats.engine == "vllm"
    assert (stats.drafts, stats.draft_tokens, stats.accepted) == (60, 300, 129)
    assert stats.accepted_per_pos == (30, 26, 25, 24, 24)
    # vLLM 0.26–0.33 count drafts per position internally but export no Prometheus counter for them
    assert stats.drafted_per_pos == ()
    empty = parse_metrics("")
    delta = stats - empty
    assert delta.acceptance_length == pytest.approx(1 + 129 / 60)
    assert delta.survival()[0] == pytest.approx(0.5)


def test_sglang_metrics_exposition() -> None:
    stats = parse_metrics(read("sglang_metrics.txt"))
    assert stats.engine == "sglang"
    assert stats.accept_length_gauge == pytest.approx(4.02)
    assert stats.accept_rate_gauge == pytest.approx(0.57)


# -- real llama-server output captured on this machine (SOURCES.md, last table) -------------------------


def test_real_llamacpp_acceptance_line_matches_its_metrics() -> None:
    (line,) = logscan.llamacpp_acceptance(read("llamacpp_real_draft_simple.log"))
    stats = parse_metrics(read("llamacpp_real_metrics.txt"))
    delta = stats - parse_metrics("")
    assert (line.accepted, line.generated) == (delta.accepted, delta.draft_tokens) == (63, 63)
    assert line.mean_len == pytest.approx(delta.acceptance_length, abs=0.005)  # printed with 2 decimals
    assert stats.engine == "llama.cpp" and stats.accepted_per_pos == (16, 16, 16, 15)


def test_real_llamacpp_wrong_drafter_abort() -> None:
    text = read("llamacpp_real_dflash_not_dflash.log")
    reasons = [f.reason for f in logscan.known_failures("llama.cpp", text)]
    assert any("not a DFlash GGUF" in r for r in reasons)
    assert any("internal assertion" in r for r in reasons)
    assert logscan.llamacpp_spec_load(text).family is None  # never got as far as the DFlash load lines


def test_vllm_exports_no_drafted_per_position_counter() -> None:
    """Real vLLM pages (0.26–0.33, SOURCES.md) carry accepted-per-position only: the per-step
    survival is the estimate there, and the drafted-denominator view is empty, not invented."""
    delta = parse_metrics(read("real_vllm_0.26.0/vllm_metrics.txt")) - parse_metrics("")
    assert delta.survival_drafted() == []
    assert delta.survival()[4] == pytest.approx(24 / 60)
