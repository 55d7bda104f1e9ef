"""Divergence explanation: first differing token, margins per batch shape, verdict against the floor."""

from __future__ import annotations

from typing import Any

import pytest
from rich.console import Console

from coder.backends.runtime.http import Response
from coder.bench import lossless, report
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


class ConstructedServer:
    """Test double of a plain llama-server's /completion and /detokenize, answering from constructed tables.

    ``outputs[(prompt, cache_prompt)]`` is the greedy output; ``tops[context]`` the candidates after it.
    """

    def __init__(self, outputs: dict[tuple[tuple[int, ...], bool], list[int]],
                 tops: dict[tuple[int, ...], list[tuple[int, float]]]) -> None:
        self.outputs, self.tops = outputs, tops
        self.sent: list[dict[str, Any]] = []

    def post(self, path: str, body: dict[str, Any]) -> Response:
        self.sent.append(body)
        if path == "/detokenize":
            return Response(200, json={"content": f"<{body['tokens'][0]}>"})
        prompt = tuple(body["prompt"])
        if body.get("n_probs"):
            top = [{"id": t, "token": f"<{t}>", "logprob": lp} for t, lp in self.tops.get(prompt, [])]
            return Response(200, json={"completion_probabilities": [{"top_logprobs": top}]})
        tokens = self.outputs[(prompt, bool(body["cache_prompt"]))][: body["n_predict"]]
        return Response(200, json={"tokens": tokens})


def _constructed() -> tuple[ConstructedServer, dict[str, list[int]], dict[str, list[int]]]:
    prompts = {"same": [1, 2, 3], "near-tie": [4, 5], "far": [6, 7]}
    outputs = {
        # plain greedy flips at token 2 once its prompt is cached: margin 0.8 there, the noise floor
        ((1, 2, 3), False): [10, 11, 12, 13], ((1, 2, 3), True): [10, 11, 99, 13],
        ((4, 5), False): [20, 21, 22], ((4, 5), True): [20, 21, 22],
        ((6, 7), False): [40, 41], ((6, 7), True): [40, 41],
    }
    tops = {
        (1, 2, 3, 10, 11): [(12, -0.2), (99, -1.0), (7, -3.0)],
        (4, 5, 20): [(21, -0.4), (30, -0.9), (7, -3.0)],  # the speculative token 0.5 nats behind
        (6, 7): [(40, -0.01), (9, -2.5), (42, -3.01)],  # the speculative token 3 nats behind
    }
    spec = {"same": [10, 11, 12, 13], "near-tie": [20, 30, 22], "far": [42, 41]}
    return ConstructedServer(outputs, tops), prompts, spec


def test_verify_on_constructed_outputs_judges_each_prompt_against_the_plain_floor() -> None:
    server, prompts, spec = _constructed()
    seen: list[str] = []
    check = lossless.verify(server, prompts, spec, max_tokens=4, on_prompt=seen.append)
    assert seen == ["same", "near-tie", "far"]
    assert check["noise_floor"] == pytest.approx(0.8)  # plain vs plain (prompt cache reuse) flipped there
    by_name = {i["workload"]: i for i in check["items"]}
    assert by_name["same"]["verdict"] == "identical" and by_name["same"]["index"] is None
    tie = by_name["near-tie"]
    assert (tie["index"], tie["ref_token"], tie["cand_token"]) == (1, 21, 30)
    assert (tie["ref_piece"], tie["cand_piece"]) == ("<21>", "<30>")
    assert tie["margin"] == pytest.approx(0.5) and tie["verdict"] == "within floor"
    far = by_name["far"]
    assert far["index"] == 0 and far["margin"] == pytest.approx(3.0) and far["verdict"] == "real"
    assert check["real"] == 1 and check["verdicts"] == {"identical": 1, "within floor": 1, "real": 1}
    assert by_name["same"]["plain_vs_plain"] == {"index": 2, "margin": pytest.approx(0.8)}
    # the floor's second run reused the cached prompt; every speculative comparison ran cold
    assert any(b.get("cache_prompt") and b.get("n_predict") == 4 for b in server.sent)


def test_bench_report_prints_each_verdict_and_the_real_count_from_a_constructed_check() -> None:
    server, prompts, spec = _constructed()
    check = {"k": 8, "spec_type": "ngram-mod", **lossless.verify(server, prompts, spec, max_tokens=4)}
    target = {"name": "demo", "runs": [], "baseline_runs": [], "lossless_check": check, "notes": []}
    res = report.analyse(target)
    assert res["lossless"]["real_differences"] == 1 and len(res["lossless"]["divergences"]) == 3
    doc = {"settings": {"cold": True, "reps": 1, "max_tokens": 4, "temperature": 0.0}, "workloads": [],
           "environment": {"host": {"cpu": "cpu", "cores": 2}}, "results": [res], "targets": [target],
           "definitions": report.DEFINITIONS}
    console = Console(record=True, width=160)
    report.render(doc, console, definitions=False)
    out = console.export_text()
    assert "real differences: 1 (noise floor 0.800 nats" in out
    assert "token 1 of 3" in out and "'<21>'" in out and "'<30>'" in out and "within floor" in out
    assert "identical" in out and "real" in out
