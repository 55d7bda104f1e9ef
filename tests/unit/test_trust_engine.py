"""Repository trust covers what the engine reads and allocates; config size, depth and paths are bounded."""

from __future__ import annotations

from pathlib import Path

import pytest

from coder import config
from coder.errors import CoderError


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("CODER_HOME", str(tmp_path / "home"))
    return tmp_path


def _repo(home: Path, text: str) -> Path:
    repo = home / "r"
    repo.mkdir(exist_ok=True)
    (repo / ".coder.toml").write_text(text)
    return repo


def test_untrusted_repo_cannot_choose_model_files_or_sizes(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (home / "r").mkdir()
    (home / "r" / "weights.gguf").write_bytes(b"GGUF crafted")
    repo = _repo(home, '[profiles.demo]\nmodel = "weights.gguf"\ndrafter = "/etc/passwd"\nctx = 1000000\n'
                       'threads = 64\nparallel = 32\nk = 3\n')
    demo = config.load(repo).profile("demo").anchored(repo)
    assert (demo.model, demo.drafter, demo.ctx, demo.threads, demo.parallel, demo.k) == (
        "demo", None, 8192, None, 1, 3)
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    for key in ("model", "drafter", "ctx", "threads", "parallel"):
        assert f"profiles.demo.{key}" in err[0]
    assert "coder trust" in err[0]


def test_untrusted_repo_may_pick_a_model_the_user_has_by_name(home: Path) -> None:
    user = config.user_config_path()
    user.parent.mkdir(parents=True)
    user.write_text('[profiles.mine]\nmodel = "~/models/coder-7b.gguf"\n')
    repo = _repo(home, '[profiles.p]\nmodel = "~/models/coder-7b.gguf"\ndrafter = "demo"\n'
                       'spec_type = "draft-simple"\nk = 4\n')
    cfg = config.load(repo)
    assert (cfg.profile("p").model, cfg.profile("p").drafter) == ("~/models/coder-7b.gguf", "demo")
    assert not cfg.ignored


def test_trusted_repo_sets_them(home: Path) -> None:
    from coder import trust

    repo = _repo(home, '[profiles.demo]\nctx = 4096\nthreads = 2\n')
    trust.trust(repo / ".coder.toml")
    demo = config.load(repo).profile("demo")
    assert (demo.ctx, demo.threads) == (4096, 2)


@pytest.mark.parametrize(("text", "message"), [
    ("[profiles.x]\nextra_args = " + "[" * 2000 + "]" * 2000 + "\n", "nested more than 16 deep"),
    ("a = " + "{b = " * 40 + "1" + "}" * 40 + "\n", "nested more than 16 deep"),
    ("# " + "x" * 300_000 + "\n", "too large for a config file"),
])
def test_config_depth_and_size_are_bounded(home: Path, text: str, message: str) -> None:
    repo = _repo(home, text)
    with pytest.raises(CoderError, match=message) as err:
        config.load(repo)
    assert "\n" not in str(err.value)


@pytest.mark.parametrize("model", ["a" * 300 + ".gguf", "/" + "b/" * 3000 + "m.gguf", "x\0y"])
def test_an_impossible_model_path_is_one_line(home: Path, model: str) -> None:
    user = config.user_config_path()
    user.parent.mkdir(parents=True)
    escaped = model.replace("\0", "\\u0000")
    user.write_text(f'[profiles.demo]\nmodel = "{escaped}"\n')
    with pytest.raises(CoderError, match=r"profiles\.demo\.model: got a string of .*expected a path") as err:
        config.load(None)
    assert "\n" not in str(err.value)
