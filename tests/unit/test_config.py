"""Profiles in TOML: merge order, validation, and saving without losing the user's comments."""

from __future__ import annotations

from pathlib import Path

import pytest

from coder import config
from coder.errors import CoderError


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_repo_file_overrides_user_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CODER_HOME", str(tmp_path / "home"))
    _write(config.user_config_path(), 'default_profile = "a"\n[profiles.a]\nmodel = "/u.gguf"\nk = 5\n')
    repo = tmp_path / "repo"
    _write(repo / ".coder.toml", '[profiles.a]\nk = 7\n[profiles.a.k_by_class]\nfull = 7\nregion = 3\n')
    cfg = config.load(repo)
    profile = cfg.profile()
    assert (profile.name, profile.model, profile.k) == ("a", "/u.gguf", 7)
    assert profile.k_by_class == {"full": 7, "region": 3}
    assert "demo" in cfg.profiles  # built-ins stay available


@pytest.mark.parametrize(("body", "message"), [
    ('[profiles.a]\nengine = "tgi"\n', "profiles.a.engine: got a string of 3 characters, expected 'llama.cpp'"),
    ('[profiles.a]\n[profiles.a.k_by_class]\nchat = 3\n', "profiles.a.k_by_class: unknown key chat: expected 'full'"),
    ('default_profile = "nope"\n', "default_profile names no profile that exists"),
    ("[profiles.a\n", "not valid TOML"),
])
def test_bad_config_is_one_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, body: str,
                                       message: str) -> None:
    monkeypatch.setenv("CODER_HOME", str(tmp_path / "home"))
    _write(config.user_config_path(), body)
    with pytest.raises(CoderError, match=message):
        config.load(None)


def test_save_keeps_comments_and_other_keys(tmp_path: Path) -> None:
    path = _write(tmp_path / "c.toml", '# my settings\ntheme = "x"\n[profiles.a]\nk = 5  # tuned by hand\n')
    config.save_user_setting(path, "profiles.a.k_by_class", "full", 7)
    config.save_user_setting(path, None, "theme", "coder-light")
    text = path.read_text()
    assert "# my settings" in text and "# tuned by hand" in text
    import tomllib

    data = tomllib.loads(text)
    assert data["theme"] == "coder-light"
    assert data["profiles"]["a"] == {"k": 5, "k_by_class": {"full": 7}}


def test_overrides_ignore_none_and_reject_unknown_fields() -> None:
    base = config.builtin_profiles()["demo"]
    assert base.with_overrides(k=None, ctx=2048).k == base.k
    with pytest.raises(CoderError, match="unknown profile field"):
        base.with_overrides(kk=3)
