"""Greedy verification without the logits copy: the argmax of every output row in the model's graph.

With the greedy fast path (``greedy-fast-v1``) a cap-64 verification step still copies all 65 rows of
logits to the host (65 x 151,936 floats, 39.5 MB for Qwen2.5) and scans each row there. This patch
adds, when the server asks for it, three small tensors to the graph after the logits:

* ``coder_argmax_ids``: ``ggml_argmax`` of every output row (int32);
* ``coder_argmax_max``: that row's largest logit (``ggml_get_rows`` of the row at the argmax);
* ``coder_argmax_sgn``: ``sum_rows(sgn(logits - max))``, which is exactly ``-(n_vocab - 1)`` when the
  maximum is unique (the sum of whole numbers below 2^24 is exact in float, in any order).

Only these ``3 x n_outputs`` values are copied to the host. The logits of the batch's last ubatch stay
in the compute buffer and are copied the first time anything reads them (``llama_get_logits*``); the
earlier ubatches of a split batch are copied as before (their buffer is reused by the next ubatch).

The greedy fast path reads the id through ``llama_coder_argmax_ith`` and falls back to the logits when
the graph did not compute it or when the maximum is not unique, so a tie is resolved by the full chain
exactly as without the patch: the reply is the same token for token. The server turns the graph part on
for a decode only when every processing slot's chain passes the greedy fast path's eligibility check
(``common_sampler_coder_greedy``), never with backend sampling (``-bs``), embeddings or output rows out
of batch order.

``LLAMA_CODER_NO_GREEDY_ARGMAX=1`` in the server's environment turns it off (an A/B in one binary);
``LLAMA_CODER_NO_GREEDY_FAST=1`` turns off both. At the end of every request the server logs
``coder-argmax ids=N cpu_rows=N logits_copies=N`` (counters since the server started): rows answered
from the graph's ids, rows that fell back to the logits, and lazy copies of the full logits.

Every anchor must match exactly once, so a moved source tree fails loudly. Applied after
``greedy-fast-v1``, whose fast path it extends.
"""

from __future__ import annotations

from pathlib import Path

from coder.backends.toolchain.anchored import AnchoredEdit, apply_edits

PATCH_NAME = "greedy-argmax-v1"
DISABLE_ENV = "LLAMA_CODER_NO_GREEDY_ARGMAX"
LOG_PREFIX = "coder-argmax"

_H = "include/llama.h"
_CPARAMS = "src/llama-cparams.h"
_GRAPH_H = "src/llama-graph.h"
_GRAPH = "src/llama-graph.cpp"
_MODEL = "src/llama-model.cpp"
_CTX_H = "src/llama-context.h"
_CTX = "src/llama-context.cpp"
_SAMPLING_H = "common/sampling.h"
_SAMPLING = "common/sampling.cpp"
_SERVER = "tools/server/server-context.cpp"

_API = r"""
    // coder: greedy-argmax-v1. When on, the next decodes compute the argmax of every output row in the
    // graph and copy only the ids to the host; the logits of the last ubatch are copied when first read.
    LLAMA_API void    llama_coder_set_argmax(struct llama_context * ctx, bool on);
    // the argmax of output i of the last decode (i as for llama_get_logits_ith) and its logit in *max;
    // -1 when the graph did not compute it or the largest logit is not unique (then read the logits)
    LLAMA_API int32_t llama_coder_argmax_ith(struct llama_context * ctx, int32_t i, float * max);
    // counters since the context was created: rows answered from the ids, rows that fell back to the
    // logits, lazy copies of the logits
    LLAMA_API void    llama_coder_argmax_stats(const struct llama_context * ctx, int64_t * n_ids, int64_t * n_cpu,
                                               int64_t * n_copies);
"""

_CTX_MEMBERS = r"""
    // coder: greedy-argmax-v1 (see llama_coder_set_argmax)
    void    coder_set_argmax(bool on);
    int32_t coder_argmax_ith(int32_t i, float * max);
    void    coder_argmax_stats(int64_t * n_ids, int64_t * n_cpu, int64_t * n_copies) const;
    void    coder_logits_materialize();

    struct coder_argmax_state {
        bool valid = false;                 // the ids of the last decode are usable
        std::vector<int32_t> ids;           // per output row, in batch order
        std::vector<float>   max;           // the row's largest logit
        std::vector<float>   sgn;           // sum of sgn(logit - max): -(n_vocab - 1) iff the max is unique
        ggml_tensor * t_pending = nullptr;  // the last ubatch's logits, still only in the compute buffer
        size_t off_pending = 0;             // where they go in logits.data (floats)
        size_t n_pending   = 0;             // how many floats
        int64_t n_ids    = 0;
        int64_t n_cpu    = 0;
        int64_t n_copies = 0;
    } coder_am;
"""

