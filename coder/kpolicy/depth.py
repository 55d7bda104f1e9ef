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

COPY_TYPES = ("prediction", "ngram-simple", "ngram-map-k", "ngram-map-k4v", "ngram-mod", "ngram-cache")
MODEL_TYPES = ("draft-simple", "draft-eagle3", "draft-mtp", "draft-dflash", "draft-dspark")
COPY_K_MAX = 64  # launch depth of copy drafters chained with a model drafter

# per-request cap for the copy drafter of a chain, by device and request class; fresh prose has
# nothing to copy, so it runs at the model drafter's block (None: the launch k)
COPY_DEPTH: dict[str, dict[str, int | None]] = {
    "gpu": {"full": 64, "region": 32, "fresh": None},
    "cpu": {"full": 16, "region": 16, "fresh": None},
}


def types_of(spec_type: str | None) -> list[str]:
    """The chain's speculator types, in order (empty for no speculation)."""
    return [t for t in (spec_type or "").split(",") if t and t != "none"]


def is_copy_chain(spec_type: str | None) -> bool:
    """True for a chain of a copy drafter in front of a model drafter."""
    types = types_of(spec_type)
    return any(t in COPY_TYPES for t in types) and any(t in MODEL_TYPES for t in types)


def launch_depth(spec_type: str | None, k: int | None) -> int | None:
    """The deepest draft a server launched with ``spec_type`` at ``k`` can make."""
    if k is None:
        return None
    return max(k, COPY_K_MAX) if is_copy_chain(spec_type) else k


def copy_depth(request_class: str, on_gpu: bool, model_k: int | None, deepest: int) -> int:
    """The per-request cap for ``request_class`` on a copy chain, within ``deepest``."""
    depth = COPY_DEPTH["gpu" if on_gpu else "cpu"].get(request_class)
    if depth is None:
        depth = model_k or 1
    return max(1, min(depth, deepest))
