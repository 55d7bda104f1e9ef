"""Fetch one pinned file from PyPI (PEP 691 JSON simple API), sha256-verified and cached."""

from __future__ import annotations

import hashlib
import json
import os
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from coder.errors import CoderError
from coder.paths import cache_dir, ensure

INDEX = os.environ.get("CODER_PYPI_SIMPLE", "https://pypi.org/simple")
Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class PinnedFile:
    """A distribution file identified by project, file name and digest (``size`` in bytes, 0 if unknown)."""

    project: str
    filename: str
    sha256: str
    size: int = 0


def sha256_of(path: Path) -> str:
    """SHA-256 of a file's bytes, hex."""
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _file_url(pin: PinnedFile) -> str:
    req = urllib.request.Request(
        f"{INDEX}/{pin.project}/", headers={"Accept": "application/vnd.pypi.simple.v1+json"}
    )
    try:
        with urllib.request.urlopen(req, timeout=60) as resp:
            index = json.load(resp)
    except OSError as exc:
        raise CoderError(f"cannot reach the package index for {pin.project}: {exc}") from exc
    for entry in index.get("files", []):
        if entry.get("filename") == pin.filename:
            return str(entry["url"])
    raise CoderError(f"{pin.filename} is not on the package index for {pin.project}")


def cached_path(pin: PinnedFile) -> Path:
    """Where :func:`fetch` keeps ``pin`` (the shared download cache)."""
    return ensure(cache_dir() / "downloads") / pin.filename


def fetch(pin: PinnedFile, progress: Progress | None = None) -> Path:
    """Return a local, verified copy of ``pin``, downloading it at most once."""
    target = cached_path(pin)
    if target.exists() and sha256_of(target) == pin.sha256:
        return target
    url = _file_url(pin)
    partial = target.with_suffix(target.suffix + ".part")
    digest = hashlib.sha256()
    try:
        with urllib.request.urlopen(url, timeout=120) as resp, partial.open("wb") as out:
            total = int(resp.headers.get("Content-Length") or 0)
            done = 0
            while block := resp.read(1 << 20):
                out.write(block)
                digest.update(block)
                done += len(block)
                if progress:
                    progress(done, total)
    except OSError as exc:
        partial.unlink(missing_ok=True)
        raise CoderError(f"download of {pin.filename} failed: {exc}") from exc
    if digest.hexdigest() != pin.sha256:
        partial.unlink(missing_ok=True)
        raise CoderError(f"{pin.filename}: sha256 mismatch (got {digest.hexdigest()[:16]}…)")
    partial.replace(target)
    return target
