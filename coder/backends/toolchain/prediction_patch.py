"""coder's ``prediction`` drafter for llama-server, applied as anchored source edits.

A request may carry OpenAI's Predicted Outputs field, ``"prediction": {"type": "content",
"content": "..."}``: the text the reply is expected to copy (for an edit, the original file or
region inside the same fence). The server tokenizes it once per request (capped at the context
size) and a new speculator type, ``prediction``, drafts from a cursor aligned with the output:

- while the output follows the prediction, the draft is the next ``n`` predicted tokens, ``n`` up to
  the step's budget (the per-request cap of ``draft-cap-v1`` bounds it like any other type);
- after a mismatch the cursor is lost; it re-synchronises by finding the last few generated tokens in
  the prediction, searching forward from the last *confirmed* position within a bounded window (a
  false match therefore never drags the cursor past the text still to be copied);
- a draft rejected at its first token halves-twice its next draft and lengthens the match needed to
  re-synchronise, so a prediction unrelated to the output costs a few short drafts, then nothing.

How it sizes its drafts can be changed per request (all zero, the default, is the sizing above), so
policies are compared side by side in one binary (``POLICY_FIELDS``, scripts/draft_policy_sim.py):

- ``speculative.prediction_eager`` E: after the output leaves the prediction, first look for its last
  E tokens within a few tokens of where it left (an insertion or a substitution rejoins there), before
  the N_SYNC search from the confirmed position;
- ``speculative.prediction_resync`` R: right after a re-synchronisation, draft at most R tokens, four
  times more after each fully accepted draft, back to the full budget;
- ``speculative.prediction_partial`` P: after a draft accepted in part (A tokens), draft at most
  P * (A + 1) next.

The type is listed first in the chain (``--spec-type prediction,ngram-mod,draft-simple``): when it
has no draft the next type drafts, and a model drafter stays in sync through the chain's
``is_other`` accept calls. Accepted and rejected tokens go through the server's counters,
per-position statistics and ``/metrics`` like any other speculator's. The patch also reports which
speculator drafted how much: ``timings.draft_by_type`` (per request, streamed with
``timings_per_token``), ``llamacpp:spec_decode_*_by_type_total{type=...}`` on ``/metrics`` and
``speculative_types`` (the chain as built) in ``/slots``.

A stock build ignores the field. Every anchor must match exactly once, so a moved tree fails loudly.
"""

from __future__ import annotations

from pathlib import Path

from coder.backends.toolchain.anchored import AnchoredEdit, apply_edits
from coder.backends.toolchain.prediction_impl import IMPL as _IMPL
from coder.spec_vocab import LLAMACPP_PREDICTION_FIELD, LLAMACPP_TIMINGS_BY_TYPE

PATCH_NAME = "prediction-v1"
# per-request sizing policy of the prediction drafter (see above), 0 = the default
POLICY_FIELDS = ("speculative.prediction_eager", "speculative.prediction_resync", "speculative.prediction_partial")
POLICY_MARKER = "coder: prediction sizing policy"
SPEC_TYPE = "prediction"
REQUEST_FIELD = LLAMACPP_PREDICTION_FIELD
# timings key with the per-speculator breakdown: {type: {"steps", "draft_n", "draft_n_accepted"}}
TIMINGS_BY_TYPE = LLAMACPP_TIMINGS_BY_TYPE

_SPEC_H = "common/speculative.h"
_SPEC_CPP = "common/speculative.cpp"

_API = r"""
// coder: prediction drafter and per-speculator reporting
void common_speculative_set_prediction(common_speculative * spec, llama_seq_id seq_id,
                                       const llama_tokens & prediction) {
    if (spec == nullptr) {
        return;
    }
    for (auto & impl : spec->impls) {
        if (impl->type == COMMON_SPECULATIVE_TYPE_PREDICTION) {
            static_cast<common_speculative_impl_prediction *>(impl.get())->set_prediction(seq_id, prediction);
        }
    }
}

void common_speculative_set_prediction_policy(common_speculative * spec, llama_seq_id seq_id,
                                              const common_speculative_prediction_policy & policy) {
    if (spec == nullptr) {
        return;
    }
    for (auto & impl : spec->impls) {
        if (impl->type == COMMON_SPECULATIVE_TYPE_PREDICTION) {
            static_cast<common_speculative_impl_prediction *>(impl.get())->set_policy(seq_id, policy);
        }
    }
}

enum common_speculative_type common_speculative_last_type(const common_speculative * spec, llama_seq_id seq_id) {
    if (spec == nullptr || seq_id < 0 || seq_id >= (llama_seq_id) spec->impl_last.size() ||
            spec->impl_last[seq_id] == nullptr) {
        return COMMON_SPECULATIVE_TYPE_NONE;
    }
    return spec->impl_last[seq_id]->type;
}

std::string common_speculative_impl_types_str(const common_speculative * spec) {
    std::vector<common_speculative_type> types;
    if (spec != nullptr) {
        for (const auto & impl : spec->impls) {
            types.push_back(impl->type);
        }
    }
    return common_speculative_type_name_str(types);
}
"""

