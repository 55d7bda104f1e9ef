"""Which x86 instruction-set extensions this CPU lists, and which of them actually execute here.

A CPU can *list* a feature that its process may not use: a virtual machine that advertises
``amx_tile`` but never grants AMX tile state kills a native ``-march=native`` build with SIGILL
at the first ``tilezero``. Linux requires a process to ask for AMX permission
(``arch_prctl(ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA)``); a refusal means AMX is unusable
whatever cpuid says. The other extensions coder builds for are usable once the kernel lists
them in ``/proc/cpuinfo``, because the kernel hides AVX/AVX-512 flags whose register state it
does not enable in XCR0.

A granted AMX permission is necessary but not sufficient: on some VMs that grant it, ggml's AMX
kernels still die by SIGILL at their first ``tilezero``. Only running a build proves AMX works,
so :func:`chain` leaves AMX out unless asked for, or unless a build with it already passed here.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import hashlib
import platform
from dataclasses import dataclass, field
from pathlib import Path

# ggml CMake option -> the /proc/cpuinfo flag that must be present for it
GGML_X86_OPTIONS: tuple[tuple[str, str], ...] = (
    ("GGML_SSE42", "sse4_2"),
    ("GGML_AVX", "avx"),
    ("GGML_AVX2", "avx2"),
    ("GGML_FMA", "fma"),
    ("GGML_F16C", "f16c"),
    ("GGML_BMI2", "bmi2"),
    ("GGML_AVX_VNNI", "avx_vnni"),
    ("GGML_AVX512", "avx512f"),
    ("GGML_AVX512_VBMI", "avx512vbmi"),
    ("GGML_AVX512_VNNI", "avx512_vnni"),
    ("GGML_AVX512_BF16", "avx512_bf16"),
    ("GGML_AMX_TILE", "amx_tile"),
    ("GGML_AMX_INT8", "amx_int8"),
    ("GGML_AMX_BF16", "amx_bf16"),
)
AMX_FLAGS = frozenset({"amx_tile", "amx_int8", "amx_bf16"})
# what the last-resort configuration leaves out: every ggml option that needs AVX-512 (AMX does too)
AVX512_FLAGS = frozenset({"avx512f", "avx512vbmi", "avx512_vnni", "avx512_bf16"}) | AMX_FLAGS

_SYS_ARCH_PRCTL = 158  # x86-64 syscall number
_ARCH_GET_XCOMP_SUPP = 0x1021
_ARCH_REQ_XCOMP_PERM = 0x1023
_XFEATURE_XTILEDATA = 18


@dataclass(frozen=True)
class CpuProbe:
    """What the CPU lists and what this process may execute."""

    machine: str
    model: str
    listed: frozenset[str]
    amx_usable: bool
    amx_detail: str

    @property
    def executable(self) -> frozenset[str]:
        """Listed flags minus the ones the kernel will not let this process use."""
        return self.listed if self.amx_usable else self.listed - AMX_FLAGS

    @property
    def unusable(self) -> frozenset[str]:
        """Flags the CPU lists but this process cannot execute (a native build would use them)."""
        return self.listed - self.executable

    def fingerprint(self) -> str:
        """A short stable hash of the executable feature set (native builds are keyed by it)."""
        text = ",".join(sorted(self.executable & {flag for _, flag in GGML_X86_OPTIONS}))
        return hashlib.sha256(f"{self.machine}:{text}".encode()).hexdigest()[:12]


@dataclass(frozen=True)
class CpuConfig:
    """How a CPU build is configured: ``native`` (-march=native) or ``portable`` (explicit features)."""

    mode: str
    features: tuple[str, ...] = ()
    reason: str = ""
    cmake: tuple[str, ...] = field(default=())
    # a short name for progress lines, build.json and doctor ("portable, AMX off"); not part of any key
    label: str = ""
    # whether the build runs ggml's AMX kernels (native on a CPU whose AMX executes, or AMX options on)
    amx: bool = False

    @property
    def name(self) -> str:
        """The configuration's short name (its label, else its mode)."""
        return self.label or self.mode

    def describe(self) -> str:
        """One line for build.json consumers and ``coder doctor``."""
        if self.mode == "native":
            return "native (-march=native)"
        return "portable: " + (" ".join(self.features) or "baseline x86-64")


