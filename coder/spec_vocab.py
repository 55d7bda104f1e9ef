"""The speculator vocabulary, one home: the names coder knows per engine, and chains of them.

Shared by the config schema, the engine adapters and the k policy.

A leaf module (no coder imports), so the config can validate ``spec_type`` without importing the
engine adapters, which themselves import the config.
"""

from __future__ import annotations

# llama.cpp build 11434 ``--spec-type`` values: n-gram drafters first, model drafters after
LLAMACPP_NGRAM_TYPES = ("ngram-simple", "ngram-map-k", "ngram-map-k4v", "ngram-mod", "ngram-cache")
LLAMACPP_DRAFT_TYPES = ("draft-simple", "draft-eagle3", "draft-mtp", "draft-dflash", "draft-dspark")
# coder's own build only (coder.backends.toolchain.prediction_patch): drafts from the request's ``prediction``
LLAMACPP_PATCHED_TYPES = ("prediction",)
# request fields of coder's patched llama-server (coder.backends.toolchain patches add them; the adapter
# and its probes send them): the per-request draft cap, the predicted output, per-speculator timings
LLAMACPP_CAP_FIELD = "speculative.n_max"
LLAMACPP_PREDICTION_FIELD = "prediction"
LLAMACPP_TIMINGS_BY_TYPE = "draft_by_type"
# profile spec_type -> vLLM/SGLang speculative method
SERVED_METHODS: dict[str, str] = {
    "dflash": "dflash", "dflash2": "dflash", "draft-dflash": "dflash",
    "mtp": "mtp", "draft-mtp": "mtp",
    "eagle3": "eagle3", "draft-eagle3": "eagle3",
    "dspark": "dspark", "draft-dspark": "dspark",
    "ngram": "ngram", "ngram-simple": "ngram", "ngram-mod": "ngram", "ngram-map-k": "ngram",
    "draft-simple": "draft_model", "draft_model": "draft_model",
}
SPEC_TYPES: dict[str, tuple[str, ...]] = {
    "llama.cpp": (*LLAMACPP_PATCHED_TYPES, *LLAMACPP_NGRAM_TYPES, *LLAMACPP_DRAFT_TYPES),
    "vllm": tuple(SERVED_METHODS),
    "sglang": tuple(SERVED_METHODS),
}


def known_spec_types(engine: str) -> tuple[str, ...]:
    """Spec type names coder knows for ``engine`` (``none`` included)."""
    return ("none", *SPEC_TYPES.get(engine, ()))

# Chains of speculators (``--spec-type a,b``): copy drafters (coder's ``prediction``, the n-gram
# types) draft text already in the request; model drafters run a model. A copy drafter chained with
# a model drafter launches at ``COPY_K_MAX``: the per-request cap then chooses the depth, and the
# model drafter's own launch limit keeps it at its block.

COPY_TYPES = (*LLAMACPP_PATCHED_TYPES, *LLAMACPP_NGRAM_TYPES)
MODEL_TYPES = LLAMACPP_DRAFT_TYPES
COPY_K_MAX = 64  # launch depth of copy drafters chained with a model drafter
ABSOLUTE_MAX_K = 64  # no speculator coder drives drafts deeper: the bound for any configured or chosen k


def types_of(spec_type: str | None) -> list[str]:
    """The chain's speculator types, in order (empty for no speculation)."""
    return [t for t in (spec_type or "").split(",") if t and t != "none"]


def is_copy_chain(spec_type: str | None) -> bool:
    """True for a chain of a copy drafter in front of a model drafter."""
    types = types_of(spec_type)
    return any(t in COPY_TYPES for t in types) and any(t in MODEL_TYPES for t in types)


def is_copy_led(spec_type: str | None) -> bool:
    """True when the chain's first speculator copies from the request (it drafts first when it can)."""
    types = types_of(spec_type)
    return bool(types) and types[0] in COPY_TYPES


def launch_depth(spec_type: str | None, k: int | None, gpu: bool = False) -> int | None:
    """The deepest draft a server launched with ``spec_type`` at ``k`` can make.

    A copy drafter chained with a model drafter launches deep everywhere (the model drafter's own
    limit keeps it at its block). A chain led by a copy drafter alone launches deep on a GPU only,
    where a 64-token verification costs little more than one (a per-request cap picks the depth);
    on a CPU every verified token costs compute, so it launches at ``k`` as before.
    """
    if k is None:
        return None
    deep = is_copy_chain(spec_type) or (gpu and is_copy_led(spec_type))
    return max(k, COPY_K_MAX) if deep else k
