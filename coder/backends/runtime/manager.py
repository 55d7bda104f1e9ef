"""Supervise managed servers: launch, wait, verify, find again, restart, stop; adopt attached ones.

A managed server runs in its own process group (it outlives the CLI call that
started it); its :class:`ServerInfo` lives in ``state_dir()/servers/NAME.json``
and its random API key in a 0600 file beside it.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path

from coder.backends.engines.base import EngineAdapter
from coder.backends.engines.registry import adapter_for
from coder.backends.runtime import proc, statelock
from coder.backends.runtime.proc import start_time
from coder.backends.runtime.server import ServerInfo
from coder.config import Profile
from coder.config_schema import check_profile_name
from coder.errors import CoderError
from coder.fsutil import LogFollower
from coder.paths import ensure, log_dir, state_dir

# (phase, fraction 0..1, detail); called from whatever thread runs start()
StartProgress = Callable[[str, float, str], None]
ATTACHED = "attached"
_LOAD_MARKERS = (  # log line fragment -> (phase, fraction) while llama-server loads
    ("loading model", ("loading model", 0.1)),
    ("load_tensors", ("loading tensors", 0.3)),
    ("loading draft model", ("loading drafter", 0.55)),
    ("initializing slots", ("initializing slots", 0.8)),
    ("model loaded", ("model loaded", 0.95)),
    ("Application startup complete", ("startup complete", 0.95)),
)


def _servers() -> Path:
    return ensure(state_dir() / "servers")


def _state_path(name: str) -> Path:
    return _servers() / f"{name}.json"


def key_path(name: str) -> Path:
    """The 0600 file holding the API key of managed server ``name``."""
    return _servers() / f"{name}.key"


def free_port(host: str = "127.0.0.1") -> int:
    """A port the OS says is free on ``host`` right now."""
    with socket.socket() as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


def port_in_use(port: int, host: str = "127.0.0.1") -> bool:
    """True when something already listens on ``host:port``."""
    with socket.socket() as sock:
        try:
            sock.bind((host, port))
        except OSError:
            return True
    return False


def _write_key(name: str) -> tuple[str, Path]:
    import secrets  # deferred with the launch that needs it: coder edit and the TUI only find a server

    # hex: a urlsafe key starts with "-" one time in 64, and vLLM and SGLang take it as `--api-key KEY`,
    # where argparse reads "-..." as an option and the launch fails
    key = secrets.token_hex(24)
    path = key_path(name)
    path.unlink(missing_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as fh:
        fh.write(key)
    return key, path


def _save(info: ServerInfo) -> None:
    name = info.profile or ATTACHED
    statelock.write_state(_state_path(name), key_path(name), info)


def _lock(name: str) -> Path:
    return _servers() / f"{check_profile_name(name)}.lock"


def _alive(info: ServerInfo) -> bool:
    """Whether the managed server ``info`` records still runs: the engine's adapter decides."""
    return adapter_for(info.engine).owns_process(info)


def _load(name: str) -> ServerInfo | None:
    return statelock.read_state(_state_path(name), key_path(name))


def current(name: str | None = None) -> ServerInfo | None:
    """The live server recorded under ``name`` (None: any live one, attached last).

    A managed server whose own process died is forgotten, and the processes it left behind ended."""
    names = [name] if name else sorted(p.stem for p in _servers().glob("*.json"))
    if not name and ATTACHED in names:
        names.remove(ATTACHED)
        names.append(ATTACHED)
    for candidate in names:
        info = _load(candidate)
        if info is None:
            continue
        if info.managed and not _alive(info):
            # its launcher died: what it forked (an engine core, GPU workers) serves nothing now but may
            # still hold GPU memory, so it goes too
            if info.pid and proc.group_members(info.pid, info.pid_start):
                _kill_group(info.pid, 2.0, info.pid_start)
            _forget(candidate)
            continue
        return info
    return None


def _forget(name: str) -> None:
    _state_path(name).unlink(missing_ok=True)
    key_path(name).unlink(missing_ok=True)


RANDOM_PORT = "<free port>"


def dry_run_argv(profile: Profile) -> list[str]:
    """The argv ``start`` would run, without checking that files exist (key and free port as placeholders)."""
    argv = adapter_for(profile.engine).build_argv(profile, profile.port or 1, "<random>", dry_run=True,
                                                  key_file=str(key_path(profile.name)))
    if profile.port:
        return argv
    # start picks a free port when the profile names none: show that, not a port it would not use
    return [RANDOM_PORT if prev == "--port" and arg == "1" else arg
            for prev, arg in zip(["", *argv], argv, strict=False)]


def _phase(log_text: str) -> tuple[str, float]:
    best = ("starting", 0.02)
    for marker, phase in _LOAD_MARKERS:
        if marker in log_text and phase[1] > best[1]:
            best = phase
    return best


def _signal(leader: int, members: list[int], sig: signal.Signals) -> None:
    # the whole group at once (it also reaches a worker forked a moment ago), while one of ours is in it:
    # the kernel does not reuse a group id that is still in use, so the group is still ours
    if any(proc.process_group(pid) == leader for pid in members):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(leader, sig)
    for pid in members:  # by pid too: a descendant that left the group (setsid) gets it only this way
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, sig)