def read_flags(cpuinfo: Path = Path("/proc/cpuinfo")) -> tuple[str, frozenset[str]]:
    """(model name, flags) of the first CPU in ``cpuinfo``; empty when it cannot be read."""
    try:
        text = cpuinfo.read_text(errors="replace")
    except OSError:
        return "", frozenset()
    model, flags = "", frozenset[str]()
    for line in text.splitlines():
        key, _, value = line.partition(":")
        key = key.strip()
        if key == "model name" and not model:
            model = value.strip()
        elif key == "flags" and not flags:
            flags = frozenset(value.split())
    return model, flags


def probe_amx() -> tuple[bool, str]:
    """Ask the kernel whether this process may use AMX tile data; (usable, why)."""
    if platform.machine() not in ("x86_64", "AMD64"):
        return False, "not x86-64"
    libc_name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(libc_name or "libc.so.6", use_errno=True)
    except OSError as exc:
        return False, f"libc not loadable: {exc}"
    supported = ctypes.c_uint64(0)
    if libc.syscall(_SYS_ARCH_PRCTL, _ARCH_GET_XCOMP_SUPP, ctypes.byref(supported)) != 0:
        return False, f"ARCH_GET_XCOMP_SUPP failed (errno {ctypes.get_errno()})"
    if not supported.value & (1 << _XFEATURE_XTILEDATA):
        return False, "the kernel does not offer AMX tile state (XTILEDATA not in the supported xfeatures)"
    if libc.syscall(_SYS_ARCH_PRCTL, _ARCH_REQ_XCOMP_PERM, _XFEATURE_XTILEDATA) != 0:
        return False, f"ARCH_REQ_XCOMP_PERM(XTILEDATA) refused (errno {ctypes.get_errno()})"
    return True, "ARCH_REQ_XCOMP_PERM(XTILEDATA) granted"


def probe(cpuinfo: Path = Path("/proc/cpuinfo"), permission: tuple[bool, str] | None = None) -> CpuProbe:
    """Probe the running CPU (AMX only when listed: the syscall costs nothing, but says nothing otherwise).

    ``permission`` replaces the AMX syscall's answer with a recorded one (another machine's cpuinfo).
    """
    model, flags = read_flags(cpuinfo)
    if flags & AMX_FLAGS:
        usable, detail = permission or probe_amx()
    else:
        usable, detail = False, "not listed"
    return CpuProbe(machine=platform.machine(), model=model, listed=flags, amx_usable=usable, amx_detail=detail)


def native_config(cpu: CpuProbe, reason: str = "default") -> CpuConfig:
    """The default build: the compiler targets everything the CPU lists."""
    return CpuConfig(mode="native", reason=reason, cmake=("-DGGML_NATIVE=ON",), label="native",
                     amx=bool(cpu.executable & AMX_FLAGS))


def portable_config(cpu: CpuProbe, reason: str, without: frozenset[str] = frozenset(),
                    label: str = "portable") -> CpuConfig:
    """Native off, and each ggml x86 option on exactly when its feature executes here (minus ``without``)."""
    if cpu.machine not in ("x86_64", "AMD64"):
        # other architectures: let ggml pick its generic baseline
        return CpuConfig(mode="portable", reason=reason, cmake=("-DGGML_NATIVE=OFF",), label=label)
    usable = cpu.executable - without
    cmake = ["-DGGML_NATIVE=OFF"]
    features: list[str] = []
    for option, flag in GGML_X86_OPTIONS:
        on = flag in usable
        cmake.append(f"-D{option}={'ON' if on else 'OFF'}")
        if on:
            features.append(flag)
    return CpuConfig(mode="portable", features=tuple(features), reason=reason, cmake=tuple(cmake), label=label,
                     amx=bool(usable & AMX_FLAGS))


