"""The C++ source of coder's ``prediction`` speculator (inserted into ``common/speculative.cpp``
by :mod:`coder.backends.toolchain.prediction_patch`, which documents how it drafts).

Kept apart only for module size: the text is hashed into the build key through the patch's edits.
"""

IMPL = r"""
// coder: prediction drafter (OpenAI Predicted Outputs), see common_speculative_set_prediction
static int32_t common_speculative_prediction_n_max(const common_params_speculative & params) {
    // copy drafts are deep by design: at least 64, or the deepest n-gram / model budget configured
    return std::max({(int32_t) 64, params.ngram_mod.n_max, params.draft.n_max});
}

struct common_speculative_impl_prediction : public common_speculative_impl {
    static constexpr size_t N_SYNC   = 4;    // output tokens that must match to re-synchronise
    static constexpr size_t N_WINDOW = 2048; // how far past the confirmed position a re-sync looks
    static constexpr size_t N_NEAR   = 8;    // how far past the lost position an eager re-sync looks
    static constexpr int32_t N_GROW  = 4;    // a fully accepted draft grows the budget that much
    static constexpr int32_t N_FLOOR = 4;    // the smallest budget after a partial acceptance

    struct seq_info {
        llama_tokens pred;
        size_t n_prompt = 0;   // prompt length at begin(): the output starts there
        size_t n_seen   = 0;   // output tokens already fed to the alignment
        size_t cursor   = 0;   // index of the next predicted token
        size_t anchor   = 0;   // cursor after the last run of >= N_SYNC matching tokens
        size_t run      = 0;   // consecutive matching tokens since the last (re)sync
        bool   aligned  = true;
        int    n_miss   = 0;   // own drafts in a row rejected at their first token
        size_t lost     = 0;   // cursor when the output last left the prediction
        int32_t budget  = 0;   // draft budget set by the policy (0: n_max)
        int32_t last_draft = 0;
        common_speculative_prediction_policy policy; // all zero: the default sizing
    };

    std::vector<seq_info> sinfos;

    common_speculative_impl_prediction(const common_params_speculative & params, uint32_t n_seq)
        : common_speculative_impl(COMMON_SPECULATIVE_TYPE_PREDICTION, n_seq,
                                  common_speculative_prediction_n_max(params)) {
        sinfos.resize(n_seq);
    }

    void begin(llama_seq_id seq_id, const llama_tokens & prompt) override {
        sinfos[seq_id] = seq_info();
        sinfos[seq_id].n_prompt = prompt.size();
    }

    void set_prediction(llama_seq_id seq_id, const llama_tokens & pred) {
        sinfos[seq_id].pred = pred;
    }

    void set_policy(llama_seq_id seq_id, const common_speculative_prediction_policy & policy) {
        sinfos[seq_id].policy = policy;
    }

    bool process(const common_batch & /*batch*/) override {
        return true;
    }

    static void observe(seq_info & s, llama_token t) {
        if (s.aligned && s.cursor < s.pred.size() && s.pred[s.cursor] == t) {
            s.cursor++;
            if (++s.run >= N_SYNC) {
                s.anchor = s.cursor;
            }
        } else {
            if (s.aligned) {
                s.lost = s.cursor;
            }
            s.aligned = false;
            s.run     = 0;
        }
    }

    // policy.eager: an insertion or a substitution rejoins the prediction right where it left,
    // so a short tail is searched for there first, in a window of N_NEAR tokens
    static bool resync_near(seq_info & s, const llama_tokens & tail) {
        const size_t n   = tail.size();
        const size_t end = std::min(s.pred.size(), s.lost + N_NEAR + n);
        for (size_t p = s.lost; p + n <= end; ++p) {
            if (std::equal(tail.begin(), tail.end(), s.pred.begin() + p)) {
                s.cursor  = p + n;
                s.aligned = true;
                s.run     = 0;
                return true;
            }
        }
        return false;
    }

    // find tail in the prediction, forward from the confirmed position, within the window
    static bool resync(seq_info & s, const llama_tokens & tail) {
        const size_t n   = tail.size();
        const size_t end = std::min(s.pred.size(), s.anchor + N_WINDOW + n);
        for (size_t p = s.anchor; p + n <= end; ++p) {
            if (std::equal(tail.begin(), tail.end(), s.pred.begin() + p)) {
                s.cursor  = p + n;
                s.aligned = true;
                s.run     = 0;
                return true;
            }
        }
        return false;
    }

    void draft_one(seq_info & s, common_speculative_draft_params & dp) {
        const auto & prompt = *dp.prompt;
        if (prompt.size() < s.n_prompt) {
            s.pred.clear(); // the context was shifted: positions no longer line up
            return;
        }
        const size_t n_gen = prompt.size() - s.n_prompt; // output tokens before id_last
        const size_t n_out = n_gen + 1;
        auto out_at = [&](size_t i) { return i < n_gen ? prompt[s.n_prompt + i] : dp.id_last; };

        for (size_t i = s.n_seen; i < n_out; ++i) {
            observe(s, out_at(i));
        }
        s.n_seen = n_out;

        if (!s.aligned) {
            auto tail_of = [&](size_t n) {
                llama_tokens tail(n);
                for (size_t j = 0; j < n; ++j) {
                    tail[j] = out_at(n_out - n + j);
                }
                return tail;
            };
            const size_t e = (size_t) std::max(0, s.policy.eager);
            const bool near = e > 0 && s.n_miss == 0 && n_out >= e && resync_near(s, tail_of(e));
            if (!near) {
                const size_t n = N_SYNC * (1 + (size_t) std::min(s.n_miss, 3));
                if (n_out < n || !resync(s, tail_of(n))) {
                    return;
                }
            }
            if (s.policy.resync > 0) {
                s.budget = s.policy.resync; // re-synchronised: short drafts until one is fully accepted
            }
        }
        if (s.cursor >= s.pred.size()) {
            return;
        }

        int32_t n_draft = s.budget > 0 ? std::min(n_max, s.budget) : n_max;
        if (dp.n_max > 0) {
            n_draft = std::min(n_draft, dp.n_max);
        }
        // rejected at the first token: shorter drafts until one is accepted
        n_draft = std::max(1, n_draft >> (2 * std::min(s.n_miss, 3)));
        n_draft = std::min<int32_t>(n_draft, (int32_t) (s.pred.size() - s.cursor));
        s.last_draft = n_draft;
        dp.result->assign(s.pred.begin() + s.cursor, s.pred.begin() + s.cursor + n_draft);
    }

    void draft(common_speculative_draft_params_vec & dparams) override {
        for (llama_seq_id seq_id = 0; seq_id < (llama_seq_id) n_seq; ++seq_id) {
            auto & dp = dparams[seq_id];
            if (dp.drafting && !sinfos[seq_id].pred.empty()) {
                draft_one(sinfos[seq_id], dp);
            }
        }
    }

    void accept(llama_seq_id seq_id, uint16_t n_accepted, bool is_other) override {
        if (is_other) {
            return; // the output tokens tell the alignment everything at the next draft
        }
        auto & s = sinfos[seq_id];
        s.n_miss = n_accepted == 0 ? s.n_miss + 1 : 0;
        if (n_accepted >= s.last_draft) {
            if (s.budget > 0) {
                s.budget = s.budget >= n_max / N_GROW ? 0 : s.budget * N_GROW;
            }
        } else if (n_accepted > 0 && s.policy.partial > 0) {
            s.budget = std::max(N_FLOOR, std::min(n_max, s.policy.partial * ((int32_t) n_accepted + 1)));
        }
    }
};

"""
