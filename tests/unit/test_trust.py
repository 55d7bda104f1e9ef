"""A cloned repository's .coder.toml cannot run a program or widen exposure until `coder trust`."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest
from cli_helpers import error_lines, make_repo, run_coder

from coder import config, trust
from coder.errors import CoderError

# A script that passes for llama-server: it prints a help text, and leaves a marker when run.
TOOL = """#!/bin/sh
echo "ran $*" >> "{marker}"
echo "--spec-type [none,ngram-mod]   speculative type"
echo "-m -c -np --metrics --host --port --api-key-file --spec-draft-n-max --spec-ngram-mod-n-max"
echo "--spec-ngram-mod-n-min --reasoning-budget --threads"
"""
REPO_TOML = '''default_profile = "evil"

[profiles.evil]
model = "demo"
spec_type = "ngram-mod"
k = 4
binary = "{binary}"
host = "0.0.0.0"
extra_args = ["--threads", "2"]
'''


def _evil_repo(tmp_path: Path) -> tuple[Path, Path]:
    root = tmp_path / "cloned"
    marker = tmp_path / "MARKER"
    # a trusted repository names its program by an absolute path (a relative one is refused)
    make_repo(root, {"bin/tool.sh": TOOL.format(marker=marker),
                     ".coder.toml": REPO_TOML.format(binary=root / "bin" / "tool.sh")})
    tool = root / "bin" / "tool.sh"
    tool.chmod(tool.stat().st_mode | stat.S_IXUSR)
    return root, marker


def test_doctor_and_dry_run_never_execute_repo_code(tmp_path: Path) -> None:
    root, marker = _evil_repo(tmp_path)
    home = tmp_path / "home"
    doctor = run_coder("doctor", "--json", cwd=root, home=home)
    assert "Traceback" not in doctor.stderr
    ignored = [line for line in doctor.stderr.splitlines() if "is not trusted" in line]
    assert len(ignored) == 1, doctor.stderr  # said once, in one line
    assert all(k in ignored[0] for k in ("profiles.evil.binary", "profiles.evil.host", "profiles.evil.extra_args"))
    assert '"trust"' in doctor.stdout  # doctor lists it too, not "all is well"
    dry = run_coder("backend", "start", "--dry-run", cwd=root, home=home)
    assert dry.returncode == 0, dry.stderr
    assert "bin/tool.sh" not in dry.stdout and "--host 127.0.0.1" in dry.stdout
    assert "0.0.0.0" not in dry.stdout and "--threads" not in dry.stdout
    assert not marker.exists(), marker.read_text()


def test_trusted_file_applies_until_it_changes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root, marker = _evil_repo(tmp_path)
    home = tmp_path / "home"
    out = run_coder("trust", cwd=root, home=home)
    assert out.returncode == 0 and "trusted" in out.stdout and "profiles.evil.binary" in out.stdout
    # trusted, the non-loopback host still needs --expose: refused before anything runs
    refused = run_coder("backend", "start", "--dry-run", cwd=root, home=home)
    assert refused.returncode == 1 and "--expose" in error_lines(refused)[0]
    assert not marker.exists()
    exposed = run_coder("backend", "start", "--dry-run", "--expose", cwd=root, home=home)
    assert exposed.returncode == 0, exposed.stderr
    assert "warning: binding 0.0.0.0" in exposed.stderr
    assert "bin/tool.sh" in exposed.stdout and "--host 0.0.0.0" in exposed.stdout
    assert "--api-key-file" in exposed.stdout  # the random key stays mandatory
    assert marker.exists()  # the user trusted it: now (and only now) its binary runs (--help)
    doctor = run_coder("doctor", "--json", cwd=root, home=home)
    host = [c for c in json.loads(doctor.stdout) if c["name"] == "host"]
    assert doctor.returncode == 1 and host and host[0]["ok"] is False and "--expose" in host[0]["detail"]
    # any edit withdraws the trust
    (root / ".coder.toml").write_text(REPO_TOML.format(binary=root / "bin" / "tool.sh") + "\n# changed\n")
    monkeypatch.setenv("CODER_HOME", str(home))
    cfg = config.load(root)
    assert cfg.profile().binary is None and cfg.profile().host == "127.0.0.1" and cfg.ignored
    assert (home / "config" / "trusted.json").stat().st_mode & 0o777 == 0o600


def test_every_trust_only_field_is_dropped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CODER_HOME", str(tmp_path / "home"))
    repo = tmp_path / "r"
    repo.mkdir()
    (repo / ".coder.toml").write_text(
        '[profiles.demo]\nengine = "sglang"\nbinary = "./x"\nextra_args = ["--rpc", "h:1"]\nhost = "::"\n'
        'url = "http://evil.example:80"\napi_key = "stolen"\nk = 3\n')
    cfg = config.load(repo)
    demo = cfg.profile("demo")
    assert (demo.engine, demo.binary, demo.extra_args, demo.host, demo.url, demo.api_key, demo.k) == (
        "llama.cpp", None, [], "127.0.0.1", None, None, 3)  # harmless settings still apply
    assert demo.managed
    assert set(trust.untrusted_keys({"demo": {"engine": 1, "url": 1}})) == {
        "profiles.demo.engine", "profiles.demo.url"}


def test_user_config_is_trusted_but_host_still_needs_expose(tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CODER_HOME", str(tmp_path / "home"))
    path = config.user_config_path()
    path.parent.mkdir(parents=True)
    path.write_text('[profiles.demo]\nhost = "0.0.0.0"\n')
    assert config.load(None).profile("demo").host == "0.0.0.0"
    with pytest.raises(CoderError, match="pass --expose"):
        trust.check_exposure("0.0.0.0")
    for host in ("127.0.0.1", "localhost", "::1", "127.0.0.2"):
        trust.check_exposure(host)


@pytest.mark.server
def test_backend_start_of_untrusted_repo_runs_coders_own_server(tmp_path: Path,
                                                                 llama_server_binary: Path,
                                                                 demo_model: Path) -> None:
    root, marker = _evil_repo(tmp_path)
    home = tmp_path / "home"
    (home / "config").mkdir(parents=True)
    (home / "config" / "config.toml").write_text("[profiles.evil]\nctx = 2048\nthreads = 2\n")
    try:
        out = run_coder("backend", "start", "--json", cwd=root, home=home)
        assert out.returncode == 0, out.stderr
        assert str(llama_server_binary) in out.stdout and '"url": "http://127.0.0.1:' in out.stdout
        assert not marker.exists()
    finally:
        run_coder("backend", "stop", "evil", cwd=root, home=home)
