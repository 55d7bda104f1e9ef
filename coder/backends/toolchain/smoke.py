"""Prove a freshly built llama-server runs on this machine before anything records or uses it.

The check runs the binary for real: ``--version`` (wrong architecture, missing libraries), then a
throwaway server on the demo model (load, ``/health``, a short greedy generation, ``/slots``), bound
to 127.0.0.1 with a random key in a 0600 file. A death by signal is reported as such, so the
installer can tell "this build uses instructions this CPU cannot run" from other failures, and
names the function it died in where the log (ggml prints a backtrace on aborts) or a core file shows
it (:mod:`coder.backends.toolchain.crash_site`).
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import signal
import socket
import subprocess
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from coder.backends.runtime.crash import describe_exit, exit_signal
from coder.backends.runtime.http import Client, HTTPError
from coder.backends.toolchain.crash_site import CORE_LIMIT_SH, crash_function, function_from_core
from coder.jsontypes import as_count, as_object


@dataclass
class SmokeResult:
    """The outcome of one smoke test; recorded in build.json as ``smoke``."""

    ok: bool
    detail: str
    stage: str = ""
    signal: int | None = None
    seconds: float = 0.0
    tokens: int = 0
    # the function the binary died in, where its log or a core file shows it ("" when unknown)
    function: str = ""

    @property
    def crashed_by_signal(self) -> bool:
        """True when the binary died by a signal (SIGILL above all): worth a portable rebuild."""
        return self.signal is not None

    def to_dict(self) -> dict[str, object]:
        """The JSON form recorded in build.json."""
        return asdict(self)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def check_version(binary: Path, timeout: float = 60.0) -> SmokeResult | None:
    """Run ``binary --version``; a SmokeResult describing the failure, or None when it ran."""
    try:
        proc = subprocess.run([str(binary), "--version"], capture_output=True, text=True, timeout=timeout)
    except OSError as exc:
        why = ("wrong architecture or not an executable" if exc.errno == errno.ENOEXEC
               else exc.strerror or str(exc))
        return SmokeResult(False, f"cannot execute {binary}: {why}", stage="exec")
    except subprocess.TimeoutExpired:
        return SmokeResult(False, f"{binary} --version did not finish in {timeout:.0f}s", stage="exec")
    if proc.returncode != 0:
        tail = (proc.stderr or proc.stdout).splitlines()[-3:]
        return SmokeResult(False, describe_exit("llama-server", proc.returncode, "printing its version", tail),
                           stage="exec", signal=exit_signal(proc.returncode))
    return None


def smoke_test(binary: Path, model: Path, *, gpu_layers: int = 0, timeout: float = 180.0,
               log_dir: Path | None = None) -> SmokeResult:
    """Load ``model`` in a throwaway ``binary`` server, generate a few tokens, read ``/slots``."""
    started = time.monotonic()
    if (failed := check_version(binary)) is not None:
        return failed
    work = Path(tempfile.mkdtemp(prefix="coder-smoke-", dir=log_dir)).absolute()
    binary, model = binary.absolute(), model.absolute()  # the server runs in ``work``
    key = secrets.token_hex(24)  # as coder.backends.runtime.manager's: never "-..." on a command line
    key_file = work / "key"
    fd = os.open(key_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as fh:
        fh.write(key)
    port = _free_port()
    argv = [str(binary), "-m", str(model), "--host", "127.0.0.1", "--port", str(port),
            "--api-key-file", str(key_file), "-c", "512", "-np", "1", "-t", str(min(os.cpu_count() or 2, 4)),
            "-ngl", str(gpu_layers)]
    log = work / "smoke.log"
    with log.open("wb") as out:
        # run in ``work`` with core dumps allowed, so a crash leaves a core there to name its function
        proc = subprocess.Popen(["/bin/sh", "-c", CORE_LIMIT_SH, *argv], stdout=out, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, start_new_session=True, cwd=work)
    try:
        result = _exercise(proc, port, key, log, started + timeout)
    finally:
        _stop(proc)
        key_file.unlink(missing_ok=True)
    if result.signal is not None:
        result.function = crash_function(_tail(log, 200)) or function_from_core(binary, work)
    result.seconds = round(time.monotonic() - started, 1)
    if result.ok:
        log.unlink(missing_ok=True)
        with contextlib.suppress(OSError):
            work.rmdir()
    return result


def _tail(log: Path, n: int = 4) -> list[str]:
    try:
        return log.read_text(errors="replace").splitlines()[-n:]
    except OSError:
        return []


def _died(proc: subprocess.Popen[bytes], log: Path, doing: str, stage: str) -> SmokeResult | None:
    code = proc.poll()
    if code is None:
        return None
    return SmokeResult(False, describe_exit("llama-server", code, doing, _tail(log)), stage=stage,
                       signal=exit_signal(code))


def _exercise(proc: subprocess.Popen[bytes], port: int, key: str, log: Path, deadline: float) -> SmokeResult:
    base = f"http://127.0.0.1:{port}"
    headers = {"Authorization": f"Bearer {key}"}
    with Client(base, headers=headers, timeout=30.0) as http:
        while True:
            if (dead := _died(proc, log, "loading the model", "load")) is not None:
                return dead
            if time.monotonic() > deadline:
                return SmokeResult(False, f"llama-server did not become ready in time (log: {log})", stage="load")
            with contextlib.suppress(HTTPError):
                if http.get("/health").status_code == 200:
                    break
            time.sleep(0.2)
        try:
            reply = http.post("/completion", json={"prompt": "def add(a, b):", "n_predict": 8,
                                                   "temperature": 0, "cache_prompt": False}, timeout=120.0)
        except HTTPError as exc:
            dead = _died(proc, log, "generating", "generate")
            return dead or SmokeResult(False, f"generation request failed: {exc}", stage="generate")
        if reply.status_code != 200:
            return SmokeResult(False, f"generation answered HTTP {reply.status_code}", stage="generate")
        tokens = as_count(as_object(reply.json()).get("tokens_predicted"))
        if tokens <= 0:
            return SmokeResult(False, "the server generated no tokens", stage="generate")
        try:
            slots = http.get("/slots")
        except HTTPError as exc:
            return SmokeResult(False, f"/slots failed: {exc}", stage="slots")
        if slots.status_code != 200 or not isinstance(slots.json(), list):
            return SmokeResult(False, f"/slots answered HTTP {slots.status_code}", stage="slots")
    return SmokeResult(True, f"loaded the demo model, generated {tokens} tokens, /slots answered",
                       stage="done", tokens=tokens)


def _stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is not None:
        return
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
