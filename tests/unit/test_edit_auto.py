"""Auto mode: what an instruction names, and the wall-time prediction that picks the mode."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest
from spec_of import find_target

from coder.edit.intent.words import code_names as named_in
from coder.edit.plan.auto import CostModel, Target, decide
from coder.errors import CoderError

SHLEX = Path(shlex.__file__).read_text()  # a real 350-line stdlib module
INTERVALS = (Path(__file__).parents[1] / "data" / "edit" / "recorded" / "intervals.py.txt").read_text()


@pytest.mark.parametrize(("instruction", "label"), [
    ("Add a one-line comment above the function split saying it is a convenience wrapper", "function split"),
    ("Add a docstring to class shlex", "class shlex (its header)"),  # a long class: its header only
    ("In method shlex.read_token, add a comment above the first loop", "function shlex.read_token"),
    ("fix the off-by-one in `quote`", "function quote"),
    ("make _print_tokens() print to stderr", "function _print_tokens"),
    ("Reformat lines 10-40", "lines 10-40"),
    ("look at line 12 and fix it", "lines 12-12"),
])
def test_named_symbols_and_ranges_are_found(instruction: str, label: str) -> None:
    target = find_target("shlex.py", SHLEX, instruction)
    assert target.region is not None and target.region.label == label, target


def test_plain_words_name_nothing() -> None:
    assert named_in("Add a docstring to the class that splits words") == []
    assert find_target("shlex.py", SHLEX, "add type hints everywhere").region is None


def test_missing_symbol_gets_one_line_naming_it() -> None:
    with pytest.raises(CoderError, match=r"names parse_binding, which shlex.py does not define"):
        find_target("shlex.py", SHLEX, "fix parse_binding() so it strips quotes")
    with pytest.raises(CoderError, match=r"function splt"):
        find_target("shlex.py", SHLEX, "add a comment to the function splt")


def test_new_symbols_and_rename_targets_are_not_missing() -> None:
    assert find_target("shlex.py", SHLEX, "add a new function helper() at the end").region is None
    target = find_target("shlex.py", SHLEX, "In function join, rename the variable to `parts_out`")
    assert target.region is not None and target.region.name == "join"


def test_ambiguous_symbol_names_each_candidate() -> None:
    with pytest.raises(CoderError, match=r"'__len__', which is ambiguous: .*Interval.__len__.*IntervalSet.__len__"):
        find_target("intervals.py", INTERVALS, "add a docstring to __len__")


def test_rename_used_elsewhere_is_not_a_region() -> None:
    target = find_target("shlex.py", SHLEX, "rename quote to shell_quote")
    assert target.region is None and "outside function quote" in target.why


def test_two_named_functions_give_the_span() -> None:
    target = find_target("shlex.py", SHLEX, "make function split and function join share a docstring style")
    assert target.region is not None and target.region.kind is None
    assert target.region.start < target.region.end


def test_prediction_counts_uncached_prefill_and_decode() -> None:
    cost = CostModel({"full": 50.0, "region": 40.0}, prefill_s_per_token=0.01)
    full = cost.predict("full", "full", prompt_tokens=3400, cached_tokens=0, output_tokens=3300)
    warm = cost.predict("full", "full", prompt_tokens=3400, cached_tokens=3300, output_tokens=3300)
    assert full.total == pytest.approx(34.0 + 66.0)
    assert warm.prefill_s == pytest.approx(1.0)
    region = cost.predict("region", "region", prompt_tokens=600, cached_tokens=0, output_tokens=120)
    target = find_target("shlex.py", SHLEX, "add a comment to the function split")
    mode, reason = decide(full, region, target)
    assert mode == "region" and "region ~9.0s" in reason and "full ~100.0s" in reason


def test_cold_region_can_lose_to_a_warm_full_rewrite() -> None:
    """Prefill matters: a warm full rewrite of a short file beats a region that must be prefilled."""
    cost = CostModel({"full": 200.0, "region": 40.0}, prefill_s_per_token=0.02)
    full = cost.predict("full", "full", 800, 790, 700)
    region = cost.predict("region", "region", 500, 100, 60)
    mode, reason = decide(full, region, Target(None, "function f (named)"))
    assert mode == "full" and "predicted" in reason


def test_prefill_cost_is_learned_from_server_timings() -> None:
    cost = CostModel({"full": 50.0})
    cost.observe_timings({"prompt_n": 10, "prompt_ms": 1000.0})  # too few tokens to trust
    assert not cost.prefill_measured
    cost.observe_timings({"prompt_n": 2000, "prompt_ms": 10_000.0})
    assert cost.prefill_measured and cost.prefill_s_per_token == pytest.approx(0.005)