@dataclass(frozen=True)
class Candidate:
    """One step of the configuration chain: built when ``build``, else only reused when proven here."""

    config: CpuConfig
    build: bool = True


def chain(cpu: CpuProbe, *, portable: bool = False, amx: bool = False) -> list[Candidate]:
    """The CPU configurations an install tries, in order; the first that passes its smoke test wins.

    * CPU lists AMX: portable with AMX off first (one build where AMX is listed but dies). A build
      with AMX is built only when asked (``amx``) and permitted, and is reused when one passed here.
    * otherwise: native (unless ``portable``), then portable with every feature that executes here.
    * last resort everywhere: portable without AVX-512 (and so without AMX).
    Configurations with the same cmake arguments appear once.
    """
    steps: list[Candidate] = []
    # (other architectures list no x86 flags: native, then ggml's generic baseline, which the last resort repeats)
    listed_amx = sorted(cpu.listed & AMX_FLAGS)
    if listed_amx:
        if cpu.amx_usable:
            if not portable:
                # an earlier coder built native here; reuse it only where it passed
                steps.append(Candidate(native_config(cpu, "a native build passed its smoke test here"), build=False))
            why = f"asked for --amx ({cpu.amx_detail})" if amx else "a build with AMX passed its smoke test here"
            if amx or not portable:  # --portable alone (the advice after a crash) means AMX off
                steps.append(Candidate(portable_config(cpu, why, label="portable, AMX on"), build=amx))
            off_why = ("the AMX build failed its smoke test" if amx else
                       f"CPU lists {' '.join(listed_amx)}: AMX stays off unless asked (--amx), because a granted "
                       "permission does not prove that ggml's AMX kernels run here")
        else:
            off_why = f"CPU lists {' '.join(listed_amx)} but this process cannot execute it ({cpu.amx_detail})"
            if amx:
                off_why += "; --amx needs that permission"
        if portable:
            off_why = "asked for --portable; " + off_why
        steps.append(Candidate(portable_config(cpu, off_why, without=AMX_FLAGS, label="portable, AMX off")))
    else:
        if not portable:
            steps.append(Candidate(native_config(cpu)))
        steps.append(Candidate(portable_config(cpu, "asked for --portable" if portable else
                                               "native build failed its smoke test")))
    steps.append(Candidate(portable_config(cpu, "last resort: the configurations before it failed their smoke tests",
                                           without=AVX512_FLAGS, label="portable, no AVX-512")))
    unique: list[Candidate] = []
    for step in steps:
        if all(step.config.cmake != seen.config.cmake for seen in unique):
            unique.append(step)
    return unique


def first_choice(cpu: CpuProbe, portable: bool = False, amx: bool = False) -> CpuConfig:
    """The first configuration :func:`chain` builds on ``cpu`` when nothing is recorded yet."""
    return next(step.config for step in chain(cpu, portable=portable, amx=amx) if step.build)


def can_execute(config: dict[str, object], cpu: CpuProbe) -> tuple[bool, str]:
    """Whether a recorded build configuration (build.json ``cpu``) can run on ``cpu``; (ok, why)."""
    mode = config.get("mode")
    if mode == "portable":
        raw = config.get("features")
        needed = set(raw) if isinstance(raw, list) else set()
        missing = sorted(needed - cpu.executable)
        return (not missing, "all features execute here" if not missing else "needs " + " ".join(missing))
    if mode == "native":
        built_for = config.get("fingerprint")
        if built_for == cpu.fingerprint():
            return True, "native build for this CPU's feature set"
        return False, "native build for another CPU's feature set: rebuild or use --portable"
    return False, "unknown CPU configuration"