_GRAPH_NODES = r"""
    // coder: greedy-argmax-v1, every output row's argmax, its logit and a uniqueness check, so that a
    // greedy slot needs n_outputs ids instead of n_outputs x n_vocab logits on the host
    if (params.cparams.coder_argmax && params.samplers.empty() && !params.cparams.embeddings &&
            params.n_outputs > 0 && llm->res->t_logits != nullptr) {
        ggml_context * ctx0   = llm->ctx0;
        ggml_tensor  * logits = llm->res->t_logits;
        if (logits->type == GGML_TYPE_F32 && ggml_is_contiguous(logits) && ggml_is_matrix(logits)) {
            const int64_t n_vocab = logits->ne[0];
            const int64_t n_rows  = logits->ne[1];
            ggml_tensor * ids = ggml_argmax(ctx0, logits);
            ggml_tensor * mx  = ggml_get_rows(ctx0, ggml_reshape_3d(ctx0, logits, 1, n_vocab, n_rows),
                                              ggml_reshape_2d(ctx0, ids, 1, n_rows));
            mx = ggml_reshape_2d(ctx0, mx, 1, n_rows);
            ggml_tensor * sgn = ggml_sum_rows(ctx0, ggml_sgn_inplace(ctx0, ggml_sub(ctx0, logits, mx)));
            ggml_set_name(ids, "coder_argmax_ids");
            ggml_set_name(mx,  "coder_argmax_max");
            ggml_set_name(sgn, "coder_argmax_sgn");
            ggml_set_output(ids);
            ggml_set_output(mx);
            ggml_set_output(sgn);
            ggml_build_forward_expand(llm->gf, ids);
            ggml_build_forward_expand(llm->gf, mx);
            ggml_build_forward_expand(llm->gf, sgn);
            llm->res->t_coder_ids = ids;
            llm->res->t_coder_max = mx;
            llm->res->t_coder_sgn = sgn;
        }
    }
"""

_DECODE_RESET = r"""
    // coder: greedy-argmax-v1; the previous batch's pending logits live in the buffer this batch reuses
    coder_am.t_pending = nullptr;
    coder_am.valid = cparams.coder_argmax && !output_all && !has_samplers && n_outputs_all > 0;
    if (coder_am.valid) {
        coder_am.ids.resize(n_outputs_all);
        coder_am.max.resize(n_outputs_all);
        coder_am.sgn.resize(n_outputs_all);
    }
"""

_EXTRACT = r"""        // coder: greedy-argmax-v1, this ubatch's ids; the last ubatch's logits stay in the compute
        // buffer until somebody reads them (an earlier ubatch's buffer is reused by the next one)
        const bool coder_ids_here = coder_am.valid && n_outputs > 0 && res->t_coder_ids != nullptr;
        if (coder_am.valid && n_outputs > 0 && !coder_ids_here) {
            coder_am.valid = false;
        }
        if (coder_ids_here) {
            ggml_backend_tensor_get_async(ggml_backend_sched_get_tensor_backend(sched.get(), res->t_coder_ids),
                    res->t_coder_ids, coder_am.ids.data() + n_outputs_prev, 0, n_outputs*sizeof(int32_t));
            ggml_backend_tensor_get_async(ggml_backend_sched_get_tensor_backend(sched.get(), res->t_coder_max),
                    res->t_coder_max, coder_am.max.data() + n_outputs_prev, 0, n_outputs*sizeof(float));
            ggml_backend_tensor_get_async(ggml_backend_sched_get_tensor_backend(sched.get(), res->t_coder_sgn),
                    res->t_coder_sgn, coder_am.sgn.data() + n_outputs_prev, 0, n_outputs*sizeof(float));
        }
        const bool coder_last = n_tokens_prev + (int64_t) ubatch.n_tokens == (int64_t) n_tokens_all;
        if (coder_ids_here && coder_last && logits.data && t_logits && needs_raw_logits(ubatch, sampling.samplers)) {
            GGML_ASSERT((n_outputs_prev + n_outputs)*n_vocab <= (int64_t) logits.size);
            coder_am.t_pending   = t_logits;
            coder_am.off_pending = n_outputs_prev*n_vocab;
            coder_am.n_pending   = n_outputs*n_vocab;
        } else
        if (logits.data && t_logits && n_outputs > 0 && needs_raw_logits(ubatch, sampling.samplers)) {
"""

_DECODE_END = r"""    // coder: greedy-argmax-v1; rows out of batch order would need the same swaps as the logits, so
    // those batches read the logits, copied now, before anything reorders them
    if (!output_swaps.empty() && coder_am.valid) {
        coder_am.valid = false;
        coder_logits_materialize();
    }
"""

