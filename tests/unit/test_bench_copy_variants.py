"""scripts/bench_copy.py's A/B helpers: the per-step phase log and the side-by-side agreement."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "scripts"))

import bench_copy  # noqa: E402
import copy_variants  # noqa: E402

LOG = REPO / "tests" / "data" / "engines" / "llamacpp_real_step_timings.log"


def test_step_lines_split_into_speculative_and_plain_steps_without_the_prompt() -> None:
    summary = bench_copy.step_summary("noise before\n" + LOG.read_text())
    assert summary is not None
    assert (summary["spec_steps"], summary["plain_steps"]) == (3, 2)
    spec = summary["spec_median"]
    assert (spec["n_batch"], spec["n_draft"], spec["n_accepted"]) == (17, 16, 16)
    assert spec["decode_ms"] == 6748.526 and spec["verify_ms"] == 0.774
    assert summary["plain_median"]["total_ms"] == 473.017  # the upper median of two
    assert bench_copy.step_summary("no step lines here") is None


def test_each_variant_is_compared_with_the_same_run_under_the_first() -> None:
    def row(config: str, tokens: list[int], tps: float) -> dict[str, object]:
        return {"config": config, "cap": 64, "workload": "w", "rep": 0, "tokens": tokens, "n": len(tokens),
                "tps": tps}

    rows = [row("ngram-mod", [1, 2, 3], 100.0), row("ngram-mod@stock", [1, 2, 3], 80.0),
            row("none", [1, 2, 3], 50.0), row("none@stock", [1, 9, 3], 50.0)]
    pairs = bench_copy.variant_agreement(rows)
    assert [(p["config"], p["variant"], p["first_difference"]) for p in pairs] == [
        ("ngram-mod", "stock", None), ("none", "stock", 1)]
    assert pairs[0]["tps_first"] / pairs[0]["tps"] == 1.25


def test_batch_size_changes_between_decoding_steps_are_counted_without_the_prompt() -> None:
    summary = bench_copy.step_summary(LOG.read_text())
    assert summary is not None
    assert summary["shape_changes"] == 2  # 17 17 13 [prompt 128] 1 1


def test_a_variant_is_its_parts_combined_and_an_unknown_part_is_refused() -> None:
    v = copy_variants.variant("steps+bs+argmax")
    assert v.env == {"LLAMA_CODER_STEP_TIMINGS": "1"}
    assert v.flags == ("-bs",)
    assert v.body == {"top_k": 0, "top_p": 1.0, "min_p": 0.0}
    assert copy_variants.variant("stock-steps") == copy_variants.variant("stock+steps")
    assert copy_variants.variant("fast").to_json() == {"env": {}, "flags": [], "body": {}}
    with pytest.raises(SystemExit, match=r"unknown variant part.*bogus"):
        copy_variants.variant("bs+bogus")
