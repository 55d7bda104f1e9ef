"""Pre-flight on checkpoint directories written here with the real field layouts of each format.

Layouts: config.json / model.safetensors.index.json as Hugging Face writes them; the DFlash 2
config is z-lab/Qwen3.8-27B-DFlash2's published one (backends.md §4); quantization_config
shapes follow compressed-tensors, ModelOpt (hf_quant_config.json), GPTQ, AutoRound and FP8.
"""

from __future__ import annotations

import json
import struct
from pathlib import Path
from typing import Any

import pytest
from test_gguf_info import DFLASH2_KV, write_gguf

from coder.backends.engines.preflight import format_report, run_preflight
from coder.errors import CoderError
from coder.models.checkpoint import inspect_checkpoint, lm_head_status

DFLASH2_CONFIG = {
    "architectures": ["DFlash2DraftModel"],
    "model_type": "qwen3",
    "is_causal": False,
    "hidden_size": 5120,
    "num_hidden_layers": 5,
    "num_target_layers": 64,
    "sliding_window": 2048,
    "use_sliding_window": True,
    "layer_types": ["sliding_attention"] * 5,
    "max_position_embeddings": 262144,
    "vocab_size": 248320,
    "dflash_config": {
        "block_size": 8,
        "conv_group_size": 16,
        "conv_kernel_size": 2,
        "mask_token_id": 248070,
        "selector_rank": 256,
        "selector_top_k": 16,
        "target_layer_ids": [5, 19, 33, 47, 61],
    },
}
TARGET_CONFIG = {
    "architectures": ["Qwen3ForCausalLM"],
    "model_type": "qwen3",
    "hidden_size": 5120,
    "num_hidden_layers": 64,
    "max_position_embeddings": 262144,
    "vocab_size": 248320,
    "tie_word_embeddings": False,
}
LAYER = "model.layers.0.mlp.down_proj"


def ckpt(
    root: Path, config: dict[str, Any], weights: list[str] | None = None, files: dict[str, Any] | None = None
) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "config.json").write_text(json.dumps(config))
    if weights is not None:
        index = {
            "metadata": {"total_size": 1},
            "weight_map": {w: "model-00001-of-00002.safetensors" for w in weights},
        }
        (root / "model.safetensors.index.json").write_text(json.dumps(index))
    for name, body in (files or {}).items():
        (root / name).write_text(json.dumps(body))
    return root


def target(root: Path, quant: dict[str, Any] | None, weights: list[str], **cfg: Any) -> Path:
    config = {**TARGET_CONFIG, **cfg}
    if quant is not None:
        config["quantization_config"] = quant
    return ckpt(root, config, weights)


@pytest.fixture
def drafter(tmp_path: Path) -> Path:
    return ckpt(tmp_path / "Qwen3.8-27B-DFlash2", DFLASH2_CONFIG, ["layers.0.self_attn.q_proj.weight"])


def head_check(report: Any) -> Any:
    (check,) = [c for c in report.checks if c.name == "LM head"]
    return check


# -- the seeds' quantized-head checkpoints --------------------------------------------------------


def test_seed_weight_scale_on_head_refused(tmp_path: Path, drafter: Path) -> None:
    """Seeds' check: ['lm_head.weight', 'lm_head.weight_scale'] -> DFlash2 will not run (NVFP4)."""
    quant = {"quant_method": "modelopt", "quant_algo": "NVFP4", "ignore": []}
    t = target(
        tmp_path / "nvfp4",
        quant,
        [
            f"{LAYER}.weight",
            f"{LAYER}.weight_scale",
            f"{LAYER}.weight_scale_2",
            f"{LAYER}.input_scale",
            "lm_head.weight",
            "lm_head.weight_scale",
        ],
    )
    report = run_preflight("vllm", t, drafter, 131072, 7, env={})
    assert report.verdict == "refuse"
    check = head_check(report)
    assert check.ok is False
    assert "lm_head.weight_scale" in check.detail
    assert "unquantized target LM head" in check.detail and "top-K" in check.detail
    assert "--spec-type draft-dflash" in check.detail  # points to the llama.cpp path
    assert "REFUSE" in format_report(report)


