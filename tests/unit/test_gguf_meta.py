"""The one-pass GGUF metadata reader: same facts as gguf-py, and a crafted header is one line, not an allocation."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest
from gguf import GGUFReader, GGUFWriter

from coder.errors import CoderError
from coder.models.gguf_meta import read_meta


def _model(path: Path) -> Path:
    w = GGUFWriter(str(path), "llama")
    w.add_block_count(2)
    w.add_context_length(4096)
    w.add_name("tiny")
    w.add_token_list([f"tok{i}" for i in range(5000)])
    w.add_array("dflash.target_layers", [1, 5, 9])
    import numpy as np

    w.add_tensor("blk.1.nextn.eh_proj.weight", np.zeros((4, 4), dtype=np.float32))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return path


def test_same_facts_as_gguf_py(tmp_path: Path) -> None:
    path = _model(tmp_path / "m.gguf")
    meta = read_meta(path)
    ref = GGUFReader(path, "r")
    assert meta.values["general.architecture"] == "llama" and meta.values["general.name"] == "tiny"
    assert meta.values["llama.context_length"] == ref.fields["llama.context_length"].contents() == 4096
    assert meta.array_lengths["tokenizer.ggml.tokens"] == len(ref.fields["tokenizer.ggml.tokens"].data) == 5000
    assert meta.values["dflash.target_layers"] == [1, 5, 9]
    assert meta.tensors == {t.name for t in ref.tensors}


def _header(n_tensors: int, n_kv: int) -> bytes:
    return b"GGUF" + struct.pack("<IQQ", 3, n_tensors, n_kv)


@pytest.mark.parametrize(("data", "why"), [
    (_header(0, 2**62), "a count of 4611686018427387904 cannot fit"),
    (_header(0, 1) + struct.pack("<Q", 2**40) + b"k", "cannot fit"),
    (_header(0, 1) + struct.pack("<Q", 1) + b"k" + struct.pack("<I", 9) + struct.pack("<IQ", 8, 2**50),
     "cannot fit"),
    (_header(0, 1) + struct.pack("<Q", 1) + b"k" + struct.pack("<I", 77), "value type 77"),
    (_header(1, 0) + struct.pack("<Q", 1) + b"t" + struct.pack("<I", 2**31), "a tensor of 2147483648 dimensions"),
    (b"GGUF" + struct.pack("<IQQ", 99, 0, 0), "GGUF version 99"),
    (b"GGUF\x03\x00", "too short"),
    (b"PK\x03\x04" + bytes(40), "bad magic"),
])
def test_a_crafted_header_is_one_line(tmp_path: Path, data: bytes, why: str) -> None:
    path = tmp_path / "evil.gguf"
    path.write_bytes(data + bytes(8))
    with pytest.raises(CoderError, match=why) as err:
        read_meta(path)
    assert "\n" not in str(err.value)


def test_a_truncated_real_file_is_one_line(tmp_path: Path) -> None:
    path = _model(tmp_path / "m.gguf")
    data = path.read_bytes()
    for cut in (30, len(data) // 3, 40_000):
        path.write_bytes(data[:cut])
        with pytest.raises(CoderError, match="corrupt GGUF"):
            read_meta(path)
