"""Bytes, pipes, corrupt records and the small things a user notices: one line, no traceback."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from cli_helpers import error_lines, make_repo, run_coder

from coder.backends.runtime.server import ServerInfo
from coder.errors import CoderError


def _closed_pipe_run(*args: str, cwd: Path, home: Path) -> subprocess.CompletedProcess[bytes]:
    """``coder ARGS`` whose stdout is a pipe nobody reads any more (``| head -0``, deterministically)."""
    read, write = os.pipe()
    os.close(read)
    env = {k: v for k, v in os.environ.items() if k != "CODER_API_KEY"}
    env["CODER_HOME"] = str(home)
    try:
        return subprocess.run([sys.executable, "-m", "coder", *args], cwd=cwd, stdout=write, stderr=subprocess.PIPE,
                              env=env, timeout=120)
    finally:
        os.close(write)


@pytest.mark.parametrize("args", [("backend", "status"), ("backend", "status", "--json"), ("trust", "--list")])
def test_output_to_a_closed_pipe_ends_quietly(tmp_path: Path, args: tuple[str, ...]) -> None:
    proc = _closed_pipe_run(*args, cwd=tmp_path, home=tmp_path / "home")
    assert proc.returncode in (0, 141), proc.stderr
    assert b"Traceback" not in proc.stderr and b"BrokenPipe" not in proc.stderr, proc.stderr


def test_a_progress_reader_going_away_does_not_abort_the_work(tmp_path: Path) -> None:
    """``coder backend start 2>&1 | head -2``: the phase lines stop, the start goes on (and keeps its server)."""
    script = ("from coder.cli.progress import phase_bar\n"
              "with phase_bar('demo') as report:\n"
              "    for phase in ('launching', 'loading model', 'ready'):\n"
              "        report(phase, 0.5, '')\n"
              "open(__import__('sys').argv[1], 'w').write('finished')\n")
    read, write = os.pipe()
    os.close(read)  # stderr is a pipe whose reader has gone
    try:
        proc = subprocess.run([sys.executable, "-c", script, str(tmp_path / "done")], stderr=write, timeout=60,
                              cwd=tmp_path)
    finally:
        os.close(write)
    assert proc.returncode == 0  # rich raised SystemExit(1) here, which tore the starting server down
    assert (tmp_path / "done").read_text() == "finished"


def test_invalid_utf8_in_the_instruction_or_file_name_is_one_line(tmp_path: Path) -> None:
    root = tmp_path / "r"
    make_repo(root, {"app.py": "x = 1\n"})
    (root / "b\udcff.py").write_text("x = 1\n")
    cases = [(["edit", "app.py", "-m", "fix \udcff\udcfe it"], "the instruction is not valid UTF-8"),
             (["edit", "b\udcff.py", "-m", "x"], "is not valid UTF-8 (byte 0xff")]
    for argv, what in cases:
        proc = subprocess.run([os.fsencode(sys.executable), b"-m", b"coder", *map(os.fsencode, argv),
                               b"--attach", b"http://127.0.0.1:9"], cwd=root, capture_output=True, timeout=120,
                              env={**os.environ, "CODER_HOME": str(tmp_path / "home")})
        err = proc.stderr.decode()
        assert proc.returncode == 1 and "Traceback" not in err and what in err, err
    assert (root / "app.py").read_text() == "x = 1\n"


@pytest.mark.parametrize(("text", "why"), [
    ("[]", "expected a JSON object"),
    ('{"url": 5}', "url = 5"),
    ('{"engine": "llama.cpp"}', "no url"),
    ('{"url": "http://x", "pid": "12"}', "pid"),
    ('{"url": "http://x", "argv": [1, 2]}', "argv"),
])
def test_a_corrupt_state_record_is_refused_by_field(text: str, why: str) -> None:
    with pytest.raises(ValueError, match=why):
        ServerInfo.from_json(text)


def test_a_corrupt_state_file_is_no_backend_not_a_traceback(tmp_path: Path) -> None:
    home = tmp_path / "home"
    servers = home / "state" / "servers"
    servers.mkdir(parents=True)
    for name, text in (("demo", "[]"), ("other", '{"url": 5}')):
        (servers / f"{name}.json").write_text(text)
    proc = run_coder("backend", "status", cwd=tmp_path, home=home, timeout=120)
    assert not error_lines(proc) and proc.returncode == 1
    assert "no backend running" in proc.stdout
    notes = [line for line in proc.stderr.splitlines() if "not a server record coder can read" in line]
    assert len(notes) == 2 and "demo.json" in notes[0] + notes[1], proc.stderr


def test_dry_run_shows_the_port_start_would_use(tmp_path: Path) -> None:
    from coder.backends.runtime.manager import RANDOM_PORT, dry_run_argv
    from coder.config import builtin_profiles

    argv = dry_run_argv(builtin_profiles()["demo"])
    assert argv[argv.index("--port") + 1] == RANDOM_PORT and "8080" not in argv
    fixed = dry_run_argv(builtin_profiles()["demo"].with_overrides(port=8123))
    assert fixed[fixed.index("--port") + 1] == "8123"


def test_a_custom_binary_keeps_the_cpu_batch_flags(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from coder.backends.engines.llamacpp import LlamaCppAdapter
    from coder.config import builtin_profiles

    wrapper = tmp_path / "my-llama"  # a wrapper script: no build record, no build key in its path
    monkeypatch.setattr(shutil, "which", lambda tool, *a, **k: None)  # no GPU driver on this machine
    profile = builtin_profiles()["demo"].with_overrides(binary=str(wrapper))
    argv = LlamaCppAdapter().build_argv(profile, 1, "key", dry_run=True)
    assert argv[argv.index("-b") + 1] == argv[argv.index("-ub") + 1] == "128", argv


def test_status_json_says_redacted_like_every_other_place() -> None:
    from coder.cli import backend, trust
    from coder.redact import REDACTED

    assert REDACTED == "<redacted>"
    assert "<hidden>" not in Path(backend.__file__).read_text() + Path(trust.__file__).read_text()


@pytest.mark.parametrize(("toml", "message"), [
    ("k = 99999999999999999999", "profiles.demo.k: got an integer, expected less than or equal to 64"),
    ("k_by_class = {foo = 3}", "profiles.demo.k_by_class: unknown key foo: expected 'full', 'region' or"),
    ("k_by_class = {full = 1000}", "profiles.demo.k_by_class.full: got an integer, expected less than or equal to 64"),
])
def test_k_values_are_bounded_and_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, toml: str,
                                        message: str) -> None:
    from coder import config
    from coder.doctor import run_checks

    monkeypatch.setenv("CODER_HOME", str(tmp_path / "home"))
    config.user_config_path().parent.mkdir(parents=True)
    config.user_config_path().write_text(f"[profiles.demo]\n{toml}\n")
    with pytest.raises(CoderError, match=message.replace("(", r"\(").replace("{", r"\{")):
        config.load(None)
    checks = run_checks(None)
    assert any(c.ok is False and message in c.detail for c in checks), checks


def test_outside_paths_are_shown_resolved(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from coder.edit.apply.files import resolve_inside

    root = tmp_path / "repo"
    root.mkdir()
    (tmp_path / "outside.py").write_text("x\n")
    monkeypatch.chdir(root)
    with pytest.raises(CoderError) as err:
        resolve_inside(root, Path("../outside.py"))
    assert str(err.value).startswith(f"{tmp_path / 'outside.py'}: is outside the repository"), err.value


def test_git_messages_lose_gitpythons_quotes() -> None:
    from coder.edit.apply.gitops import _first_line

    assert _first_line("\n  stderr: 'fatal: bad config line 1 in file .git/config'") == \
        "fatal: bad config line 1 in file .git/config"
    assert _first_line("\n  stderr: 'fatal: Unable to create '/r/.git/index.lock': File exists.\n\nAnother git "
                       "process seems to be running'") == "fatal: Unable to create '/r/.git/index.lock': File exists."


def test_the_stats_line_says_n_a_not_none() -> None:
    from coder.cli.edit import _stats_line
    from coder.telemetry.stats import RequestStats

    class Proposal:  # only what the stats line reads
        stats, mode, request_class, k = RequestStats(), "full", "full", None

    line = _stats_line(Proposal())  # type: ignore[arg-type]
    assert "TTFT n/a," in line and "completion n/a" in line and "None" not in line and "n/as" not in line