def _reap(pid: int) -> None:
    """Collect ``pid`` if this process launched it (a failed start), so it is not left a zombie."""
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)


def _collect(pid: int, seconds: float = 2.0) -> None:
    """Wait (briefly) for a child that is exiting to be collected, so no zombie keeps its pid alive."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            done, _ = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:  # not this process's child (another coder started it), or collected
            return
        if done == pid:
            return
        time.sleep(0.02)


def _wait_gone(leader: int, started: int | None, seconds: float, seen: dict[int, int | None]) -> list[int]:
    """Wait until every process of the session, and every one ``seen`` in it before, has exited."""
    deadline = time.monotonic() + seconds
    while True:
        _reap(leader)
        for pid in proc.group_members(leader, started):
            seen.setdefault(pid, proc.start_time(pid))
        # by identity: a descendant that left the session is no one's descendant once the leader is gone
        alive = [pid for pid, begun in seen.items() if proc.is_running(pid, begun)]
        if not alive or time.monotonic() > deadline:
            if not alive:
                _collect(leader)  # a zombie counts as gone above: collect it, if this process launched it
            return alive
        time.sleep(0.1)


def _kill_group(pid: int, grace: float = 10.0, started: int | None = None) -> list[int]:
    """End every process of the server's session: SIGTERM, up to ``grace`` seconds for all of them
    (vLLM's API server, engine core and per-GPU workers shut down in turn), then SIGKILL.

    Returns the pids still alive after that (none, unless the kernel could not end them)."""
    seen = {member: proc.start_time(member) for member in proc.group_members(pid, started)}
    _signal(pid, list(seen), signal.SIGTERM)
    if not (left := _wait_gone(pid, started, grace, seen)):
        return []
    _signal(pid, left, signal.SIGKILL)
    return _wait_gone(pid, started, 5.0, seen)


def start(profile: Profile, progress: StartProgress | None = None, *, verify: bool = True,
          timeout: float = 600.0, cancel: threading.Event | None = None) -> ServerInfo:
    """Launch ``profile``, wait until it serves, verify its speculator; idempotent if already running.

    Holds the profile's lock throughout: a concurrent start waits, then returns this server.
    Setting ``cancel`` while it waits kills the half-started server and raises CoderError.
    """
    if not profile.managed:
        return attach(profile.url or "", profile.api_key, name=profile.name)
    from coder import trust  # deferred: only a launch checks its exposure (coder edit finds a running server)

    trust.check_exposure(profile.host)
    report = progress or (lambda phase, frac, detail: None)
    with statelock.locked(_lock(profile.name), lambda msg: report(msg, 0.0, ""), timeout + 120):
        if (running := current(profile.name)) is not None:
            return running
        return _start_locked(profile, report, verify, timeout, cancel)


def _start_locked(profile: Profile, report: StartProgress, verify: bool, timeout: float,
                  cancel: threading.Event | None) -> ServerInfo:
    profile = profile.anchored(Path.cwd())  # the server runs elsewhere (see Popen's cwd)
    adapter = adapter_for(profile.engine)
    if profile.port and port_in_use(profile.port, profile.host):
        raise CoderError(f"port {profile.port} is already in use; pick another with --port")
    port = profile.port or free_port(profile.host)
    key, kfile = _write_key(profile.name)
    try:
        argv = adapter.build_argv(profile, port, key, key_file=str(kfile))
        k_max = adapter.k_max(profile)
    except BaseException:
        statelock.remove_owned(_state_path(profile.name), kfile, key=key, pid=None)  # no stale key
        raise
    log = ensure(log_dir()) / f"{profile.name}.log"
    if log.exists():
        log.replace(log.with_suffix(".log.1"))
    info = ServerInfo(
        url=f"http://{profile.host}:{port}", engine=profile.engine, api_key=key, profile=profile.name,
        managed=True, argv=argv, log_path=str(log), model=profile.model, drafter=profile.drafter,
        spec_type=_argv_value(argv, "--spec-type") or profile.spec_type, k_max=k_max,
        k=(min(profile.k or 0, k_max) if k_max else profile.k) if profile.spec_type != "none" else None,
        on_gpu=adapter.runs_on_gpu(profile),
    )
    report("launching", 0.01, " ".join(argv[:3]))
    with log.open("wb") as out:
        try:
            # cwd: not the repository (``python -m`` would import modules from it)
            server = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                      start_new_session=True, cwd=log.parent, env=_launch_env(profile))
        except OSError as exc:
            statelock.remove_owned(_state_path(profile.name), kfile, key=key, pid=None)
            raise CoderError(f"cannot launch {argv[0]}: {exc.strerror}") from None
    info.pid = server.pid
    info.pid_start = start_time(server.pid)
    _save(info)
    try:
        _wait_ready(server, info, adapter, report, timeout, cancel)
        with info.api(timeout=30) as api:
            adapter.describe(info, api)
        if verify and profile.spec_type not in (None, "none"):
            report("verifying speculator", 0.97, "")
            with info.api(timeout=120) as api:
                verdict = adapter.verify(info, api, Path(log).read_text(errors="replace"))
            info.verified, info.verdict = verdict.verified, verdict.summary
        elif profile.spec_type in (None, "none"):
            # no speculator is not a verified speculator: speeds from it are baselines, never spec speeds
            info.verified, info.verdict = False, "NOT VERIFIED: no speculator configured (spec_type none)"
        _save(info)
    except BaseException:
        _kill_group(server.pid, started=info.pid_start)
        statelock.remove_owned(_state_path(profile.name), kfile, key=key, pid=server.pid)
        raise
    report("ready", 1.0, info.url)
    return info


def _wait_ready(server: subprocess.Popen[bytes], info: ServerInfo, adapter: EngineAdapter,
                report: StartProgress, timeout: float, cancel: threading.Event | None) -> None:
    deadline = time.monotonic() + timeout
    seen = _PhaseWatch()
    follower = LogFollower(Path(info.log_path or ""), seen.feed, interval=0.2).start()
    stop = cancel or threading.Event()
    try:
        with info.api(timeout=5) as api:
            while not adapter.ready(api):
                if (code := server.poll()) is not None:
                    raise CoderError(_exit_message(info, code, seen.phase[0]))
                if time.monotonic() > deadline:
                    raise CoderError(f"{info.engine} did not become ready within {timeout:.0f}s "
                                     f"(log: {info.log_path})")
                report(*seen.phase, "")
                if stop.wait(0.25):
                    raise CoderError(f"start of {info.profile} cancelled; the half-started server was stopped")
    finally:
        follower.stop()


def _argv_value(argv: list[str], flag: str) -> str | None:
    """The value after ``flag`` in ``argv`` (the chain as launched, e.g. led by ``prediction``)."""
    return argv[argv.index(flag) + 1] if flag in argv[:-1] else None


def _exit_message(info: ServerInfo, code: int, phase: str) -> str:
    """One line for a server that died while starting: the signal, the load phase, what to do."""
    from coder.backends.runtime.crash import describe_exit

    doing = "loading the model" if phase in ("loading model", "loading tensors", "loading drafter") else phase
    program = Path(info.argv[0]).name if info.argv else info.engine
    if program in ("python", "python3") or program.startswith("python3."):
        program = info.engine
    return describe_exit(program, code, doing, info.log_tail(4))


class _PhaseWatch:
    """The furthest load phase seen in the log lines handed over by the follower."""

    def __init__(self) -> None:
        self.phase = ("starting", 0.02)

    def feed(self, lines: list[str]) -> None:
        found = _phase("\n".join(lines))
        if found[1] > self.phase[1]:
            self.phase = found


def _launch_env(profile: Profile) -> dict[str, str]:
    """The server's environment: coder's own, plus NVLink multicast off for a tensor-parallel launch
    wherever the user has not set those variables (:data:`MULTICAST_OFF`)."""
    env = dict(os.environ)
    if (profile.tensor_parallel_size or 1) > 1:
        # here, not at the top: preflight (checkpoint and log parsers) is not on `coder edit`'s path
        from coder.backends.engines.preflight import MULTICAST_OFF

        env = {**MULTICAST_OFF, **env}
    return env


def stop(name: str, grace: float = 10.0) -> bool:
    """Stop the managed server ``name`` and every process it forked: SIGTERM, then SIGKILL after
    ``grace``. Children left behind by a server that died (an engine core holding GPU memory) are
    ended too. False if none was recorded; CoderError, after forgetting it, if a process survives."""
    with statelock.locked(_lock(name)):
        info = _load(name)
        if info is None:
            return False
        left: list[int] = []
        if info.managed and info.pid and (_alive(info) or proc.group_members(info.pid, info.pid_start)):
            left = _kill_group(info.pid, grace, info.pid_start)
        _forget(name)
    if left:
        raise CoderError(f"{name}: {len(left)} process(es) outlived SIGKILL: pid {', '.join(map(str, left))}")
    return True


def restart(profile: Profile, k: int | None = None, cancel: threading.Event | None = None,
            progress: StartProgress | None = None) -> ServerInfo:
    """Relaunch ``profile`` (with launch depth ``k`` when given) and return the new server."""
    stop(profile.name)
    return start(profile.with_overrides(k=k) if k is not None else profile, progress, cancel=cancel)


def attach(url: str, api_key: str | None = None, name: str = ATTACHED) -> ServerInfo:
    """Adopt a server someone else started, detecting its engine from endpoints and metrics."""
    from coder.backends.engines.detect import detect_engine

    if not url.startswith(("http://", "https://")):
        raise CoderError(f"not an http(s) URL: {url}")
    engine = detect_engine(url, api_key)
    info = ServerInfo(url=url.rstrip("/"), engine=engine, api_key=api_key, profile=name, managed=False)
    with info.api() as api:
        adapter_for(engine).check_attached(info, api)
    with statelock.locked(_lock(name)):
        _save(info)
    return info
