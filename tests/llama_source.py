"""The pinned llama.cpp source files that coder's patches touch, unpacked for anchor tests."""

from __future__ import annotations

import tarfile
from collections.abc import Iterable
from pathlib import Path


def unpack_pristine(root: Path, paths: Iterable[str]) -> Path:
    """Unpack ``paths`` (relative to ``llama.cpp/``) from the pinned sdist into ``root``; no patch applied."""
    from coder.backends.toolchain.install import SDIST
    from coder.pypi import fetch

    wanted = set(paths)
    with tarfile.open(fetch(SDIST)) as tar:
        for member in tar.getmembers():
            rel = member.name.split("/llama.cpp/", 1)[-1]
            if rel in wanted and member.isfile():
                data = tar.extractfile(member)
                assert data is not None
                (root / rel).parent.mkdir(parents=True, exist_ok=True)
                (root / rel).write_bytes(data.read())
    assert {str(p.relative_to(root)) for p in root.rglob("*") if p.is_file()} == wanted
    return root
