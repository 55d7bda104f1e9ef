"""Name the function a crashed llama-server died in, from its log or from a core file.

ggml prints a backtrace when it aborts (through gdb when gdb is installed, else glibc's
``backtrace_symbols``), but not on SIGILL: there the kernel's core file is the evidence. The smoke
test runs the server with core dumps allowed in its own scratch directory; when the log names no
function and ``kernel.core_pattern`` left a core there, ``gdb --batch`` reads its backtrace and the
core is deleted (it can be hundreds of megabytes).
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

# the smoke test's server runs as `sh -c CORE_LIMIT_SH binary args...`: raise the soft core limit to
# the hard one, at most 8388608 blocks (4-8 GiB), then exec; where that fails the crash is still
# reported, only without a core
CORE_LIMIT_SH = ('h=$(ulimit -H -c); [ "$h" = unlimited ] && h=8388608; ulimit -S -c "$h" 2>/dev/null; '
                 'exec "$0" "$@"')

# `#0  0x00005555 in tinygemm_kernel_amx<...> (...) at f.cpp:12` / `#3  ggml_graph_compute (...)`
_GDB_FRAME = re.compile(r"^#\d+\s+(?:0x[0-9a-fA-F]+ in )?(.+?) \(")
# gdb's stop line: `0x00005555 in tinygemm_kernel_amx<...> (...) at ...`
_GDB_STOP = re.compile(r"^0x[0-9a-fA-F]+ in (.+?) \(")
# glibc backtrace_symbols_fd: `/path/llama-server(_ZN4ggml3cpu...+0x1a) [0x5555]`
_SYMBOLS = re.compile(r"\(([^()+\s]+)\+0x[0-9a-fA-F]+\)\s*\[0x")
# ggml's unwinder fallback: `3: 0x5555 ggml_graph_compute`
_UNWIND = re.compile(r"^\d+: 0x[0-9a-fA-F]+ (\S+)")
# frames of the crash machinery itself, never the place a build died
_MACHINERY = ("raise", "abort", "pthread_kill", "__pthread_kill", "__GI_", "ggml_abort", "ggml_print_backtrace",
              "__restore_rt", "<signal handler called>", "__libc_start", "_start", "clone", "start_thread",
              "__cxa_", "std::terminate", "__gnu_cxx::__verbose_terminate_handler", "??", "wait4", "waitpid",
              "__waitpid", "__GI___wait4")


def _demangle(name: str) -> str:
    if not name.startswith("_Z") or not (tool := shutil.which("c++filt")):
        return name
    try:
        out = subprocess.run([tool, name], capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return name
    return out or name


def _is_machinery(name: str) -> bool:
    return any(name == m or name.startswith(m) for m in _MACHINERY)


def crash_function(lines: list[str]) -> str:
    """The innermost function of the first backtrace in ``lines`` that is not crash machinery ("" if none)."""
    for raw in lines:
        line = raw.strip()
        match = _GDB_FRAME.match(line) or _GDB_STOP.match(line) or _SYMBOLS.search(line) or _UNWIND.match(line)
        if match is None:
            continue
        name = _demangle(match.group(1).strip())
        if name and not _is_machinery(name):
            return name
    return ""


def function_from_core(binary: Path, work: Path, timeout: float = 120.0) -> str:
    """The crash function recorded in a core file under ``work`` (then deleted); "" without one or gdb."""
    cores = sorted(p for p in work.glob("core*") if p.is_file())
    if not cores:
        return ""
    try:
        gdb = shutil.which("gdb")
        if gdb is None:
            return ""
        try:
            proc = subprocess.run([gdb, "--batch", "-nx", "-ex", "bt", str(binary), str(cores[0])],
                                  capture_output=True, text=True, timeout=timeout)
        except (OSError, subprocess.SubprocessError):
            return ""
        return crash_function(proc.stdout.splitlines())
    finally:
        for core in cores:
            core.unlink(missing_ok=True)