_SCHEMA = r"""
    // coder: OpenAI Predicted Outputs, drafted from by --spec-type prediction
    add((new field_json("prediction"))
        ->set_desc("Predicted output {\"type\": \"content\", \"content\": text or text parts}: "
                   "the prediction speculator drafts from it")
        ->set_handler([&](field_eval_context & ctx, const json & data) {
            const json & pred = data.at("prediction");
            if (!pred.is_object() || json_value(pred, "type", std::string()) != "content" ||
                    !pred.contains("content")) {
                throw std::runtime_error("Error: 'prediction' must be {\"type\": \"content\", \"content\": ...}");
            }
            const json & content = pred.at("content");
            std::string text;
            if (content.is_string()) {
                text = content.get<std::string>();
            } else if (content.is_array()) {
                for (const auto & part : content) {
                    if (!part.is_object() || json_value(part, "type", std::string()) != "text") {
                        throw std::runtime_error(
                            "Error: 'prediction.content' parts must be {\"type\": \"text\", \"text\": ...}");
                    }
                    text += json_value(part, "text", std::string());
                }
            } else {
                throw std::runtime_error("Error: 'prediction.content' must be a string or an array of text parts");
            }
            // capped at the context size; a token is rarely longer than 32 bytes, so cut the text first
            const size_t n_ctx = params_base.n_ctx > 0 ? (size_t) params_base.n_ctx : 0;
            if (n_ctx > 0 && text.size() > 32 * n_ctx) {
                text.resize(32 * n_ctx);
            }
            GGML_ASSERT(ctx.vocab != nullptr);
            ctx.params.prediction = text.empty() ? llama_tokens() : common_tokenize(ctx.vocab, text, false, false);
            if (n_ctx > 0 && ctx.params.prediction.size() > n_ctx) {
                ctx.params.prediction.resize(n_ctx);
            }
        }));
"""

_POLICY_SCHEMA = "".join(
    f'    add((new field_num("{name}", params.prediction_policy[{i}])) // {POLICY_MARKER}\n'
    "        ->set_hard_limits(0, 4096)\n"
    f'        ->set_desc("prediction drafter: {what} (0 = default)"));\n'
    for i, (name, what) in enumerate(zip(POLICY_FIELDS, (
        "re-sync on this many output tokens near where the output left the prediction",
        "draft budget right after a re-sync, x4 per fully accepted draft",
        "after a partial acceptance of A tokens, a budget of this * (A + 1)",
    ), strict=True))
)

_PROMETHEUS = r"""
    // coder: labeled counters, one time series per speculator type
    if (!metrics.n_draft_by_type.empty()) {
        static const char * names[3] = {
            "spec_decode_num_drafts_by_type_total",
            "spec_decode_num_draft_tokens_by_type_total",
            "spec_decode_num_accepted_tokens_by_type_total",
        };
        static const char * helps[3] = {
            "Speculative: verification steps drafted by each speculator type",
            "Speculative: draft tokens generated by each speculator type",
            "Speculative: draft tokens accepted per speculator type",
        };
        for (int k = 0; k < 3; ++k) {
            prometheus << "# HELP llamacpp:" << names[k] << " " << helps[k] << "\n"
                       << "# TYPE llamacpp:" << names[k] << " counter\n";
            for (const auto & it : metrics.n_draft_by_type) {
                prometheus << "llamacpp:" << names[k] << "{type=\"" << it.first << "\"} " << it.second[k] << "\n";
            }
        }
    }
"""

