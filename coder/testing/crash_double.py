"""A **test double** of a llama-server build that dies by SIGILL inside a kernel, in a worker thread.

:func:`build_sigill_server` compiles a tiny C program (with the system C compiler) that answers
``--version`` like llama-server and otherwise dies at ``ud2`` (SIGILL) in a function named like
ggml's AMX kernel, on a worker thread, as the AMX builds do at warm-up. It lets a test prove the
smoke test names the function from a real core file on a CPU that has no AMX.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

FUNCTION = "tinygemm_kernel_amx_double"

_SOURCE = r"""
#include <pthread.h>
#include <stdio.h>
#include <string.h>

__attribute__((noinline)) void tinygemm_kernel_amx_double(void) { __builtin_trap(); }
static void * worker(void * arg) { (void) arg; tinygemm_kernel_amx_double(); return NULL; }

int main(int argc, char ** argv) {
    if (argc > 1 && strcmp(argv[1], "--version") == 0) { puts("version: 0 (test double)"); return 0; }
    pthread_t thread;
    pthread_create(&thread, NULL, worker, NULL);
    pthread_join(thread, NULL);
    return 0;
}
"""


def build_sigill_server(dest: Path) -> Path | None:
    """Compile the double into ``dest`` (a file path); None when no C compiler is installed."""
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        return None
    source = dest.with_suffix(".c")
    source.write_text(_SOURCE)
    subprocess.run([compiler, "-O1", "-g", "-pthread", "-o", str(dest), str(source)], check=True,
                   capture_output=True, timeout=120)
    return dest
