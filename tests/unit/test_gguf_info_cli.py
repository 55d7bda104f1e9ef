"""``coder model inspect`` on GGUF files and checkpoint directories, through the real CLI entry point."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_gguf_info import DFLASH2_KV, write_gguf
from test_preflight import DFLASH2_CONFIG, TARGET_CONFIG, ckpt

from coder.cli.main import main


def test_inspect_dflash2_gguf(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write_gguf(tmp_path / "d2.gguf", "dflash", DFLASH2_KV, ["selector_hidden.weight"])
    assert main(["model", "inspect", str(path)]) == 0
    out = capsys.readouterr().out
    rows = {line[:22].strip(): line[22:].strip() for line in out.splitlines()}
    assert (rows["drafter"], rows["block size"], rows["largest useful k"]) == ("DFlash 2", "8", "7")
    assert rows["llama.cpp --spec-type"] == "draft-dflash"
    assert main(["model", "inspect", str(path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["drafter_family"], data["block_size"], data["k_max"]) == ("DFlash 2", 8, 7)


def test_inspect_checkpoint_dir(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    d = ckpt(tmp_path / "d2", DFLASH2_CONFIG, ["x.weight"])
    assert main(["model", "inspect", str(d), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["drafter_family"], data["k_max"], data["vocab_size"]) == ("DFlash 2", 7, 248320)
    quant = {"quant_method": "modelopt", "quant_algo": "NVFP4", "ignore": []}
    t = ckpt(
        tmp_path / "t",
        {**TARGET_CONFIG, "quantization_config": quant},
        ["lm_head.weight", "lm_head.weight_scale"],
    )
    assert main(["model", "inspect", str(t)]) == 0
    out = capsys.readouterr().out
    assert "LM head" in out and "quantized" in out and "lm_head.weight_scale" in out


def test_inspect_bad_input_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "x.gguf"
    bad.write_text("hello")
    assert main(["model", "inspect", str(bad)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("coder: error:") and err.count("\n") == 1
    assert main(["model", "inspect", str(tmp_path / "missing.gguf")]) == 1
    assert "no such file" in capsys.readouterr().err
    assert main(["model", "fetch", "llama-70b"]) == 1
    assert "unknown model 'llama-70b'" in capsys.readouterr().err