def test_released_vllm_does_not_refuse_a_quantized_head(tmp_path: Path, drafter: Path) -> None:
    """vLLM 0.28.0-0.33.0 as released on PyPI carry no quantized-head refusal (SOURCES.md: their
    qwen3_dflash2.py takes the candidate top-K through LogitsProcessor.get_top_k_tokens): warn, do not
    refuse; an unknown or development build keeps the seeds' refusal."""
    quant = {"quant_method": "modelopt", "quant_algo": "NVFP4", "ignore": []}
    t = target(tmp_path / "nvfp4", quant, [f"{LAYER}.weight", f"{LAYER}.weight_scale", "lm_head.weight",
                                           "lm_head.weight_scale"])
    released = run_preflight("vllm", t, drafter, 131072, 7, env={}, engine_version="0.33.0")
    check = head_check(released)
    assert check.ok is None and "vLLM 0.33.0 does not refuse" in check.detail
    assert released.verdict == "provisional", format_report(released)
    dev = run_preflight("vllm", t, drafter, 131072, 7, env={}, engine_version="0.34.0.dev3+g030da624")
    assert dev.verdict == "refuse" and head_check(dev).ok is False


def test_compressed_tensors_nvfp4_head_refused(tmp_path: Path, drafter: Path) -> None:
    quant = {
        "quant_method": "compressed-tensors",
        "format": "nvfp4-pack-quantized",
        "quantization_status": "compressed",
        "config_groups": {
            "group_0": {"targets": ["Linear"], "weights": {"num_bits": 4, "type": "float", "group_size": 16}}
        },
        "ignore": [],
    }
    weights = [
        f"{LAYER}.weight_packed",
        f"{LAYER}.weight_scale",
        f"{LAYER}.weight_global_scale",
        "lm_head.weight_packed",
        "lm_head.weight_scale",
        "lm_head.weight_global_scale",
    ]
    report = run_preflight("vllm", target(tmp_path / "ct", quant, weights), drafter, None, 7, env={})
    assert report.refused
    assert "lm_head.weight_packed" in head_check(report).detail


def test_compressed_tensors_config_not_excluding_head_refused(tmp_path: Path, drafter: Path) -> None:
    """Weights look clean but the config quantizes every Linear and does not ignore lm_head."""
    quant = {
        "quant_method": "compressed-tensors",
        "config_groups": {"group_0": {"targets": ["Linear"]}},
        "ignore": ["re:.*mlp.gate$"],
    }
    report = run_preflight(
        "vllm",
        target(tmp_path / "ct2", quant, [f"{LAYER}.weight_packed", "lm_head.weight"]),
        drafter,
        None,
        7,
        env={},
    )
    assert report.refused
    assert "does not exclude lm_head" in head_check(report).detail


def test_autoround_that_looks_fine_refused(tmp_path: Path, drafter: Path) -> None:
    """Seed 001 §1: an AutoRound checkpoint whose weight map is clean still fails on vLLM."""
    quant = {
        "quant_method": "auto-round",
        "bits": 4,
        "group_size": 128,
        "sym": True,
        "data_type": "int",
        "packing_format": "auto_round:auto_gptq",
        "autoround_version": "0.6.0",
        "block_name_to_quantize": "model.layers",
    }
    t = target(
        tmp_path / "autoround",
        quant,
        [f"{LAYER}.qweight", f"{LAYER}.qzeros", f"{LAYER}.scales", "lm_head.weight"],
    )
    assert lm_head_status(inspect_checkpoint(t)).state == "quantized"
    report = run_preflight("vllm", t, drafter, 131072, 7, env={})
    assert report.refused
    detail = head_check(report).detail
    assert "AutoRound" in detail and "confirm by launching" in detail
    assert "--spec-type draft-dflash" in detail


