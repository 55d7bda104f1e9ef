"""Leaner speculative steps in llama-server, and a per-step phase log, applied as anchored source edits.

Two changes to ``tools/server/server-context.cpp`` of build 11434:

- **No per-step sampler clone.** The server clones the whole sampler (with its full-vocabulary
  candidate array, 1.8 MB for Qwen2.5) before verifying every draft, but only the checkpoint-restore
  path reads the copy, and that path is taken only by contexts that cannot drop part of a sequence
  (``FULL`` or bounded ``RS`` memory: recurrent and hybrid models). A plain KV cache (``PART``)
  never restores, so it skips the clone. ``LLAMA_CODER_ALWAYS_CLONE=1`` clones at every step as before.
- **Per-step phase timings**, off by default. With ``LLAMA_CODER_STEP_TIMINGS=1`` the server
  synchronizes after each decode (so the decode phase holds the device's time, not the sampler's)
  and logs one line per ``update_slots`` iteration that decoded anything::

      coder-step n_batch=65 n_draft=64 n_accepted=60 total_ms=.. pre_ms=.. draft_ms=.. decode_ms=..
      post_ms=.. sample_ms=.. verify_ms=.. process_ms=..

  ``pre`` is building the batch (drafting included), ``draft`` the speculators alone, ``decode``
  ``llama_decode`` plus the device sync, ``post`` everything after it, within which ``sample`` is the
  plain (non-speculative) sampling, ``verify`` the draft verification (sampling every drafted position)
  and ``process`` the detokenizing and streaming of the accepted tokens.

Every anchor must match exactly once, so a moved source tree fails loudly.
"""

from __future__ import annotations

from pathlib import Path

from coder.backends.toolchain.anchored import AnchoredEdit, apply_edits

PATCH_NAME = "spec-step-v1"
ALWAYS_CLONE_ENV = "LLAMA_CODER_ALWAYS_CLONE"
STEP_TIMINGS_ENV = "LLAMA_CODER_STEP_TIMINGS"
STEP_LOG_PREFIX = "coder-step"

_CTX = "tools/server/server-context.cpp"

_HELPERS = r"""
// coder: an environment switch, set, non-empty and not "0"
static bool coder_env_on(const char * name) {
    const char * v = getenv(name);
    return v != nullptr && v[0] != '\0' && strcmp(v, "0") != 0;
}

// coder: per-step phase timings (__STEP_ENV__=1), summed over one update_slots iteration
struct coder_step_times {
    bool    on        = false;
    int64_t t_start   = 0;
    int64_t t_pre     = 0;
    int64_t t_draft   = 0;
    int64_t t_decode  = 0;
    int64_t t_post    = 0;
    int64_t t_sample  = 0;
    int64_t t_verify  = 0;
    int64_t t_process = 0;
    int64_t n_batch   = 0;
    int64_t n_draft   = 0;
    int64_t n_accepted = 0;
};

static coder_step_times coder_steps = [] {
    coder_step_times s;
    s.on = coder_env_on("__STEP_ENV__");
    return s;
}();

// adds the time of its scope to one phase; with a context, the device is synchronized first
struct coder_phase {
    int64_t & acc;
    llama_context * sync;
    int64_t t0;
    explicit coder_phase(int64_t & acc_, llama_context * sync_ = nullptr)
        : acc(acc_), sync(sync_), t0(coder_steps.on ? ggml_time_us() : 0) {}
    ~coder_phase() {
        if (coder_steps.on) {
            if (sync != nullptr) {
                llama_synchronize(sync);
            }
            acc += ggml_time_us() - t0;
        }
    }
};

// one step: starts the clock, and on leaving logs the phases (when the step decoded anything)
struct coder_step_scope {
    coder_step_scope() {
        if (coder_steps.on) {
            const bool on = coder_steps.on;
            coder_steps = coder_step_times();
            coder_steps.on = on;
            coder_steps.t_start = ggml_time_us();
        }
    }
    ~coder_step_scope() {
        const coder_step_times & s = coder_steps;
        if (!s.on || s.n_batch == 0) {
            return;
        }
        LOG_INF("__PREFIX__ n_batch=%" PRId64 " n_draft=%" PRId64 " n_accepted=%" PRId64
                " total_ms=%.3f pre_ms=%.3f draft_ms=%.3f decode_ms=%.3f post_ms=%.3f"
                " sample_ms=%.3f verify_ms=%.3f process_ms=%.3f\n",
                s.n_batch, s.n_draft, s.n_accepted, (ggml_time_us() - s.t_start) / 1e3, s.t_pre / 1e3,
                s.t_draft / 1e3, s.t_decode / 1e3, s.t_post / 1e3, s.t_sample / 1e3, s.t_verify / 1e3,
                s.t_process / 1e3);
    }
};
""".replace("__STEP_ENV__", STEP_TIMINGS_ENV).replace("__PREFIX__", STEP_LOG_PREFIX)

