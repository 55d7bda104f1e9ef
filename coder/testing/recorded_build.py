"""A **test double** of the llama-server build and smoke steps that answers with recorded outcomes.

The configuration chain exists for CPUs that CI does not have: an Intel VM that lists AMX, grants
``ARCH_REQ_XCOMP_PERM(XTILEDATA)``, and still dies by SIGILL at the first ``tilezero`` in ggml's
AMX kernel. :class:`RecordedBuildDouble` stands in for exactly two steps of
:mod:`coder.backends.toolchain.install`: ``_compile`` (cmake; it compiles nothing and leaves a
placeholder where the binary would be) and ``smoke_test`` (it returns the outcome recorded for that
configuration on the real machine). The chain, build keys, the atomic install, the refusal records
and the pointer the runtime reads all stay real.
"""

from __future__ import annotations

import dataclasses
import signal
from collections.abc import Mapping
from pathlib import Path

from coder.backends.cpu_features import CpuConfig
from coder.backends.toolchain import cache as build_cache
from coder.backends.toolchain.smoke import SmokeResult

# as the VM of the report printed it, and as gdb showed the faulting frame of both binaries there
AMX_KERNEL = "tinygemm_kernel_amx<block_q8_1, block_q4_1, float, 1, 4, true>"
SIGILL_AT_LOAD = SmokeResult(
    False, "llama-server crashed with SIGILL (illegal instruction) while loading the model: this build uses CPU "
    "instructions this machine cannot run; run: coder backend install llama.cpp --portable",
    stage="load", signal=signal.SIGILL, seconds=2.1)
PASSED = SmokeResult(True, "loaded the demo model, generated 8 tokens, /slots answered", stage="done", seconds=3.4,
                     tokens=8)


class RecordedBuildDouble:
    """Stands in for ``install._compile`` and ``install.smoke_test``; records what was built and tested.

    ``outcomes`` maps a configuration's name (``native``, ``portable, AMX on``, …) to its recorded
    smoke outcome; ``interrupt`` names a configuration whose build (``"<name>"``) or smoke test
    (``"<name>: smoke"``) is interrupted by KeyboardInterrupt, as Ctrl-C would.
    """

    def __init__(self, outcomes: Mapping[str, SmokeResult], interrupt: str = "") -> None:
        self.outcomes = dict(outcomes)
        self.interrupt = interrupt
        self.built: list[str] = []
        self.smoked: list[str] = []
        self.cmake: dict[str, tuple[str, ...]] = {}

    def compile(self, variant: str, config: CpuConfig, key: str, report: object) -> Path:
        """The build step: a real (fresh, marked incomplete) build tree holding a placeholder binary."""
        build = build_cache.fresh_build_dir(key)
        self.built.append(config.name)
        self.cmake[config.name] = config.cmake
        if self.interrupt == config.name:
            raise KeyboardInterrupt
        binary = build / "bin" / "llama-server"
        binary.parent.mkdir(parents=True, exist_ok=True)
        binary.write_text(f"#!/bin/sh\n# placeholder for the {config.name} build (test double)\nexit 0\n")
        binary.chmod(0o755)
        return build

    def smoke_test(self, binary: Path, model: Path, *, gpu_layers: int = 0, timeout: float = 180.0,
                   log_dir: Path | None = None) -> SmokeResult:
        """The smoke step: the outcome recorded for the configuration built last."""
        name = self.built[-1]
        self.smoked.append(name)
        if self.interrupt == f"{name}: smoke":
            raise KeyboardInterrupt
        return dataclasses.replace(self.outcomes[name])