def test_tied_quantized_embeddings_refused(tmp_path: Path, drafter: Path) -> None:
    quant = {"quant_method": "gptq", "bits": 4, "group_size": 128, "lm_head": False}
    t = target(
        tmp_path / "tied",
        quant,
        ["model.embed_tokens.qweight", "model.embed_tokens.scales"],
        tie_word_embeddings=True,
    )
    assert run_preflight("vllm", t, drafter, None, 7, env={}).refused


def test_single_safetensors_header_is_read(tmp_path: Path, drafter: Path) -> None:
    """No index file: the names come from the .safetensors header itself."""
    root = target(tmp_path / "single", None, [])
    (root / "model.safetensors.index.json").unlink()
    header = json.dumps(
        {
            "__metadata__": {"format": "pt"},
            "lm_head.weight": {"dtype": "F8_E4M3", "shape": [2, 2], "data_offsets": [0, 4]},
            "lm_head.weight_scale_inv": {"dtype": "F32", "shape": [1], "data_offsets": [4, 8]},
        }
    )
    (root / "model.safetensors").write_bytes(struct.pack("<Q", len(header)) + header.encode() + b"\0" * 8)
    report = run_preflight("vllm", root, drafter, None, 7, env={})
    assert report.refused and "lm_head.weight_scale_inv" in head_check(report).detail


# -- clean heads: provisional, never "ok" --------------------------------------------------------


@pytest.mark.parametrize(
    ("quant", "weights"),
    [
        (
            {
                "activation_scheme": "dynamic",
                "fmt": "e4m3",
                "quant_method": "fp8",
                "weight_block_size": [128, 128],
            },
            [f"{LAYER}.weight", f"{LAYER}.weight_scale_inv", "lm_head.weight"],
        ),
        (
            {
                "quant_method": "compressed-tensors",
                "config_groups": {"g": {"targets": ["Linear"]}},
                "ignore": ["lm_head"],
            },
            [f"{LAYER}.weight_packed", "lm_head.weight"],
        ),
        (
            {
                "quant_method": "gptq",
                "bits": 4,
                "group_size": 128,
                "desc_act": False,
                "sym": True,
                "lm_head": False,
            },
            [f"{LAYER}.qweight", f"{LAYER}.g_idx", "lm_head.weight"],
        ),
        (None, [f"{LAYER}.weight", "lm_head.weight"]),
    ],
    ids=["fp8", "compressed-tensors-ignored", "gptq", "bf16"],
)
def test_clean_head_is_provisional(
    tmp_path: Path, drafter: Path, quant: dict[str, Any] | None, weights: list[str]
) -> None:
    report = run_preflight("vllm", target(tmp_path / "t", quant, weights), drafter, 131072, 7, env={})
    assert report.verdict == "provisional", format_report(report)
    check = head_check(report)
    assert check.ok is None and "necessary, not sufficient" in check.detail
    assert "provisional" in format_report(report)


def test_modelopt_hf_quant_config_excluding_head(tmp_path: Path, drafter: Path) -> None:
    root = target(tmp_path / "mo", None, [f"{LAYER}.weight_scale", "lm_head.weight"])
    (root / "hf_quant_config.json").write_text(
        json.dumps(
            {
                "producer": {"name": "modelopt", "version": "0.35.0"},
                "quantization": {"quant_algo": "NVFP4", "group_size": 16, "exclude_modules": ["lm_head"]},
            }
        )
    )
    info = inspect_checkpoint(root)
    assert info.quant_source == "hf_quant_config.json"
    assert lm_head_status(info).state == "clean"
    (root / "hf_quant_config.json").write_text(
        json.dumps({"quantization": {"quant_algo": "NVFP4", "exclude_modules": []}})
    )
    assert lm_head_status(inspect_checkpoint(root)).state == "quantized"


# -- the other checks ---------------------------------------------------------------------------