_LAZY_CLONE = r"""                // coder: the copy serves only the checkpoint restore below, which a context
                // that can drop part of a sequence (a plain KV cache) never takes;
                // __CLONE_ENV__=1 clones at every step anyway
                static const bool coder_always_clone = coder_env_on("__CLONE_ENV__");
                const bool coder_may_restore = coder_always_clone ||
                    ctx_tgt_seq_rm_type == COMMON_CONTEXT_SEQ_RM_TYPE_FULL ||
                    ctx_tgt_seq_rm_type == COMMON_CONTEXT_SEQ_RM_TYPE_RS;
                common_sampler_ptr smpl_save(coder_may_restore ? common_sampler_clone(slot.smpl.get()) : nullptr);
""".replace("__CLONE_ENV__", ALWAYS_CLONE_ENV)

EDITS: tuple[AnchoredEdit, ...] = (
    AnchoredEdit(_CTX, "constexpr int HTTP_POLLING_SECONDS = 1;\n", _HELPERS),
    # --- no per-step sampler clone ---
    AnchoredEdit(_CTX, "                common_sampler_ptr smpl_save(common_sampler_clone(slot.smpl.get()));\n",
                 _LAZY_CLONE, replace=True),
    AnchoredEdit(
        _CTX,
        "                        common_sampler_copy(smpl_save.get(), slot.smpl.get());\n",
        "                        GGML_ASSERT(smpl_save && \"coder: a checkpoint restore without the sampler copy\");\n"
        "                        common_sampler_copy(smpl_save.get(), slot.smpl.get());\n",
        replace=True,
    ),
    # --- per-step phase timings ---
    AnchoredEdit(_CTX, "                queue_tasks.post(std::move(task));\n            }\n        }\n",
                 "\n        coder_step_scope coder_step; // coder: per-step phase timings\n"),
    AnchoredEdit(_CTX, "            scoped_timer t(t_pre_decode, n_pre_decode);\n",
                 "            coder_phase coder_t_pre(coder_steps.t_pre);\n"),
    AnchoredEdit(_CTX,
                 "            queue_tasks.yield_to_queue([&]() {\n"
                 "                common_speculative_draft(spec.get());\n",
                 "            queue_tasks.yield_to_queue([&]() {\n"
                 "                coder_phase coder_t_draft(coder_steps.t_draft); // coder\n"
                 "                common_speculative_draft(spec.get());\n", replace=True),
    AnchoredEdit(_CTX, "                scoped_timer t(t_decode, n_decode);\n",
                 "                coder_steps.n_batch += n_tokens; // coder\n"
                 "                coder_phase coder_t_decode(coder_steps.t_decode, ctx_tgt);\n"),
    AnchoredEdit(_CTX, "                scoped_timer t(t_post_decode, n_post_decode);\n",
                 "                coder_phase coder_t_post(coder_steps.t_post);\n"),
    AnchoredEdit(_CTX, "                scoped_timer timer(t_sampl, n_sampl);\n",
                 "                coder_phase coder_t_sample(coder_steps.t_sample);\n"),
    AnchoredEdit(_CTX, "            // verify and try to accept the draft\n            {\n",
                 "                coder_phase coder_t_verify(coder_steps.t_verify); // coder\n"),
    AnchoredEdit(_CTX, "            slot.stats.n_draft_verif_steps += 1;\n",
                 "            coder_steps.n_draft += n_draft; // coder\n"
                 "            coder_steps.n_accepted += n_accepted;\n"),
    AnchoredEdit(_CTX, "            slot.mem.seq_rm(slot.id, slot.prompt.tokens.pos_next(), -1);\n",
                 "\n            coder_phase coder_t_process(coder_steps.t_process); // coder: to the step's end\n"),
)


def apply(llama_root: Path) -> None:
    """Apply every edit to the llama.cpp tree at ``llama_root`` (idempotent)."""
    apply_edits(PATCH_NAME, EDITS, llama_root)
