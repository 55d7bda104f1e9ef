"""Bad config values: one line naming the file, the key, the value and what was expected.

Every case of issue 13 runs through the real ``coder`` entry point for both files
(the user's config.toml and a repository's .coder.toml), for ``backend start
--dry-run`` and for ``doctor``, which shares the validation.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_helpers import make_repo

from coder import config
from coder.cli.main import main
from coder.errors import CoderError

# (TOML body, key named in the error, the value as shown (its kind: never the value itself), expected text)
S2, S3, S5 = (f"a string of {n} characters" for n in (2, 3, 5))
CASES = [
    ("profiles = 3\n", "profiles", "an integer", "expected a valid dictionary"),
    ("[profiles.demo]\nk_by_class = 3\n", "profiles.demo.k_by_class", "an integer", "expected a valid dictionary"),
    ('[profiles.demo]\nk = "seven"\n', "profiles.demo.k", S5, "expected a valid integer"),
    ("[profiles.demo]\nspec_type = 5\n", "profiles.demo.spec_type", "an integer", "expected a valid string"),
    ('[profiles.demo]\nport = "abc"\n', "profiles.demo.port", S3, "expected a valid integer"),
    ("[profiles.demo]\nport = 70000\n", "profiles.demo.port", "an integer", "less than or equal to 65535"),
    ("[profiles.demo]\nctx = -5\n", "profiles.demo.ctx", "an integer", "expected greater than 0"),
    ("[profiles.demo]\nk = 7.5\n", "profiles.demo.k", "a number", "expected a valid integer"),
    ("[profiles.demo]\nk = -1\n", "profiles.demo.k", "an integer", "greater than or equal to 0"),
    ('snapshot_dirty = "no"\n', "snapshot_dirty", S2, "expected a valid boolean"),
    ('[profiles.demo]\nadaptive_k = "yes"\n', "profiles.demo.adaptive_k", S3, "expected a valid boolean"),
    ('[profiles.demo]\nextra_args = "--foo"\n', "profiles.demo.extra_args", S5, "expected a valid list"),
    ('[profiles.demo]\nengine = "tgi"\n', "profiles.demo.engine", S3, "expected 'llama.cpp'"),
    ('[profiles.demo]\nspec_type = "draft-magic"\n', "profiles.demo.spec_type", "a string of 11 characters",
     "expected one of"),
    ('[profiles.demo]\nspec_type = "ngram-mod,draft-nope"\n', "profiles.demo.spec_type",
     "a string of 10 characters", "comma chain"),
    ('[profiles.demo]\nflash_attn = "maybe"\n', "profiles.demo.flash_attn", S5, "expected 'on'"),
    ('[profiles."../x"]\nk = 1\n', "profiles", "'../x'", "expected a profile name"),
    ("[profiles.demo]\nk_by_class = { full = 2.5 }\n", "profiles.demo.k_by_class.full", "a number",
     "expected a valid integer"),
]
BAD_UTF8 = b'[profiles.demo]\nmodel = "caf\xe9"\n'


def _setup(tmp_path: Path, where: str, body: bytes, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    monkeypatch.setenv("CODER_HOME", str(home))
    root = tmp_path / "repo"
    make_repo(root)
    monkeypatch.chdir(root)
    target = config.user_config_path() if where == "user" else root / ".coder.toml"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(body)
    return target


@pytest.mark.parametrize("where", ["user", "repo"])
@pytest.mark.parametrize(("body", "key", "shown", "expected"), CASES)
def test_bad_value_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                               where: str, body: str, key: str, shown: str, expected: str) -> None:
    path = _setup(tmp_path, where, body.encode(), monkeypatch)
    assert main(["backend", "start", "--dry-run"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    assert err[0].startswith(f"coder: error: {path}")
    assert (f"{key}: got {shown}" in err[0] or f"{key}.{shown}" in err[0]) and expected in err[0], err[0]
    # doctor reports the same line as a failed check (no more "all ok" with k = "seven")
    assert main(["doctor", "--json"]) == 1
    checks = json.loads(capsys.readouterr().out)
    assert checks[0]["name"] == "config" and checks[0]["ok"] is False
    assert f"{key}: got {shown}" in checks[0]["detail"] or f"{key}.{shown}" in checks[0]["detail"]


@pytest.mark.parametrize("where", ["user", "repo"])
def test_non_utf8_config_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                     capsys: pytest.CaptureFixture[str], where: str) -> None:
    path = _setup(tmp_path, where, BAD_UTF8, monkeypatch)
    assert main(["backend", "start", "--dry-run"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"coder: error: {path}:2: not UTF-8 text (byte 0xe9); TOML files must be UTF-8"]


def test_good_values_load_with_their_types(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _setup(tmp_path, "user", b'snapshot_dirty = false\n[profiles.demo]\nk = 0\nctx = 1\nport = 65535\n'
           b'spec_type = "ngram-mod,draft-simple"\ngpu_memory_utilization = 1\n'
           b'extra_args = ["--foo"]\n[profiles.demo.k_by_class]\nfull = 7\n', monkeypatch)
    cfg = config.load(None)
    demo = cfg.profile("demo")
    assert cfg.snapshot_dirty is False
    assert (demo.k, demo.ctx, demo.port, demo.spec_type, demo.extra_args, demo.k_by_class) == (
        0, 1, 65535, "ngram-mod,draft-simple", ["--foo"], {"full": 7})


def test_command_line_overrides_use_the_same_schema() -> None:
    demo = config.builtin_profiles()["demo"]
    with pytest.raises(CoderError, match=r"profile 'demo': k: got an integer, expected greater than or equal to 0"):
        demo.with_overrides(k=-2)
    with pytest.raises(CoderError, match=r"port: got an integer, expected greater than or equal to 1"):
        demo.with_overrides(port=0)
