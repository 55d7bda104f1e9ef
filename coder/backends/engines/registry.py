"""The engine registry: :func:`adapter_for` names the adapter of an engine.

The adapters are registered here and none of them imports this module, so nothing imports its
way back: whoever needs an adapter by name (the server manager, the backend handle's chat
client, the k policy, the bench, the doctor) imports this; the adapters import only
:mod:`coder.backends.engines.base` and their helpers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from coder.config import ENGINES
from coder.errors import CoderError

if TYPE_CHECKING:
    from coder.backends.engines.base import EngineAdapter


def adapter_for(engine: str) -> EngineAdapter:
    """The adapter for ``engine``; a one-line CoderError for an unknown name."""
    if engine not in ENGINES:
        raise CoderError(f"unknown engine {engine!r} ({', '.join(ENGINES)})")
    # imported on demand: each adapter pulls in its own helpers (vLLM's are not needed for llama.cpp)
    if engine == "vllm":
        from coder.backends.engines.vllm import VllmAdapter

        return VllmAdapter()
    if engine == "sglang":
        from coder.backends.engines.sglang import SglangAdapter

        return SglangAdapter()
    from coder.backends.engines.llamacpp import LlamaCppAdapter

    return LlamaCppAdapter()
