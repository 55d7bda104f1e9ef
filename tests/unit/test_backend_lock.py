"""One lock around backend start/stop and its state and key files, tested with real processes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from cli_helpers import run_coder

from coder.backends.runtime import http, manager, statelock
from coder.backends.runtime.server import ServerInfo
from coder.config import builtin_profiles
from coder.errors import CoderError


def _processes_with(fragment: str) -> list[int]:
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if fragment in cmdline and "llama-server" in cmdline:
            pids.append(int(entry.name))
    return pids


def _home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    (home / "config").mkdir(parents=True)
    (home / "config" / "config.toml").write_text("[profiles.demo]\nctx = 2048\nthreads = 1\n")
    return home


@pytest.mark.server
def test_two_concurrent_starts_record_one_server_and_stop_leaves_none(tmp_path: Path, llama_server_binary: Path,
                                                                      demo_model: Path) -> None:
    for trial in range(3):
        home = _home(tmp_path / f"t{trial}")
        servers = home / "state" / "servers"
        env = {**os.environ, "CODER_HOME": str(home)}
        procs = [subprocess.Popen([sys.executable, "-m", "coder", "backend", "start", "--json"], cwd=tmp_path,
                                  env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                 for _ in range(2)]
        outs = [p.communicate(timeout=300) for p in procs]
        try:
            assert [p.returncode for p in procs] == [0, 0], outs
            infos = [json.loads(out[out.index("{"):]) for out, _ in outs]
            urls = {i["url"] for i in infos}
            assert len(urls) == 1, urls  # both report the one server
            assert [i["verified"] for i in infos] == [True, True], infos  # the waiter saw it verified
            assert sorted(p.name for p in servers.glob("*.json")) == ["demo.json"]
            assert len(_processes_with(str(servers / "demo.key"))) == 1
            key = (servers / "demo.key").read_text()
            assert (servers / "demo.key").stat().st_mode & 0o777 == 0o600
            assert http.get(f"{urls.pop()}/slots", headers={"Authorization": f"Bearer {key}"}).status_code == 200
            assert "api_key" not in (servers / "demo.json").read_text() or \
                json.loads((servers / "demo.json").read_text())["api_key"] is None
        finally:
            stop = run_coder("backend", "stop", cwd=tmp_path, home=home)
        assert stop.returncode == 0, stop.stderr
        deadline = time.monotonic() + 15
        while _processes_with(str(servers / "demo.key")) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert _processes_with(str(servers / "demo.key")) == []
        assert not (servers / "demo.json").exists() and not (servers / "demo.key").exists()


@pytest.mark.server  # needs the built llama-server: the checks run after the binary is found
@pytest.mark.parametrize(("overrides", "message"), [
    ({"model": "/nonexistent/model.gguf"}, "target model not found"),
    ({"spec_type": "draft-simple", "drafter": None}, "needs a drafter model"),
])
def test_failed_start_leaves_no_key_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                         overrides: dict[str, object], message: str) -> None:
    monkeypatch.setenv("CODER_HOME", str(tmp_path / "home"))
    profile = builtin_profiles()["demo"].with_overrides(name="broken")
    profile = profile.with_overrides(**{k: v for k, v in overrides.items() if v is not None})
    with pytest.raises(CoderError, match=message):
        manager.start(profile)
    assert not manager.key_path("broken").exists()
    assert not (tmp_path / "home" / "state" / "servers" / "broken.json").exists()


@pytest.mark.server
def test_server_dying_at_load_leaves_no_key_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                 llama_server_binary: Path) -> None:
    monkeypatch.setenv("CODER_HOME", str(tmp_path / "home"))
    from test_gguf_info import write_gguf

    # a well-formed header with a chat template (coder's own checks pass) but no model in it: the server dies
    bogus = write_gguf(tmp_path / "bogus.gguf", "llama", {"tokenizer.chat_template": "{{ x }}"}, ["token_embd.weight"])
    profile = builtin_profiles()["demo"].with_overrides(name="dies", model=str(bogus), binary=str(llama_server_binary),
                                                        threads=1)
    with pytest.raises(CoderError, match="exited with status"):
        manager.start(profile)
    assert not manager.key_path("dies").exists() and manager.current("dies") is None


def test_cleanup_removes_only_its_own_files(tmp_path: Path) -> None:
    state, key = tmp_path / "p.json", tmp_path / "p.key"
    key.write_text("the-other-process-key")
    state.write_text(ServerInfo(url="http://127.0.0.1:1", pid=4242, managed=True).to_json())
    statelock.remove_owned(state, key, key="my-key", pid=1111)
    assert key.exists() and state.exists()
    statelock.remove_owned(state, key, key="the-other-process-key", pid=4242)
    assert not key.exists() and not state.exists()


def test_lock_makes_the_second_holder_wait(tmp_path: Path) -> None:
    lock = tmp_path / "x.lock"
    code = ("import sys, time; from pathlib import Path; from coder.backends.runtime import statelock\n"
            "with statelock.locked(Path(sys.argv[1])):\n    print('held', flush=True); time.sleep(1.5)\n")
    holder = subprocess.Popen([sys.executable, "-c", code, str(lock)], stdout=subprocess.PIPE, text=True)
    assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
    heard: list[str] = []
    t0 = time.monotonic()
    with statelock.locked(lock, heard.append):
        waited = time.monotonic() - t0
    holder.wait(10)
    assert waited > 0.5 and len(heard) == 1 and f"pid {holder.pid}" in heard[0]


@pytest.mark.server
def test_status_probes_a_dead_attached_server(tmp_path: Path, server_factory: object) -> None:
    info = server_factory()  # type: ignore[operator]
    home = tmp_path / "home"
    attach = run_coder("backend", "attach", info.url, cwd=tmp_path, home=home, env={"CODER_API_KEY": info.api_key})
    assert attach.returncode == 0, attach.stderr
    alive = run_coder("backend", "status", "attached", cwd=tmp_path, home=home)
    assert alive.returncode == 0 and "attached" in alive.stdout
    manager.stop(str(info.profile))
    dead = run_coder("backend", "status", "attached", "--json", cwd=tmp_path, home=home)
    assert dead.returncode == 1
    assert json.loads(dead.stdout) == {"running": False, "url": info.url,
                                       "reason": f"the attached server at {info.url} does not answer"}


def test_relative_paths_survive_the_launch_directory(tmp_path: Path) -> None:
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "t.gguf").write_bytes(b"GGUF")
    profile = builtin_profiles()["demo"].with_overrides(model="models/t.gguf", drafter="demo")
    anchored = profile.anchored(tmp_path)
    assert anchored.model == str(tmp_path / "models" / "t.gguf") and anchored.drafter == "demo"
    assert profile.with_overrides(model="Qwen/Qwen3-8B").anchored(tmp_path).model == "Qwen/Qwen3-8B"


def test_profile_names_cannot_leave_the_state_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CODER_HOME", str(tmp_path / "home"))
    with pytest.raises(CoderError, match="is not a profile name"):
        manager.stop("../../escape")
    assert not (tmp_path / "home" / "escape.lock").exists() and not list(tmp_path.rglob("escape*"))