_METHODS = r"""
// coder: greedy-argmax-v1 ------------------------------------------------------------------------------

void llama_context::coder_set_argmax(bool on) {
    cparams.coder_argmax = on; // part of the graph parameters, so a change rebuilds the graph
}

void llama_context::coder_logits_materialize() {
    ggml_tensor * t = coder_am.t_pending;
    if (t == nullptr) {
        return;
    }
    coder_am.t_pending = nullptr;
    synchronize();
    GGML_ASSERT(logits.data != nullptr && coder_am.off_pending + coder_am.n_pending <= logits.size);
    ggml_backend_tensor_get(t, logits.data + coder_am.off_pending, 0, coder_am.n_pending*sizeof(float));
    coder_am.n_copies++;
}

int32_t llama_context::coder_argmax_ith(int32_t i, float * max) {
    if (!coder_am.valid) {
        return -1;
    }
    int64_t j = -1;
    try {
        j = output_resolve_row(i);
    } catch (const std::exception &) {
        return -1;
    }
    if (j < 0 || (size_t) j >= coder_am.ids.size()) {
        return -1;
    }
    const int64_t n_vocab = model.vocab.n_tokens();
    const int32_t id = coder_am.ids[j];
    // a unique maximum: every other entry is below it, so the signs sum to exactly -(n_vocab - 1);
    // a tie (or a NaN) reads the logits and the full chain decides, as without the patch
    if (coder_am.sgn[j] != (float) -(n_vocab - 1) || id < 0 || id >= n_vocab) {
        coder_am.n_cpu++;
        return -1;
    }
    if (max != nullptr) {
        *max = coder_am.max[j];
    }
    coder_am.n_ids++;
    return id;
}

void llama_context::coder_argmax_stats(int64_t * n_ids, int64_t * n_cpu, int64_t * n_copies) const {
    *n_ids    = coder_am.n_ids;
    *n_cpu    = coder_am.n_cpu;
    *n_copies = coder_am.n_copies;
}
"""

_C_API = r"""
void llama_coder_set_argmax(llama_context * ctx, bool on) {
    ctx->coder_set_argmax(on);
}

int32_t llama_coder_argmax_ith(llama_context * ctx, int32_t i, float * max) {
    ctx->synchronize();
    return ctx->coder_argmax_ith(i, max);
}

void llama_coder_argmax_stats(const llama_context * ctx, int64_t * n_ids, int64_t * n_cpu, int64_t * n_copies) {
    ctx->coder_argmax_stats(n_ids, n_cpu, n_copies);
}
"""

_SAMPLER_GREEDY = r"""
// coder: greedy-argmax-v1, whether a decode may answer this chain with the graph's argmax
bool common_sampler_coder_greedy(const struct common_sampler * gsmpl, const struct llama_vocab * vocab) {
    return gsmpl != nullptr && coder_greedy_fast_eligible(gsmpl, vocab);
}
"""

_SAMPLER_IDS = ("    // coder: greedy-argmax-v1, the graph's argmax of the row when the decode computed it; "
                r"""-1 (a tie, or
    // not computed) goes on to the greedy fast path below, which reads the row
    if (coder_greedy_fast_eligible(gsmpl, llama_model_get_vocab(llama_get_model(ctx)))) {
        float coder_max = 0.0f;
        const llama_token coder_id = llama_coder_argmax_ith(ctx, idx, &coder_max);
        if (coder_id >= 0) {
            gsmpl->cur.resize(1);
            gsmpl->cur[0] = llama_token_data{ coder_id, coder_max, 1.0f };
            cur_p = { gsmpl->cur.data(), 1, 0, true };
            return coder_id;
        }
    }

""")

_SERVER_SET = r"""
        // coder: greedy-argmax-v1, the argmax in the graph when every processing slot samples greedily
        {
            static const bool coder_argmax_off = [] {
                const char * v = getenv("__DISABLE_ENV__");
                return v != nullptr && v[0] != '\0' && strcmp(v, "0") != 0;
            }();
            bool coder_greedy = !coder_argmax_off;
            for (auto & slot : slots) {
                if (coder_greedy && slot.is_processing() && !common_sampler_coder_greedy(slot.smpl.get(), vocab)) {
                    coder_greedy = false;
                }
            }
            llama_coder_set_argmax(ctx_tgt, coder_greedy);
        }
""".replace("__DISABLE_ENV__", DISABLE_ENV)

_SERVER_LOG = r"""        {
            int64_t coder_ids = 0, coder_cpu = 0, coder_copies = 0; // coder: greedy-argmax-v1 counters
            llama_coder_argmax_stats(ctx_tgt, &coder_ids, &coder_cpu, &coder_copies);
            SLT_INF(*this, "__PREFIX__ ids=%" PRId64 " cpu_rows=%" PRId64 " logits_copies=%" PRId64 "\n",
                    coder_ids, coder_cpu, coder_copies);
        }
""".replace("__PREFIX__", LOG_PREFIX)

