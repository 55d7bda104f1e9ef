"""Divergence explanation: first differing token, margins per batch shape, verdict against the floor."""

from __future__ import annotations

from coder.bench import lossless
from coder.bench.lossless import Candidate


def test_first_difference() -> None:
    assert lossless.first_difference([1, 2, 3], [1, 2, 3]) is None
    assert lossless.first_difference([1, 2, 3], [1, 5, 3]) == 1
    assert lossless.first_difference([1, 2], [1, 2, 3]) == 2  # a prefix: differs where it stops


def test_margin_reads_both_candidates_and_floors_a_missing_one() -> None:
    top = [Candidate(7, "a", -0.1), Candidate(9, "b", -0.4), Candidate(3, "c", -2.0)]
    assert lossless.margin(top, 7, 9) == -0.1 - -0.4
    assert lossless.margin(top, 7, 42) == -0.1 - -2.0  # outside the top: at most the last one
    assert lossless.margin([], 7, 9) is None


def test_a_shape_that_prefers_the_speculative_token_is_within_the_floor() -> None:
    verdict, base, spread = lossless.classify({"cold": 0.3, "width 8": -0.05})
    assert verdict == "within floor" and base == 0.3 and spread is not None


def test_a_large_stable_margin_is_real_unless_plain_decoding_flips_that_far() -> None:
    margins = {"cold": 4.0, "width 1": 3.9, "width 65": 4.1}
    assert lossless.classify(margins)[0] == "real"
    assert lossless.classify(margins, global_floor=5.0)[0] == "within floor"


def test_the_noise_floor_is_the_largest_plain_vs_plain_margin() -> None:
    pairs: list[dict[str, float | None]] = [{"index": 3, "margin": -0.4}, {"index": None, "margin": None},
                                            {"index": 7, "margin": 1.1}]
    assert lossless.noise_floor(pairs) == 1.1
    stored = {"index": 5, "verdict": "real", "margins": {"cold": 0.9, "width 1": 0.8}}
    assert lossless.judge(stored, 1.1) == "within floor"
    assert lossless.judge(stored, 0.5) == "real"
    assert lossless.judge({"index": None, "verdict": "identical"}, 0.0) == "identical"
