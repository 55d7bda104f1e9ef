"""Draft depth per request class and per drafter, for chains of a copy drafter and a model drafter.

A copy drafter (coder's ``prediction``, the n-gram types) drafts text that is already in the
request: on a rewrite almost every drafted token is accepted, and on a GPU verifying 64 tokens
costs little more than verifying one, so its drafts go deep. On a CPU every verified token costs
compute, so they stay shallow. A model drafter (draft-simple, DFlash, MTP) stays at its block:
its launch ``--spec-draft-n-max``, which the per-request cap never raises.

In a chain both share one per-request cap (llama.cpp has one per step), so the cap is the copy
depth and the model drafter's own launch limit keeps it at its block.
"""

from __future__ import annotations

from collections.abc import Mapping

from coder.spec_vocab import (
    COPY_K_MAX,
    COPY_TYPES,
    MODEL_TYPES,
    is_copy_chain,
    is_copy_led,
    launch_depth,
    types_of,
)

__all__ = ["COPY_DEPTH", "COPY_K_MAX", "COPY_TYPES", "GPU_SPEEDUP", "MODEL_TYPES", "copy_depth", "deep_copy",
           "gpu_default_chain", "is_copy_chain", "is_copy_led", "launch_depth", "start_depths", "types_of"]

# per-request cap for the copy drafter of a chain, by device and request class; fresh prose has
# nothing to copy, so it runs at the model drafter's block (None: the launch k). The GPU depths are
# the copy benchmark's best (scripts/bench_copy.py on an H200, Qwen2.5-Coder-1.5B: cap 64 gave
# 1,493-1,797 tok/s on full rewrites against 912 at the block-8 ceiling)
COPY_DEPTH: dict[str, dict[str, int | None]] = {
    "gpu": {"full": 64, "region": 32, "fresh": None},
    "cpu": {"full": 16, "region": 16, "fresh": None},
}
# decode speed against no speculation on a GPU, measured side by side (scripts/bench_copy.py, H200,
# Qwen2.5-Coder-1.5B Q4_K_M target, 0.5B drafter for draft-simple); a model drafter below 1.0 never
# joins a GPU default chain
GPU_SPEEDUP: dict[str, float] = {"draft-simple": 0.73}


def deep_copy(spec_type: str | None, on_gpu: bool) -> bool:
    """Whether ``spec_type`` drafts copies deep: a copy drafter before a model drafter, or on a GPU
    any chain led by a copy drafter (see :func:`coder.spec_vocab.launch_depth`)."""
    return is_copy_chain(spec_type) or (on_gpu and is_copy_led(spec_type))


def start_depths(spec_type: str | None, on_gpu: bool) -> dict[str, int]:
    """Where the adaptive controller starts each copy class (empty: its usual deepest-first ladder).

    On a GPU a copy-led chain starts full and region rewrites at the benchmark's best depth, so the
    first request already drafts deep; a CPU keeps the usual ladder (shallow launch depths).
    """
    if not (on_gpu and is_copy_led(spec_type)):
        return {}
    return {cls: d for cls, d in COPY_DEPTH["gpu"].items() if d is not None}


def gpu_default_chain(copy: str, model_drafters: Mapping[str, float] | None = None) -> str:
    """The GPU default ``spec_type``: the copy chain, plus each model drafter measured faster than
    no speculation (``model_drafters`` maps a type to its speed-up; :data:`GPU_SPEEDUP` by default)."""
    speedups = GPU_SPEEDUP if model_drafters is None else model_drafters
    faster = [t for t, x in speedups.items() if t in MODEL_TYPES and x > 1.0]
    return ",".join([*types_of(copy), *faster])


def copy_depth(request_class: str, on_gpu: bool, model_k: int | None, deepest: int) -> int:
    """The per-request cap for ``request_class`` on a copy chain, within ``deepest``."""
    depth = COPY_DEPTH["gpu" if on_gpu else "cpu"].get(request_class)
    if depth is None:
        depth = model_k or 1
    return max(1, min(depth, deepest))
