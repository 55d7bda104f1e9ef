"""Model names in profiles, user model files, and ``coder model list``/``fetch`` through the real CLI."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from test_gguf_info import write_gguf

from coder.backends.engines.llamacpp import resolve_model
from coder.cli.main import main
from coder.config import builtin_profiles
from coder.errors import CoderError
from coder.models import store
from coder.models.catalog import MODELS
from coder.models.gguf_info import inspect_gguf


def test_every_builtin_profile_names_a_catalog_model() -> None:
    for profile in builtin_profiles().values():
        for name in filter(None, (profile.model, profile.drafter)):
            assert name in MODELS, (profile.name, name)
    real = builtin_profiles()
    assert (real["qwen-1.5b"].model, real["qwen-1.5b"].spec_type) == ("qwen-coder-1.5b", "prediction,ngram-mod")
    assert (real["qwen-0.5b"].model, real["qwen-0.5b"].drafter) == ("qwen-coder-0.5b", None)
    draft = real["qwen-1.5b-draft"]
    assert (draft.model, draft.drafter, draft.spec_type) == ("qwen-coder-1.5b", "qwen-coder-0.5b", "draft-simple")


def test_names_resolve_to_the_installed_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CODER_ARTIFACTS", str(tmp_path))
    spec = MODELS["qwen-coder-0.5b"]
    assert resolve_model("qwen-coder-0.5b", "draft", dry_run=True) == str(tmp_path / "models" / spec.filename)
    with pytest.raises(CoderError, match="not fetched yet"):
        resolve_model("qwen-coder-0.5b", "draft")


def test_user_model_without_chat_template_is_one_line(tmp_path: Path) -> None:
    plain = write_gguf(tmp_path / "base.gguf", "llama", {"llama.context_length": 2048}, ["token_embd.weight"])
    with pytest.raises(CoderError) as err:
        resolve_model(str(plain), "target")
    assert "no chat template" in str(err.value) and "\n" not in str(err.value)
    assert resolve_model(str(plain), "draft") == str(plain)  # a drafter is never chatted with
    chat = write_gguf(tmp_path / "chat.gguf", "llama", {"tokenizer.chat_template": "{{ m }}"}, ["token_embd.weight"])
    assert resolve_model(str(chat), "target") == str(chat)
    assert inspect_gguf(chat).chat_template and not inspect_gguf(plain).chat_template


@pytest.mark.parametrize("content", [b"PK\x03\x04 a zip", b"GGUF" + os.urandom(256), b"GGUF\x03\x00\x00\x00"])
def test_user_model_not_a_gguf_or_corrupt_is_one_line(tmp_path: Path, content: bytes) -> None:
    bad = tmp_path / "m.gguf"
    bad.write_bytes(content)
    with pytest.raises(CoderError) as err:
        resolve_model(str(bad), "target")
    assert "\n" not in str(err.value) and "m.gguf" in str(err.value)
    assert "GGUF" in str(err.value)  # "not a GGUF", "corrupt GGUF", "GGUF version … not supported"


def test_model_list_and_unknown_fetch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("CODER_ARTIFACTS", str(tmp_path))
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "mine.gguf").write_bytes(b"GGUF" + bytes(2_000_000))
    assert main(["model", "list", "--json"]) == 0
    rows = {row["name"]: row for row in json.loads(capsys.readouterr().out)}
    assert set(rows) == {"demo", "qwen-coder-1.5b", "qwen-coder-0.5b", "-"}
    assert rows["qwen-coder-1.5b"]["state"] == "not fetched" and rows["qwen-coder-1.5b"]["size"] == "1,117 MB"
    assert rows["-"]["path"].endswith("mine.gguf")
    assert main(["model", "list"]) == 0
    assert "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf" in capsys.readouterr().out
    assert main(["model", "fetch", "llama-70b"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "qwen-coder-1.5b" in err
    assert store.installed(MODELS["qwen-coder-1.5b"]) is None


def test_doctor_names_a_target_without_chat_template(tmp_path: Path) -> None:
    from coder.config import Profile
    from coder.doctor import _model_checks

    plain = write_gguf(tmp_path / "base.gguf", "llama", {"llama.context_length": 2048}, ["token_embd.weight"])
    checks = {c.name: c for c in _model_checks(Profile(name="x", model=str(plain), drafter=str(plain)))}
    assert checks["target model"].ok is False and "no chat template" in checks["target model"].detail
    assert checks["drafter model"].ok is True
