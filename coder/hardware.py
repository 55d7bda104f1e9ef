"""What this machine computes with: CPU model, GPUs (used in bench reports and k statistics keys)."""

from __future__ import annotations

import platform
import shutil
import subprocess
from pathlib import Path


def cpu_model() -> str:
    """The CPU's marketing name from /proc/cpuinfo, else what platform knows."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def gpus() -> list[str]:
    """One ``name, memory, driver`` line per NVIDIA GPU (empty without nvidia-smi)."""
    smi = shutil.which("nvidia-smi")
    if not smi:
        return []
    try:
        query = [smi, "--query-gpu=name,memory.total,driver_version", "--format=csv,noheader"]
        out = subprocess.run(query, capture_output=True, text=True, timeout=10).stdout
    except (OSError, subprocess.TimeoutExpired):
        return []
    return [line.strip() for line in out.splitlines() if line.strip()]


def gpu_compute_capability() -> str | None:
    """The local NVIDIA GPU's compute capability as CMake wants it ("90"), or None."""
    smi = shutil.which("nvidia-smi")
    if not smi:
        return None
    try:
        out = subprocess.run(
            [smi, "--query-gpu=compute_cap", "--format=csv,noheader"],
            capture_output=True, text=True, timeout=20, check=True,
        ).stdout.split()
    except (OSError, subprocess.SubprocessError):
        return None
    return out[0].replace(".", "") if out else None
