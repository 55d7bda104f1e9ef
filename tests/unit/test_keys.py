"""API keys are never written or shown: bench JSON, logs, state and status stay clean."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from cli_helpers import run_coder

from coder.backends.runtime import statelock
from coder.backends.runtime.server import ServerInfo
from coder.redact import REDACTED, redact_argv, scrub


def _grep(key: str, *dirs: Path) -> list[str]:
    """Files under ``dirs`` containing ``key`` (real grep), excluding the 0600 key files themselves."""
    existing = [str(d) for d in dirs if d.exists()]
    out = subprocess.run(["grep", "-r", "-l", "-F", "--exclude=*.key", "-e", key, *existing],
                         capture_output=True, text=True)
    assert out.returncode in (0, 1), out.stderr
    return out.stdout.split()


@pytest.mark.server
def test_bench_with_api_key_leaves_no_trace(tmp_path: Path, demo_server: object, coder_home: Path) -> None:
    url, key = demo_server.url, demo_server.api_key  # type: ignore[attr-defined]
    prompts = tmp_path / "p.jsonl"
    prompts.write_text('{"name": "one", "prompt": "Count from one to five."}\n')
    home, out_dir = tmp_path / "home", tmp_path / "bench-out"
    proc = run_coder("bench", str(prompts), "--attach", url, "--api-key", key, "--out", str(out_dir),
                     "--no-plots", "--no-prefill", "--reps", "1", "--max-tokens", "16", cwd=tmp_path, home=home)
    assert proc.returncode == 0, proc.stderr
    assert "--api-key is visible to other users in `ps`" in proc.stderr
    results = list(out_dir.glob("bench-*.json"))
    assert len(results) == 1 and results[0].stat().st_mode & 0o777 == 0o600
    doc = json.loads(results[0].read_text())
    assert REDACTED in doc["argv"] and doc["results"]  # it really ran, and recorded its argv
    assert key not in proc.stdout and key not in proc.stderr
    # coder's data, log and state of this run, the bench output, and the server's own log
    assert _grep(key, home, out_dir, coder_home / "log", coder_home / "state", coder_home / "data") == []
    # the key files that must exist are private
    for kf in [*home.rglob("*.key"), *(coder_home / "state").rglob("*.key")]:
        assert kf.stat().st_mode & 0o777 == 0o600, kf


@pytest.mark.server
def test_key_from_env_or_file_and_status_hides_it(tmp_path: Path, demo_server: object) -> None:
    url, key = demo_server.url, demo_server.api_key  # type: ignore[attr-defined]
    home = tmp_path / "home"
    key_file = tmp_path / "key.txt"
    key_file.write_text(key + "\n")
    by_file = run_coder("backend", "attach", url, "--api-key-file", str(key_file), "--json", cwd=tmp_path, home=home)
    assert by_file.returncode == 0, by_file.stderr
    assert "visible to other users" not in by_file.stderr
    by_env = run_coder("backend", "attach", url, "--json", cwd=tmp_path, home=home, env={"CODER_API_KEY": key})
    assert by_env.returncode == 0, by_env.stderr
    assert json.loads(by_env.stdout)["api_key"] == "<redacted>"
    status = run_coder("backend", "status", "attached", "--json", cwd=tmp_path, home=home)
    assert status.returncode == 0 and key not in status.stdout
    wrong = run_coder("backend", "attach", url, cwd=tmp_path, home=home, env={"CODER_API_KEY": "wrong-key"})
    assert wrong.returncode == 1 and "Traceback" not in wrong.stderr
    assert _grep(key, home) == []


def test_state_never_holds_the_key(tmp_path: Path) -> None:
    info = ServerInfo(url="http://127.0.0.1:9", engine="vllm", api_key="s3cret-key", managed=True, pid=1,
                      argv=["vllm", "serve", "m", "--api-key", "s3cret-key", "--port", "9"])
    state, key_file = tmp_path / "v.json", tmp_path / "v.key"
    statelock.write_state(state, key_file, info)
    assert "s3cret-key" not in state.read_text()
    assert key_file.read_text() == "s3cret-key" and key_file.stat().st_mode & 0o777 == 0o600
    back = statelock.read_state(state, key_file)
    assert back is not None and back.api_key == "s3cret-key" and back.argv[4] == REDACTED


def test_redaction_covers_every_form() -> None:
    argv = ["coder", "bench", "--api-key", "K1", "--api-key=K2", "--attach", "http://h", "--hf-token", "T"]
    assert redact_argv(argv) == ["coder", "bench", "--api-key", REDACTED, f"--api-key={REDACTED}", "--attach",
                                 "http://h", "--hf-token", REDACTED]
    assert scrub({"a": ["x KEY1234 y", {"KEY1234": 1}]}, ["KEY1234"]) == {"a": [f"x {REDACTED} y", {REDACTED: 1}]}


def test_backend_json_never_prints_the_key(capsys: pytest.CaptureFixture[str]) -> None:
    """``coder backend start/status --json`` prints the record: the argv's --api-key value is redacted too."""
    from coder.cli.backend import _print_info

    info = ServerInfo(url="http://127.0.0.1:9", engine="vllm", api_key="s3cret-key", managed=True, pid=1,
                      argv=["vllm", "serve", "m", "--api-key", "s3cret-key", "--port", "9"])
    _print_info(info, as_json=True)
    out = capsys.readouterr().out
    assert "s3cret-key" not in out and json.loads(out)["argv"][4] == REDACTED


def test_a_managed_servers_key_never_reads_as_an_option(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # vLLM and SGLang get `--api-key KEY`: a key "-1B6sa..." (token_urlsafe, one time in 64) failed a launch
    from coder.backends.runtime import manager

    monkeypatch.setattr(manager, "key_path", lambda name: tmp_path / f"{name}.key")
    keys = [manager._write_key(f"p{n}")[0] for n in range(200)]
    assert all(k[0].isalnum() and len(k) == 48 for k in keys)
