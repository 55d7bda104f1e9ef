"""GGUF inspection: the real demo model, and small GGUFs written here with real drafter keys/tensors."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from gguf import GGUFWriter

from coder.errors import CoderError
from coder.models.gguf_info import format_info, inspect_gguf


def write_gguf(path: Path, arch: str, kv: dict[str, Any], tensors: list[str]) -> Path:
    """A tiny but valid GGUF with the given metadata (ints as uint32, lists as arrays) and 4x4 tensors."""
    writer = GGUFWriter(str(path), arch)
    for key, value in kv.items():
        if isinstance(value, bool):
            writer.add_bool(key, value)
        elif isinstance(value, int):
            writer.add_uint32(key, value)
        elif isinstance(value, list):
            writer.add_array(key, value)
        else:
            writer.add_string(key, str(value))
    for name in tensors:
        writer.add_tensor(name, np.zeros((4, 4), dtype=np.float32))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path


DFLASH2_KV = {
    "dflash.block_size": 8,
    "dflash.selector_top_k": 16,
    "dflash.selector_rank": 256,
    "dflash.conv_kernel_size": 2,
    "dflash.conv_group_size": 16,
    "dflash.target_layers": [3, 11, 21],
    "dflash.vocab_size": 49152,
    "dflash.context_length": 262144,
}


def test_demo_model_is_a_plain_llama(demo_model: Path) -> None:
    info = inspect_gguf(demo_model)
    assert (info.architecture, info.context_length, info.vocab_size, info.block_count) == (
        "llama",
        8192,
        49152,
        30,
    )
    assert info.drafter_family is None and not info.has_mtp_heads and info.k_max is None


def test_dflash2_by_selector_key(tmp_path: Path) -> None:
    info = inspect_gguf(write_gguf(tmp_path / "d2.gguf", "dflash", DFLASH2_KV, ["selector_hidden.weight"]))
    assert (info.drafter_family, info.block_size, info.k_max) == ("DFlash 2", 8, 7)
    assert info.spec_type == "draft-dflash"
    assert info.target_layers == [3, 11, 21]
    assert info.vocab_size == 49152


def test_dflash2_by_tensor_only(tmp_path: Path) -> None:
    info = inspect_gguf(
        write_gguf(tmp_path / "d2t.gguf", "dflash", {"dflash.block_size": 16}, ["selector_hidden.weight"])
    )
    assert info.drafter_family == "DFlash 2"
    assert info.k_max == 15


def test_dflash1_with_default_block(tmp_path: Path) -> None:
    info = inspect_gguf(
        write_gguf(tmp_path / "d1.gguf", "dflash", {"dflash.target_layers": [2, 5]}, ["token_embd.weight"])
    )
    assert info.drafter_family == "DFlash"
    assert info.block_size == 16 and info.block_size_defaulted
    assert info.k_max == 15
    assert any("runtime default" in line for line in format_info(info))


def test_dspark_k_is_block_size(tmp_path: Path) -> None:
    info = inspect_gguf(
        write_gguf(
            tmp_path / "ds.gguf", "dflash", {"dflash.block_size": 7}, ["markov_w1.weight", "markov_w2.weight"]
        )
    )
    assert (info.drafter_family, info.k_max, info.spec_type) == ("DSpark", 7, "draft-dspark")


def test_eagle3(tmp_path: Path) -> None:
    info = inspect_gguf(write_gguf(tmp_path / "e3.gguf", "eagle3", {"eagle3.block_count": 1}, ["fc.weight"]))
    assert (info.drafter_family, info.spec_type, info.k_max) == ("EAGLE3", "draft-eagle3", None)


def test_mtp_heads_in_target(tmp_path: Path) -> None:
    kv = {"qwen3.block_count": 4, "qwen3.nextn_predict_layers": 1, "qwen3.context_length": 32768}
    info = inspect_gguf(write_gguf(tmp_path / "t.gguf", "qwen3", kv, ["blk.3.nextn.eh_proj.weight"]))
    assert info.has_mtp_heads and info.mtp_layers == 1 and info.spec_type == "draft-mtp"
    assert info.drafter_family is None
    assert any("MTP heads" in line for line in format_info(info))


@pytest.mark.parametrize("content", [b"", b"not a gguf at all", b"GGUF\x03\x00\x00\x00\xff\xff"])
def test_bad_files_give_one_line_errors(tmp_path: Path, content: bytes) -> None:
    bad = tmp_path / "bad.gguf"
    bad.write_bytes(content)
    with pytest.raises(CoderError) as err:
        inspect_gguf(bad)
    assert "\n" not in str(err.value) and "bad.gguf" in str(err.value)


def test_truncated_real_header(tmp_path: Path) -> None:
    whole = write_gguf(tmp_path / "w.gguf", "dflash", DFLASH2_KV, ["selector_hidden.weight"]).read_bytes()
    cut = tmp_path / "cut.gguf"
    cut.write_bytes(whole[:40])
    with pytest.raises(CoderError, match="corrupt GGUF"):
        inspect_gguf(cut)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(CoderError, match="no such file"):
        inspect_gguf(tmp_path / "nope.gguf")


def test_dflash2_missing_loader_keys(tmp_path: Path) -> None:
    kv = {"dflash.block_size": 8, "dflash.selector_top_k": 16, "dflash.target_layers": [1, 2]}
    info = inspect_gguf(write_gguf(tmp_path / "half.gguf", "dflash", kv, ["selector_hidden.weight"]))
    assert info.drafter_family == "DFlash 2"
    assert info.dflash2_missing == ["dflash.selector_rank", "dflash.conv_kernel_size", "dflash.conv_group_size"]
    full = inspect_gguf(write_gguf(tmp_path / "full.gguf", "dflash", DFLASH2_KV, ["selector_hidden.weight"]))
    assert full.dflash2_missing == []
