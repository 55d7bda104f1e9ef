"""The speculator names coder knows, per engine: plain data, shared by the config schema and the adapters.

A leaf module (no coder imports), so the config can validate ``spec_type`` without importing the
engine adapters, which themselves import the config.
"""

from __future__ import annotations

# llama.cpp build 11434 ``--spec-type`` values: n-gram drafters first, model drafters after
LLAMACPP_NGRAM_TYPES = ("ngram-simple", "ngram-map-k", "ngram-map-k4v", "ngram-mod", "ngram-cache")
LLAMACPP_DRAFT_TYPES = ("draft-simple", "draft-eagle3", "draft-mtp", "draft-dflash", "draft-dspark")
# coder's own build only (coder.backends.prediction_patch): drafts from the request's ``prediction``
LLAMACPP_PATCHED_TYPES = ("prediction",)
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
