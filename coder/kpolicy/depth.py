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

from coder.spec_vocab import COPY_K_MAX, COPY_TYPES, MODEL_TYPES, is_copy_chain, launch_depth, types_of

__all__ = ["COPY_DEPTH", "COPY_K_MAX", "COPY_TYPES", "MODEL_TYPES", "copy_depth", "is_copy_chain",
           "launch_depth", "types_of"]

# per-request cap for the copy drafter of a chain, by device and request class; fresh prose has
# nothing to copy, so it runs at the model drafter's block (None: the launch k)
COPY_DEPTH: dict[str, dict[str, int | None]] = {
    "gpu": {"full": 64, "region": 32, "fresh": None},
    "cpu": {"full": 16, "region": 16, "fresh": None},
}


def copy_depth(request_class: str, on_gpu: bool, model_k: int | None, deepest: int) -> int:
    """The per-request cap for ``request_class`` on a copy chain, within ``deepest``."""
    depth = COPY_DEPTH["gpu" if on_gpu else "cpu"].get(request_class)
    if depth is None:
        depth = model_k or 1
    return max(1, min(depth, deepest))
