"""A greedy fast path in llama-server's sampler, applied as anchored source edits.

Build 11434 samples every verified position of a speculative step with the full sampler chain: it
fills a candidate array with the whole vocabulary (151,936 entries for Qwen2.5) and partially sorts
it, about 0.26 ms per position, or 16-17 ms of a 64-token step on an H200 host. For a greedy request
whose chain cannot change which token has the largest logit (no grammar or reasoning budget, no
penalties, DRY, logit bias or suppressed tokens, no typical-p or XTC, mirostat off, no
``n_probs``, no backend sampling, and ``top_k == 1`` or ``temperature <= 0``) the answer is the
argmax of the logits row, and the patch takes it with a branch-free multi-lane scan instead.

Exactness: a unique maximum is the only token every sampler of such a chain keeps and selects. When
the maximum occurs more than once the fast path steps aside and the full chain runs, so ties resolve
exactly as they do without the patch. ``cur_p`` then holds the one chosen entry ``{id, logit, 1}``,
which is what the chain leaves after ``top_k(1)``, so code that reads the candidates still works.

``LLAMA_CODER_NO_GREEDY_FAST=1`` in the server's environment turns the fast path off (an A/B in one
binary). Every anchor must match exactly once, so a moved source tree fails loudly.
"""

from __future__ import annotations

from pathlib import Path

from coder.backends.toolchain.anchored import AnchoredEdit, apply_edits

PATCH_NAME = "greedy-fast-v1"
DISABLE_ENV = "LLAMA_CODER_NO_GREEDY_FAST"

_SAMPLING = "common/sampling.cpp"

_HELPERS = r"""
// coder: greedy fast path -------------------------------------------------------------------------

// an environment switch: set, non-empty and not "0"
static bool coder_env_on(const char * name) {
    const char * v = getenv(name);
    return v != nullptr && v[0] != '\0' && strcmp(v, "0") != 0;
}

// true when the chain is greedy and keeps a unique largest logit through every sampler, so the
// argmax of the row is exactly the token the chain would choose
static bool coder_greedy_fast_eligible(const common_sampler * gsmpl, const llama_vocab * vocab) {
    static const bool disabled = coder_env_on("__DISABLE_ENV__");
    const common_params_sampling & p = gsmpl->params;
    if (disabled || gsmpl->grmr || gsmpl->rbudget || p.mirostat != 0 || p.backend_sampling || p.n_probs > 0 ||
            !p.logit_bias.empty()) {
        return false;
    }
    int32_t n_suppress = 0;
    llama_vocab_get_suppress_tokens(vocab, &n_suppress);
    if (n_suppress > 0) {
        return false;
    }
    bool greedy = false;
    for (const auto type : p.samplers) {
        switch (type) {
            case COMMON_SAMPLER_TYPE_PENALTIES:
                if (p.penalty_last_n != 0 &&
                        (p.penalty_repeat != 1.0f || p.penalty_freq != 0.0f || p.penalty_present != 0.0f)) {
                    return false;
                }
                break;
            case COMMON_SAMPLER_TYPE_DRY:
                if (p.dry_multiplier != 0.0f) {
                    return false;
                }
                break;
            case COMMON_SAMPLER_TYPE_TOP_N_SIGMA: // these keep the largest logit
            case COMMON_SAMPLER_TYPE_TOP_P:
            case COMMON_SAMPLER_TYPE_MIN_P:
                break;
            case COMMON_SAMPLER_TYPE_TOP_K:
                greedy = greedy || p.top_k == 1;
                break;
            case COMMON_SAMPLER_TYPE_TEMPERATURE: // a positive temperature keeps the order
                greedy = greedy || (p.temp <= 0.0f && p.dynatemp_range <= 0.0f);
                break;
            case COMMON_SAMPLER_TYPE_TYPICAL_P: // can drop the most likely token
                if (p.typ_p < 1.0f) {
                    return false;
                }
                break;
            case COMMON_SAMPLER_TYPE_XTC: // removes the most likely tokens by design
                if (p.xtc_probability > 0.0f && p.xtc_threshold <= 0.5f) {
                    return false;
                }
                break;
            default: // infill, adaptive-p and any later type may move the choice
                return false;
        }
    }
    return greedy;
}

// the index of the largest value, or -1 when it occurs more than once (or the row has no finite
// maximum); independent lanes keep the scan free of a loop-carried dependency, so it vectorises
static int32_t coder_unique_argmax(const float * x, int32_t n) {
    constexpr int32_t W = 16;
    float lane[W];
    for (int32_t j = 0; j < W; ++j) {
        lane[j] = -INFINITY;
    }
    int32_t i = 0;
    for (; i + W <= n; i += W) {
        for (int32_t j = 0; j < W; ++j) {
            lane[j] = x[i + j] > lane[j] ? x[i + j] : lane[j];
        }
    }
    float best = -INFINITY;
    for (int32_t j = 0; j < W; ++j) {
        best = lane[j] > best ? lane[j] : best;
    }
    for (; i < n; ++i) {
        best = x[i] > best ? x[i] : best;
    }
    if (!(best > -INFINITY)) {
        return -1;
    }
    int32_t found = -1;
    for (int32_t b = 0; b < n; b += W) {
        const int32_t e = std::min(n, b + W);
        int32_t hits = 0;
        for (int32_t k = b; k < e; ++k) {
            hits += x[k] == best;
        }
        if (hits == 0) {
            continue;
        }
        if (found >= 0 || hits > 1) {
            return -1; // a tie: the full chain decides, as it always has
        }
        for (int32_t k = b; k < e; ++k) {
            if (x[k] == best) {
                found = k;
                break;
            }
        }
    }
    return found;
}
""".replace("__DISABLE_ENV__", DISABLE_ENV)

_FAST_PATH = r"""    // coder: greedy fast path, an argmax over the row instead of the full candidate array
    if (coder_greedy_fast_eligible(gsmpl, llama_model_get_vocab(llama_get_model(ctx)))) {
        const float * logits = llama_get_logits_ith(ctx, idx);
        const int32_t n_vocab = llama_vocab_n_tokens(llama_model_get_vocab(llama_get_model(ctx)));
        const int32_t best = logits != nullptr ? coder_unique_argmax(logits, n_vocab) : -1;
        if (best >= 0) {
            gsmpl->cur.resize(1);
            gsmpl->cur[0] = llama_token_data{ best, logits[best], 1.0f };
            cur_p = { gsmpl->cur.data(), 1, 0, true };
            return best;
        }
    }

"""

EDITS: tuple[AnchoredEdit, ...] = (
    AnchoredEdit(_SAMPLING, "#include <cstring>\n", "#include <cstdlib> // coder: getenv\n"),
    # the helpers go at file scope, right after common_sampler_free
    AnchoredEdit(_SAMPLING, "    llama_sampler_free(gsmpl->chain);\n\n    delete gsmpl;\n}\n", _HELPERS),
    AnchoredEdit(_SAMPLING, "    auto & cur_p = gsmpl->cur_p; // initialized by set_logits\n\n", _FAST_PATH),
)


def apply(llama_root: Path) -> None:
    """Apply every edit to the llama.cpp tree at ``llama_root`` (idempotent)."""
    apply_edits(PATCH_NAME, EDITS, llama_root)
