"""The llama-server builds coder has installed, read without the build machinery.

``coder backend install`` (:mod:`coder.backends.toolchain.install`) builds, smoke-tests and records a
binary, then points ``current-<variant>.json`` at it. Everything that only *runs* a build (the
llama.cpp adapter, bench scripts) reads that pointer here, so the runtime path never imports the
build code, and a build proven on another CPU is never picked (its recorded CPU configuration must
execute on this one).
"""

from __future__ import annotations

import json
import signal
from dataclasses import asdict, dataclass, field
from pathlib import Path

from coder.backends import cpu_features
from coder.hardware import gpu_compute_capability
from coder.paths import artifacts_dir

AMX_VERDICT = "AMX listed and permitted, but the build dies in an AMX kernel"


@dataclass
class InstalledBuild:
    """What ``build.json`` records beside an installed llama-server."""

    binary: str
    version: str
    build_number: int
    variant: str
    patches: list[str] = field(default_factory=list)
    cmake_args: list[str] = field(default_factory=list)
    build_seconds: float = 0.0
    key: str = ""
    patch_digest: str = ""
    cpu: dict[str, object] = field(default_factory=dict)
    smoke: dict[str, object] = field(default_factory=dict)
    attempts: list[dict[str, object]] = field(default_factory=list)
    # why a refused build (smoke test failed here) was refused; "" for a proven one
    verdict: str = ""

    @property
    def proven(self) -> bool:
        """True when the binary exists and passed its smoke test on the machine that built it."""
        return bool(self.smoke.get("ok")) and Path(self.binary).is_file()

    @property
    def refused(self) -> bool:
        """True when this configuration failed its smoke test here (install skips it without --force)."""
        return bool(self.smoke) and not self.smoke.get("ok")

    def cpu_summary(self) -> str:
        """``native`` or ``portable, AMX off (avx avx2 …)``: the CPU configuration this binary was built with."""
        mode = str(self.cpu.get("label") or self.cpu.get("mode", "unknown"))
        features = self.cpu.get("features")
        if isinstance(features, list) and features:
            return f"{mode} ({' '.join(str(f) for f in features)})"
        return mode

    def to_dict(self) -> dict[str, object]:
        """The record as written to ``build.json``."""
        return asdict(self)


def _signal_name(number: object) -> str:
    try:
        return signal.Signals(int(str(number))).name
    except ValueError:
        return f"signal {number}"


def verdict(cpu: dict[str, object], smoke: dict[str, object], passed_without_amx: bool = False) -> str:
    """Why the build configured as ``cpu`` was refused, from its recorded ``smoke`` outcome.

    ``passed_without_amx``: a build without AMX then passed on this machine, which makes a SIGILL of
    a build with AMX the AMX kernel's fault even where no backtrace names it.
    """
    if smoke.get("ok"):
        return "passed its smoke test"
    number = smoke.get("signal")
    function = str(smoke.get("function") or "")
    if cpu.get("amx_on") is True and ("amx" in function.lower()
                                   or (number == signal.SIGILL and passed_without_amx)):
        return AMX_VERDICT
    if number == signal.SIGILL:
        return "the build uses an instruction this CPU cannot run"
    if number is not None:
        return "the build crashed in its smoke test"
    return f"failed its smoke test ({smoke.get('stage') or 'unknown stage'}): {smoke.get('detail', '')}"


def describe_attempt(attempt: dict[str, object]) -> str:
    """One line for a refused configuration: what it was, how it died and where, and the verdict."""
    cpu = attempt.get("cpu")
    smoke = attempt.get("smoke")
    cpu = cpu if isinstance(cpu, dict) else {}
    smoke = smoke if isinstance(smoke, dict) else {}
    label = str(attempt.get("label") or cpu.get("label") or cpu.get("mode") or "unknown configuration")
    died = ""
    if smoke.get("signal") is not None:
        died = _signal_name(smoke["signal"])
        if function := str(smoke.get("function") or ""):
            died += f" in {function if len(function) <= 80 else function[:77] + '...'}"
        died += ": "
    why = str(attempt.get("verdict") or verdict(cpu, smoke))
    again = " (recorded earlier, not rebuilt)" if attempt.get("recorded") else ""
    return f"{label}: refused{again}: {died}{why}"


def install_root() -> Path:
    """All installed llama-server builds (one folder per build key)."""
    return artifacts_dir() / "llama.cpp"


def read_record(install_dir: Path) -> InstalledBuild | None:
    """The ``build.json`` of a build installed in ``install_dir`` (None: none there, or not one of coder's)."""
    try:
        return InstalledBuild(**json.loads((install_dir / "build.json").read_text()))
    except (OSError, ValueError, TypeError):
        return None


def pointer(variant: str) -> Path:
    """The file naming the build ``coder backend install`` last proved for ``variant``."""
    return install_root() / f"current-{variant}.json"


def current(variant: str, probe: cpu_features.CpuProbe | None = None) -> InstalledBuild | None:
    """The proven build installed for ``variant`` that can run on this CPU, or None."""
    try:
        key = json.loads(pointer(variant).read_text())["key"]
    except (OSError, ValueError, TypeError, KeyError):
        return None
    if not isinstance(key, str) or "/" in key or key.startswith("."):
        return None
    record = read_record(install_root() / key)
    if record is None or not record.proven:
        return None
    ok, _ = cpu_features.can_execute(record.cpu, probe or cpu_features.probe())
    return record if ok else None


def find_installed() -> InstalledBuild | None:
    """The best proven build: CUDA first when a GPU is present, else CPU."""
    cpu = cpu_features.probe()
    order = ["cuda", "cpu"] if gpu_compute_capability() else ["cpu", "cuda"]
    for variant in order:
        if build := current(variant, cpu):
            return build
    return None


def refusals(probe: cpu_features.CpuProbe | None = None) -> list[InstalledBuild]:
    """Records of builds whose smoke test failed on a CPU with this one's feature set (``coder doctor``)."""
    fingerprint = (probe or cpu_features.probe()).fingerprint()
    found = []
    for path in sorted(install_root().glob("*/build.json")):
        record = read_record(path.parent)
        if record is not None and record.refused and record.cpu.get("fingerprint") == fingerprint:
            found.append(record)
    return found


def refusal_attempt(record: InstalledBuild) -> dict[str, object]:
    """A refused record in the shape of build.json's ``attempts`` entries (for :func:`describe_attempt`)."""
    return {"label": record.cpu.get("label", record.cpu.get("mode")), "key": record.key, "cpu": record.cpu,
            "smoke": record.smoke, "verdict": record.verdict or verdict(record.cpu, record.smoke)}
