"""Statistic functions of coder bench, on fixed numbers worked out by hand."""

from __future__ import annotations

import math

import pytest

from coder.bench import stats
from coder.telemetry import figures
from coder.telemetry.stats import Chunk, RequestStats


def test_percentile_matches_linear_interpolation() -> None:
    vals = [4.0, 1.0, 3.0, 2.0]
    assert stats.percentile(vals, 0) == 1.0
    assert stats.percentile(vals, 100) == 4.0
    assert stats.percentile(vals, 50) == pytest.approx(2.5)
    assert stats.percentile(vals, 90) == pytest.approx(3.7)  # pos 2.7 → 3 + 0.7·1
    assert stats.percentile([], 50) is None
    with pytest.raises(ValueError):
        stats.percentile(vals, 101)


def test_median_mean_stdev() -> None:
    assert stats.median([5.0, 1.0, 3.0]) == 3.0
    assert stats.mean([1.0, 2.0, 6.0]) == 3.0
    assert stats.stdev([2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]) == pytest.approx(2.138089935)
    assert stats.stdev([1.0]) is None
    assert stats.mean([]) is None


def test_summary_fields() -> None:
    s = stats.summary([1.0, 2.0, 3.0, 4.0, 5.0])
    assert s["n"] == 5 and s["min"] == 1.0 and s["max"] == 5.0
    assert s["p50"] == 3.0 and s["mean"] == 3.0
    assert s["p90"] == pytest.approx(4.6)
    assert stats.summary([])["mean"] is None


def test_mean_of_medians_is_the_seeds_single_stream_figure() -> None:
    # prompt a: reps 10, 30, 20 → median 20; prompt b: 5, 7 → median 6; mean = 13
    assert stats.mean_of_medians({"a": [10.0, 30.0, 20.0], "b": [5.0, 7.0]}) == pytest.approx(13.0)
    # A prompt with no valid sample is left out, not averaged in as zero.
    assert stats.mean_of_medians({"a": [10.0], "b": []}) == 10.0
    assert stats.mean_of_medians({}) is None


def test_decode_tps_excludes_the_prefill_token_and_is_one_over_tpot() -> None:
    # 101 tokens, the first at TTFT 0.5 s, the last at 2.5 s: 100 decoded in 2 s
    assert figures.decode_tps(101, ttft=0.5, elapsed=2.5) == pytest.approx(50.0)
    assert figures.tpot(101, ttft=0.5, elapsed=2.5) == pytest.approx(0.02)
    assert figures.decode_tps(0, 0.5, 2.5) is None
    assert figures.decode_tps(1, 0.5, 2.5) is None  # one token: nothing decoded after the first
    assert figures.decode_tps(10, 0.5, 0.5) is None
    assert figures.decode_tps(10, None, 1.0) is None
    assert figures.tpot(1, 0.5, 2.5) is None


def test_acceptance_lengths() -> None:
    assert figures.exact_acceptance_length(accepted=300, drafts=100) == 4.0
    assert figures.exact_acceptance_length(5, 0) is None
    # 90 accepted drafts over the 30 steps the stream saw a draft grow in → 4 tokens per step
    assert figures.running_acceptance_length(90, 30) == 4.0
    assert figures.running_acceptance_length(None, 3) is None
    assert figures.running_acceptance_length(0, 0) is None  # no draft seen yet
    assert figures.running_acceptance_length(0, 5) == 1.0
    assert figures.agree(3.9, 4.0) and not figures.agree(3.0, 4.0)


