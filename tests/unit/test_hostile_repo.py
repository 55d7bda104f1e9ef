"""A hostile repository: a linked .coder.toml, a relative ``binary``, config values that are secrets.

Real files, real git, the real trust store and the real CLI in a subprocess.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest
from cli_helpers import error_lines, make_repo, run_coder

from coder import config, trust
from coder.config_schema import Profile
from coder.errors import CoderError

TOOL = '#!/bin/sh\necho "ran $*" >> "{marker}"\necho "--spec-type [none,ngram-mod]"\n'
LINKED_TOML = 'default_profile = "p"\n\n[profiles.p]\nmodel = "demo"\nspec_type = "ngram-mod"\nbinary = "{binary}"\n'
SECRET = "ghp_0123456789abcdefSECRET"


def _repo_with_tool(root: Path, marker: Path, toml: str) -> Path:
    make_repo(root, {"tools/llama-server": TOOL.format(marker=marker), ".coder.toml": toml})
    tool = root / "tools" / "llama-server"
    tool.chmod(tool.stat().st_mode | stat.S_IXUSR)
    return tool


def test_a_linked_config_does_not_carry_another_repositorys_trust(tmp_path: Path) -> None:
    home = tmp_path / "home"
    marker_a, marker_b = tmp_path / "A-RAN", tmp_path / "B-RAN"
    ra, rb = tmp_path / "rA", tmp_path / "rB"
    tool_a = _repo_with_tool(ra, marker_a, LINKED_TOML.format(binary=tmp_path / "rA" / "tools" / "llama-server"))
    _repo_with_tool(rb, marker_b, "")
    (rb / ".coder.toml").unlink()
    (rb / ".coder.toml").symlink_to(Path("..") / "rA" / ".coder.toml")
    assert run_coder("trust", cwd=ra, home=home).returncode == 0
    out = run_coder("backend", "start", "--dry-run", cwd=rb, home=home)
    assert "Traceback" not in out.stderr
    notes = [line for line in out.stderr.splitlines() if "symbolic link" in line]
    assert len(notes) == 1 and "not read" in notes[0], out.stderr
    assert not marker_b.exists() and not marker_a.exists()  # neither repository's program ran
    assert str(tool_a) not in out.stdout
    # trusting the link is refused in one line; the store still names only rA's file
    refused = run_coder("trust", cwd=rb, home=home)
    assert refused.returncode == 1 and "symbolic link" in error_lines(refused)[0]
    store = json.loads((home / "config" / "trusted.json").read_text())["files"]
    assert list(store) == [str(ra / ".coder.toml")]


def test_a_relative_binary_in_a_trusted_repository_is_refused(tmp_path: Path) -> None:
    home, marker = tmp_path / "home", tmp_path / "RAN"
    root = tmp_path / "r"
    _repo_with_tool(root, marker, LINKED_TOML.format(binary="tools/llama-server"))
    assert run_coder("trust", cwd=root, home=home).returncode == 0
    for args in (("backend", "start", "--dry-run"), ("doctor", "--json")):
        out = run_coder(*args, cwd=root, home=home)
        assert out.returncode == 1
        assert "absolute path" in (error_lines(out) or [out.stdout])[0]
    assert not marker.exists()


def test_a_bare_binary_name_is_looked_up_on_path_never_in_the_cwd(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    from coder.backends.engines.llamacpp import find_binary

    (tmp_path / "llama-server").write_text("#!/bin/sh\n")
    (tmp_path / "llama-server").chmod(0o755)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PATH", "/nonexistent")
    with pytest.raises(CoderError, match="not found"):
        find_binary(Profile(name="p", binary="llama-server"))
    assert Profile(name="p", binary="llama-server").anchored(tmp_path).binary == "llama-server"


def test_a_config_linked_to_a_credentials_file_is_never_quoted(tmp_path: Path) -> None:
    home = tmp_path / "home"
    secrets = tmp_path / "credentials.toml"
    secrets.write_text(f'token = "{SECRET}"\n[profiles.demo]\nk = "{SECRET}"\n')
    root = tmp_path / "r"
    make_repo(root)
    (root / ".coder.toml").symlink_to(secrets)
    for args in (("backend", "start", "--dry-run"), ("doctor", "--json")):
        out = run_coder(*args, cwd=root, home=home)
        assert SECRET not in out.stdout + out.stderr, (out.stdout, out.stderr)
        assert "symbolic link" in out.stdout + out.stderr


@pytest.mark.parametrize("body", [
    f'token = "{SECRET}"\n',
    f'[profiles.demo]\nk = "{SECRET}"\n',
    f'[profiles.demo]\nspec_type = "{SECRET}"\n',
    f'[profiles.demo]\n"{SECRET}" = 1\n',
    f'default_profile = "{SECRET}"\n',
    f'[profiles.demo]\nextra_args = "{SECRET}"\n',
    f'[profiles]\ndemo = "{SECRET}"\n',
])
def test_no_config_value_is_echoed_in_an_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, body: str) -> None:
    monkeypatch.setenv("CODER_HOME", str(tmp_path / "home"))
    root = tmp_path / "r"
    make_repo(root, {".coder.toml": body})
    with pytest.raises(CoderError) as info:
        config.load(root)
    assert SECRET[:12] not in str(info.value) and "\n" not in str(info.value)


def test_doctor_quotes_no_secret_of_an_in_repo_config(tmp_path: Path) -> None:
    root = tmp_path / "r"
    make_repo(root, {".coder.toml": f'[profiles.demo]\nflash_attn = "{SECRET}"\n'})
    out = run_coder("doctor", "--json", cwd=root, home=tmp_path / "home")
    checks = json.loads(out.stdout)
    assert checks[0]["name"] == "config" and checks[0]["ok"] is False
    assert SECRET not in out.stdout + out.stderr and "a string of" in checks[0]["detail"]


def test_trust_store_never_follows_a_link(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CODER_HOME", str(tmp_path / "home"))
    real = tmp_path / "real.toml"
    real.write_text("k = 1\n")
    link = tmp_path / "link.toml"
    link.symlink_to(real)
    trust.trust(real)
    assert trust.is_trusted(real, real.read_bytes()) and not trust.is_trusted(link, real.read_bytes())
    with pytest.raises(CoderError, match="symbolic link"):
        trust.trust(link)
    assert os.path.islink(link)