EDITS: tuple[AnchoredEdit, ...] = (
    AnchoredEdit(_H, "    LLAMA_API float * llama_get_logits_ith(struct llama_context * ctx, int32_t i);\n", _API),
    AnchoredEdit(_CPARAMS, "struct llama_cparams {\n",
                 "    bool coder_argmax = false; // coder: greedy-argmax-v1, argmax nodes after the logits\n"),
    # graph: the result's tensors, cleared on reset, and a change of the switch forbids reuse
    AnchoredEdit(_GRAPH_H, "    std::vector<ggml_tensor *> t_candidates;\n",
                 "    ggml_tensor * t_coder_ids = nullptr; // coder: greedy-argmax-v1\n"
                 "    ggml_tensor * t_coder_max = nullptr;\n"
                 "    ggml_tensor * t_coder_sgn = nullptr;\n"),
    AnchoredEdit(_GRAPH_H,
                 "        if (!samplers_equal(samplers, other.samplers)) {\n            return false;\n        }\n",
                 "\n        if (cparams.coder_argmax != other.cparams.coder_argmax) { // coder: greedy-argmax-v1\n"
                 "            return false;\n        }\n"),
    AnchoredEdit(_GRAPH, "    t_candidates.clear();\n",
                 "    t_coder_ids = nullptr; // coder: greedy-argmax-v1\n"
                 "    t_coder_max = nullptr;\n"
                 "    t_coder_sgn = nullptr;\n"),
    AnchoredEdit(_MODEL, "    llm->build_sampling();\n", _GRAPH_NODES),
    # context: state, decode, lazy logits
    AnchoredEdit(_CTX_H, "    float * get_logits_ith(int32_t i);\n", _CTX_MEMBERS),
    AnchoredEdit(_CTX, "    res += n_sampling_nodes;\n", "    res += 16; // coder: greedy-argmax-v1 nodes\n"),
    AnchoredEdit(_CTX, "    output_swaps.clear();\n    embd_batch_idxs.clear();\n", _DECODE_RESET),
    AnchoredEdit(_CTX,
                 "        if (logits.data && t_logits && n_outputs > 0 && needs_raw_logits(ubatch, sampling.samplers))"
                 " {\n",
                 _EXTRACT, replace=True),
    AnchoredEdit(_CTX,
                 "    // wait for the computation to finish (automatically done when obtaining the model output)\n"
                 "    //synchronize();\n", _DECODE_END),
    AnchoredEdit(_CTX, "float * llama_context::get_logits() {\n    output_reorder();\n",
                 "float * llama_context::get_logits() {\n    coder_logits_materialize(); // coder: greedy-argmax-v1\n"
                 "    output_reorder();\n", replace=True),
    AnchoredEdit(_CTX, "float * llama_context::get_logits_ith(int32_t i) {\n    output_reorder();\n",
                 "float * llama_context::get_logits_ith(int32_t i) {\n"
                 "    coder_logits_materialize(); // coder: greedy-argmax-v1\n"
                 "    output_reorder();\n", replace=True),
    AnchoredEdit(_CTX,
                 "float * llama_context::get_embeddings() {\n    output_reorder();\n\n    return embd.data;\n}\n",
                 _METHODS),
    AnchoredEdit(_CTX,
                 "    res = ctx->get_sampled_logits_ith(i);\n\n    if (!res) {\n        res = ctx->get_logits_ith(i);\n"
                 "    }\n\n    return res;\n}\n", _C_API),
    # sampling: the eligibility check for the server, and the ids in the greedy fast path
    AnchoredEdit(_SAMPLING_H, "void common_sampler_free(struct common_sampler * gsmpl);\n",
                 "\n// coder: greedy-argmax-v1, true when the greedy fast path answers this chain with an argmax\n"
                 "bool common_sampler_coder_greedy(const struct common_sampler * gsmpl, "
                 "const struct llama_vocab * vocab);\n"),
    AnchoredEdit(_SAMPLING, "    return found;\n}\n", _SAMPLER_GREEDY),
    # before greedy-fast-v1's block, which stays whole (its own re-application looks for it)
    AnchoredEdit(_SAMPLING, "    auto & cur_p = gsmpl->cur_p; // initialized by set_logits\n\n", _SAMPLER_IDS),
    # server: the switch before every decode, the counters after every request
    AnchoredEdit(_SERVER, "        int32_t off_next = 0;\n        int32_t n_batch = llama_n_batch(ctx_tgt);\n",
                 _SERVER_SET),
    AnchoredEdit(_SERVER, "    void print_timings() const {\n", _SERVER_LOG),
)


def apply(llama_root: Path) -> None:
    """Apply every edit to the llama.cpp tree at ``llama_root`` (idempotent); after ``greedy-fast-v1``."""
    apply_edits(PATCH_NAME, EDITS, llama_root)