EDITS: tuple[AnchoredEdit, ...] = (
    # --- the speculator type and its API (common/) ---
    AnchoredEdit(
        _SPEC_H,
        '#include "common.h"\n',
        "\n// coder: the request's predicted output as a speculator type; it sits past\n"
        "// COMMON_SPECULATIVE_TYPE_COUNT so every stock type keeps its value\n"
        "constexpr common_speculative_type COMMON_SPECULATIVE_TYPE_PREDICTION =\n"
        "    (common_speculative_type) (COMMON_SPECULATIVE_TYPE_COUNT + 1);\n"
        f"\n// {POLICY_MARKER}: per request, all zero = the default sizing\n"
        "struct common_speculative_prediction_policy {\n"
        "    int32_t eager   = 0; // > 0: re-sync on the last `eager` output tokens near where the output left\n"
        "    int32_t resync  = 0; // > 0: the draft budget right after a re-sync, x4 per fully accepted draft\n"
        "    int32_t partial = 0; // > 0: after a draft accepted in part (A tokens), a budget of partial * (A + 1)\n"
        "};\n",
    ),
    AnchoredEdit(
        _SPEC_H,
        "void common_speculative_accept(common_speculative * spec, llama_seq_id, uint16_t n_accepted);\n",
        "\n// coder: the predicted output of seq_id for this generation (call after common_speculative_begin)\n"
        "void common_speculative_set_prediction(common_speculative * spec, llama_seq_id seq_id,"
        " const llama_tokens & prediction);\n"
        "void common_speculative_set_prediction_policy(common_speculative * spec, llama_seq_id seq_id,"
        " const common_speculative_prediction_policy & policy);\n"
        "\n// coder: the type of the implementation that produced seq_id's last draft (NONE before any)\n"
        "enum common_speculative_type common_speculative_last_type(const common_speculative * spec,"
        " llama_seq_id seq_id);\n"
        "\n// coder: the initialized implementations, in chain order\n"
        "std::string common_speculative_impl_types_str(const common_speculative * spec);\n",
    ),
    AnchoredEdit(
        _SPEC_CPP,
        '    {"ngram-cache",   COMMON_SPECULATIVE_TYPE_NGRAM_CACHE}',
        ',\n    {"prediction",    COMMON_SPECULATIVE_TYPE_PREDICTION} // coder',
    ),
    AnchoredEdit(_SPEC_CPP, "    std::vector<double> synth_probs;\n};\n", _IMPL + _API),
    # the type is no enumerator, so it is handled ahead of each switch (no -Wswitch noise)
    AnchoredEdit(
        _SPEC_CPP,
        "std::string common_speculative_type_to_str(common_speculative_type type) {\n",
        "    if (type == COMMON_SPECULATIVE_TYPE_PREDICTION) {\n        return \"prediction\"; // coder\n    }\n",
    ),
    AnchoredEdit(
        _SPEC_CPP,
        "            types.push_back((common_speculative_type) i);\n        }\n",
        "        types.push_back(COMMON_SPECULATIVE_TYPE_PREDICTION); // coder\n",
    ),
    AnchoredEdit(
        _SPEC_CPP,
        "    for (const auto type : spec->types) {\n",
        "        if (type == COMMON_SPECULATIVE_TYPE_PREDICTION) { // coder\n"
        "            n_max = std::max(n_max, common_speculative_prediction_n_max(*spec));\n"
        "            continue;\n        }\n",
    ),
    AnchoredEdit(
        _SPEC_CPP,
        "        // the one with highest priority are listed first\n",
        "        add_config_if_enabled(COMMON_SPECULATIVE_TYPE_PREDICTION); // coder: before every other drafter\n",
    ),
    AnchoredEdit(
        _SPEC_CPP,
        "    for (const common_speculative_config & config : configs) {\n",
        "        if (config.type == COMMON_SPECULATIVE_TYPE_PREDICTION) { // coder\n"
        "            impls.push_back(std::make_unique<common_speculative_impl_prediction>(config.params, n_seq));\n"
        "            continue;\n        }\n",
    ),
    # --- the request field (tools/server/) ---
    AnchoredEdit(
        "tools/server/server-task.h",
        "    int32_t n_cache_reuse = 0; // min chunk size to attempt reusing from the cache via KV shifting"
        " (0 = disabled)\n",
        "    llama_tokens prediction; // coder: the request's predicted output, tokenized once\n"
        f"    int32_t prediction_policy[3] = {{0, 0, 0}}; // {POLICY_MARKER}: eager, resync, partial\n",
    ),
    AnchoredEdit(
        "tools/server/server-schema.cpp",
        '            ctx.params.response_fields = json_value(data, "response_fields", std::vector<std::string>());\n'
        "        }));\n",
        _SCHEMA + _POLICY_SCHEMA,
    ),
    AnchoredEdit(
        "tools/server/server-context.cpp",
        "                    common_speculative_begin(spec.get(), slot.id, slot.prompt.tokens.get_text_tokens());\n",
        "                    // coder: the request's prediction, capped at the slot's context\n"
        "                    if (!slot.task->params.prediction.empty()) {\n"
        "                        llama_tokens pred = slot.task->params.prediction;\n"
        "                        if ((int) pred.size() > slot.n_ctx) {\n"
        "                            pred.resize(slot.n_ctx);\n"
        "                        }\n"
        "                        common_speculative_set_prediction(spec.get(), slot.id, pred);\n"
        "                        const int32_t * pp = slot.task->params.prediction_policy;\n"
        "                        common_speculative_prediction_policy policy;\n"
        "                        policy.eager   = pp[0];\n"
        "                        policy.resync  = pp[1];\n"
        "                        policy.partial = pp[2];\n"
        "                        common_speculative_set_prediction_policy(spec.get(), slot.id, policy);\n"
        "                    }\n",
    ),
    # --- which speculator drafted how much ---
    AnchoredEdit(
        "tools/server/server-context.cpp",
        "    bool spec_is_replay = false;\n",
        "    std::string spec_draft_type; // coder: the speculator type of the pending draft\n",
    ),
    AnchoredEdit(
        "tools/server/server-context.cpp",
        "            slot.stats.n_draft_tokens += draft.size();\n",
        "\n            // coder: which speculator drafted this step\n"
        "            slot.spec_draft_type.clear();\n"
        "            if (!draft.empty()) {\n"
        "                slot.spec_draft_type = common_speculative_type_to_str("
        "common_speculative_last_type(spec.get(), slot.id));\n"
        "                auto & by_type = slot.stats.draft_by_type[slot.spec_draft_type];\n"
        "                by_type[0] += 1;\n"
        "                by_type[1] += draft.size();\n"
        "            }\n",
    ),
    AnchoredEdit(
        "tools/server/server-context.cpp",
        "            slot.stats.n_draft_accepted += n_accepted;\n",
        "            if (!slot.spec_draft_type.empty()) {\n"
        "                slot.stats.draft_by_type[slot.spec_draft_type][2] += n_accepted; // coder\n"
        "            }\n",
    ),
    AnchoredEdit(
        "tools/server/server-context.cpp",
        "        metrics.n_draft_verif_steps += slot.stats.n_draft_verif_steps;\n",
        "        for (const auto & it : slot.stats.draft_by_type) { // coder\n"
        "            auto & dst_t = metrics.n_draft_by_type[it.first];\n"
        "            for (size_t k = 0; k < 3; ++k) {\n"
        "                dst_t[k] += it.second[k];\n"
        "            }\n"
        "        }\n",
    ),
    AnchoredEdit(
        "tools/server/server-context.cpp",
        '            {"speculative",   can_speculate()},\n',
        '            {"speculative_types", common_speculative_impl_types_str(spec)}, // coder\n',
    ),
    AnchoredEdit(
        "tools/server/server-common.h",
        "    uint64_t n_draft_verif_steps = 0;\n",
        "    // coder: per speculator type: verification steps, draft tokens, accepted tokens\n"
        "    std::map<std::string, std::array<uint64_t, 3>> draft_by_type;\n",
    ),
    AnchoredEdit(
        "tools/server/server-common.h",
        "    std::vector<uint64_t> n_accepted_per_pos; // Accepted tokens per draft position\n",
        "    std::map<std::string, std::array<uint64_t, 3>> n_draft_by_type; // coder: steps, drafted, accepted\n",
    ),
    AnchoredEdit(
        "tools/server/server-common.cpp",
        '        base["draft_n_accepted"] = n_draft_accepted;\n',
        "        if (!draft_by_type.empty()) { // coder: which speculator drafted how much\n"
        "            json by_type = json::object();\n"
        "            for (const auto & it : draft_by_type) {\n"
        '                by_type[it.first] = {{"steps", it.second[0]}, {"draft_n", it.second[1]},'
        ' {"draft_n_accepted", it.second[2]}};\n'
        "            }\n"
        f'            base["{TIMINGS_BY_TYPE}"] = by_type;\n'
        "        }\n",
    ),
    AnchoredEdit(
        "tools/server/server-task.cpp",
        '                       << i << "\\"} " << metrics.n_accepted_per_pos[i] << "\\n";\n        }\n    }\n',
        _PROMETHEUS,
    ),
)


def apply(llama_root: Path) -> None:
    """Apply every edit to the llama.cpp tree at ``llama_root`` (idempotent)."""
    apply_edits(PATCH_NAME, EDITS, llama_root)