def test_live_and_final_decode_rate_are_one_definition() -> None:
    live = RequestStats()
    # two tokens per chunk; a 4-token draft in every other chunk, 3 of each accepted
    for i in range(1, 7):
        drafts = (i + 1) // 2
        live.add(Chunk("x", 0.5 + 0.1 * (i - 1), draft_n=4 * drafts, draft_n_accepted=3 * drafts,
                       predicted_n=2 * i))
    assert live.ttft == 0.5 and live.tokens == 12 and live.draft_steps == 3
    assert live.decode_tps == pytest.approx(figures.decode_tps(12, 0.5, 1.0))
    assert live.running_acceptance == pytest.approx(1 + 9 / 3)
    final = live.snapshot()
    final.exact_acceptance = 2.0
    assert (final.acceptance_length, final.acceptance_source) == (2.0, "metrics")
    assert (live.acceptance_source, final.to_dict()["decode_tps"]) == ("stream", live.decode_tps)


def test_fraction_of_ideal_and_speedup() -> None:
    # seeds' shape: delivered 37.58, baseline 10.83, AL 4.471 → 0.776
    assert stats.fraction_of_ideal(37.58, 10.83, 4.471) == pytest.approx(37.58 / (10.83 * 4.471))
    assert stats.fraction_of_ideal(30.0, 10.0, 4.0) == 0.75
    assert stats.fraction_of_ideal(30.0, None, 4.0) is None
    assert stats.speedup(30.0, 10.0) == 3.0
    assert stats.speedup(30.0, 0.0) is None


def test_binomial_tolerance() -> None:
    # z·sqrt(p(1−p)/n) + 1/n with p=0.5, n=100, z=4 → 4·0.05 + 0.01
    assert stats.binomial_tolerance(0.5, 100) == pytest.approx(0.21)
    assert stats.binomial_tolerance(1.0, 50) == pytest.approx(0.02)
    assert stats.binomial_tolerance(0.5, 0) == math.inf


def test_survival_and_conditional_are_inverse() -> None:
    surv = [0.9, 0.8, 0.5, 0.3]
    cond = stats.conditional_from_survival(surv)
    assert cond == pytest.approx([0.9, 0.8 / 0.9, 0.5 / 0.8, 0.3 / 0.5])
    assert stats.survival_from_conditional(cond) == pytest.approx(surv)
    assert stats.conditional_from_survival([0.5, 0.0, 0.0]) == [0.5, 0.0, 0.0]


def test_common_prefix_fraction() -> None:
    assert stats.common_prefix_fraction("abcdef", "abcdef") == 1.0
    assert stats.common_prefix_fraction("abcXYZ", "abcdef") == 0.5
    assert stats.common_prefix_fraction("abc", "abcdef") == 0.5  # ÷ the longer text
    assert stats.common_prefix_fraction("", "") == 1.0
    assert stats.common_prefix_fraction("x", "") == 0.0


def test_balanced_assignment_runs_every_prompt_equally() -> None:
    for prompts, c in ((4, 1), (4, 2), (4, 3), (4, 8), (6, 4)):
        order = stats.balanced_assignment(prompts, c)
        assert len(order) % c == 0
        counts = [order.count(i) for i in range(prompts)]
        assert len(set(counts)) == 1, (prompts, c, counts)
    assert len(stats.balanced_assignment(4, 3)) == 12
    with pytest.raises(ValueError):
        stats.balanced_assignment(0, 2)


def test_mean_active_streams_exposes_the_tail() -> None:
    # two streams: one busy 0–10, one 0–5 → 15 s of work over a 10 s span = 1.5 streams
    assert stats.mean_active_streams([(0.0, 10.0), (0.0, 5.0)]) == pytest.approx(1.5)
    assert stats.mean_active_streams([]) is None


def test_best_k_prefers_smaller_k_on_ties() -> None:
    assert stats.best_k({2: 10.0, 4: 14.0, 8: 12.0}) == 4
    assert stats.best_k({2: 10.0, 4: 14.0, 8: 14.05}) == 4  # within 1%: tie → smaller k
    assert stats.best_k({2: 10.0, 4: 14.0, 8: 15.0}) == 8
    assert stats.best_k({2: 10.0, 4: 10.0}, tie_tol=0.0) == 2
    assert stats.best_k({2: None, 4: 0.0}) is None