def test_drafter_family_block_and_k(tmp_path: Path, drafter: Path) -> None:
    t = target(tmp_path / "t", None, ["lm_head.weight"])
    report = run_preflight("vllm", t, drafter, 131072, 7, env={})
    assert (report.family, report.block_size, report.k_max) == ("DFlash 2", 8, 7)
    fam = next(c for c in report.checks if c.name == "drafter family")
    assert "DFlash2DraftModel" in fam.detail and "selector_top_k" in fam.detail
    too_deep = run_preflight("vllm", t, drafter, 131072, 15, env={})
    assert too_deep.refused and any(c.name == "k" and c.ok is False for c in too_deep.checks)
    shallow = run_preflight("vllm", t, drafter, 131072, 5, env={})
    assert shallow.refused and any("k=7" in c.detail for c in shallow.checks if c.name == "k")


def test_dflash2_fields_without_architecture_refused_on_vllm(tmp_path: Path) -> None:
    cfg = {**DFLASH2_CONFIG, "architectures": ["DFlashDraftModel"]}
    d = ckpt(tmp_path / "d", cfg, ["x.weight"])
    t = target(tmp_path / "t", None, ["lm_head.weight"])
    report = run_preflight("vllm", t, d, None, 7, env={})
    assert any(c.name == "DFlash 2 dispatch" and c.ok is False for c in report.checks)
    # SGLang keys on the dflash_config fields, so the same drafter is fine there
    assert not any(c.name == "DFlash 2 dispatch" for c in run_preflight("sglang", t, d, None, 7).checks)


def test_drafter_context_shorter_than_max_model_len(tmp_path: Path) -> None:
    d = ckpt(tmp_path / "d", {**DFLASH2_CONFIG, "max_position_embeddings": 32768}, ["x.weight"])
    t = target(tmp_path / "t", None, ["lm_head.weight"])
    report = run_preflight("vllm", t, d, 131072, 7, env={})
    (ctx,) = [c for c in report.checks if c.name == "drafter context"]
    assert ctx.ok is False and "#57964" in ctx.detail and "32768" in ctx.detail
    assert [c.ok for c in run_preflight("vllm", t, d, 32768, 7, env={}).checks if c.name == "drafter context"] == [True]
    sglang = run_preflight("sglang", t, d, 131072, 7)
    assert [c.ok for c in sglang.checks if c.name == "drafter context"] == [None]


def test_vocab_mismatch_refused(tmp_path: Path, drafter: Path) -> None:
    t = target(tmp_path / "t", None, ["lm_head.weight"], vocab_size=151936)
    report = run_preflight("sglang", t, drafter, None, 7)
    assert report.refused
    assert any(c.name == "vocab" and c.ok is False and "151936" in c.detail for c in report.checks)


def test_target_layer_ids_out_of_range(tmp_path: Path, drafter: Path) -> None:
    t = target(tmp_path / "t", None, ["lm_head.weight"], num_hidden_layers=40)
    report = run_preflight("sglang", t, drafter, None, 7)
    assert any(c.name == "target layers" and c.ok is False and "[47, 61]" in c.detail for c in report.checks)


def test_v1_runner_forced_by_env_or_args(tmp_path: Path, drafter: Path) -> None:
    t = target(tmp_path / "t", None, ["lm_head.weight"])
    forced = run_preflight("vllm", t, drafter, None, 7, env={"VLLM_USE_V2_MODEL_RUNNER": "0"})
    (runner,) = [c for c in forced.checks if c.name == "model runner"]
    assert runner.ok is False and "VLLM_USE_V2_MODEL_RUNNER=0" in runner.detail
    plugin = run_preflight("vllm", t, drafter, None, 7, env={}, extra_args=["--logits-processors", "my.mod:LP"])
    assert plugin.refused
    clean = run_preflight("vllm", t, drafter, None, 7, env={"VLLM_USE_V2_MODEL_RUNNER": "1"})
    assert [c.ok for c in clean.checks if c.name == "model runner"] == [True]


