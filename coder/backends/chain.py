"""Chains of speculators (``--spec-type a,b``): which types copy text already in the request
(coder's ``prediction``, the n-gram types) and which are model drafters, and the deepest draft a
chain can make. Used by the llama.cpp adapter (launch flags) and the k policy (per-request cap).

A copy drafter chained with a model drafter launches at ``COPY_K_MAX``: the per-request cap then
chooses the depth, and the model drafter's own launch limit keeps it at its block.
"""

from __future__ import annotations

COPY_TYPES = ("prediction", "ngram-simple", "ngram-map-k", "ngram-map-k4v", "ngram-mod", "ngram-cache")
MODEL_TYPES = ("draft-simple", "draft-eagle3", "draft-mtp", "draft-dflash", "draft-dspark")
COPY_K_MAX = 64  # launch depth of copy drafters chained with a model drafter


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