def test_dspark_k_equals_block_size(tmp_path: Path) -> None:
    d = ckpt(
        tmp_path / "ds",
        {
            "architectures": ["DSparkDraftModel"],
            "vocab_size": 248320,
            "max_position_embeddings": 262144,
            "block_size": 7,
        },
        ["markov_w1.weight"],
    )
    t = target(tmp_path / "t", None, ["lm_head.weight"])
    report = run_preflight("vllm", t, d, None, 7, env={})
    assert (report.family, report.k_max) == ("DSpark", 7)
    assert [c.ok for c in report.checks if c.name == "k"] == [True]


def test_missing_and_hub_paths(tmp_path: Path, drafter: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    report = run_preflight("vllm", empty, drafter, None, 7, env={})
    assert report.refused and "no config.json" in report.checks[0].detail
    hub = run_preflight("vllm", "Qwen/Qwen3.8-27B-FP8", drafter, None, 7, env={})
    assert hub.verdict == "provisional" and "not a local path" in hub.checks[0].detail
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "config.json").write_text("{not json")
    with pytest.raises(CoderError, match="not valid JSON"):
        inspect_checkpoint(bad)


def test_unknown_engine() -> None:
    with pytest.raises(CoderError, match="unknown engine"):
        run_preflight("tgi", "m")


# -- llama.cpp: GGUF files ------------------------------------------------------------------------


def test_llamacpp_dflash2_gguf_against_demo_target(tmp_path: Path, demo_model: Path) -> None:
    demo = demo_model
    d = write_gguf(tmp_path / "d2.gguf", "dflash", DFLASH2_KV, ["selector_hidden.weight"])
    report = run_preflight("llama.cpp", demo, d, None, 7)
    assert report.verdict == "ok", format_report(report)
    assert (report.family, report.k_max) == ("DFlash 2", 7)
    assert head_check(report).ok is True  # no unquantized-head restriction on llama.cpp
    clamp = run_preflight("llama.cpp", demo, d, None, 15)
    assert clamp.verdict == "provisional" and any("clamps to 7" in c.detail for c in clamp.checks)


def test_llamacpp_gguf_mismatches(tmp_path: Path, demo_model: Path) -> None:
    demo = demo_model
    kv = {**DFLASH2_KV, "dflash.vocab_size": 151936, "dflash.target_layers": [3, 40]}
    d = write_gguf(tmp_path / "d2.gguf", "dflash", kv, ["selector_hidden.weight"])
    report = run_preflight("llama.cpp", demo, d, None, 7)
    failed = {c.name for c in report.checks if c.ok is False}
    assert failed == {"vocab", "target layers"}
    nolayers = write_gguf(tmp_path / "d1.gguf", "dflash", {"dflash.block_size": 8}, [])
    assert any("target_layers missing" in c.detail for c in run_preflight("llama.cpp", demo, nolayers).checks)


def test_llamacpp_corrupt_drafter(tmp_path: Path) -> None:
    bad = tmp_path / "bad.gguf"
    bad.write_bytes(b"nope")
    report = run_preflight("llama.cpp", bad, None)
    assert report.refused and "not a GGUF" in report.checks[0].detail


def test_llamacpp_dflash2_gguf_missing_metadata_refused(tmp_path: Path) -> None:
    kv = {k: v for k, v in DFLASH2_KV.items() if k != "dflash.conv_group_size"}
    d = write_gguf(tmp_path / "d2.gguf", "dflash", kv, ["selector_hidden.weight"])
    report = run_preflight("llama.cpp", d, d, None, 7)
    (check,) = [c for c in report.checks if c.name == "DFlash 2 metadata"]
    assert check.ok is False and "dflash.conv_group_size" in check.detail


def test_modelopt_fp8_head_not_inferred_from_config(tmp_path: Path) -> None:
    """ModelOpt FP8 (like plain fp8) builds no quantized head: only the weights could say otherwise."""
    t = target(
        tmp_path / "mofp8",
        {"quant_method": "modelopt", "quant_algo": "FP8", "ignore": []},
        [f"{LAYER}.weight_scale", "lm_head.weight"],
    )
    assert lm_head_status(inspect_checkpoint(t)).state == "clean"
