"""Cache warm-up: the prefix is the edit prompt's own head, and the warmer stays out of the way of edits."""

from __future__ import annotations

import shlex
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from coder.edit.run.prompt import build_messages, repo_context
from coder.edit.run.warmup.cache import CacheWarmer, Cancelled, WarmPrefix, WarmState, edit_prefix
from coder.errors import CoderError
from coder.telemetry.prefill import PromptProgress

SHLEX = Path(shlex.__file__).read_text()
CONTEXT = repo_context("demo", ["shlex.py", "README.md"])


@pytest.mark.parametrize("instruction", ["rename quote to shell_quote", "x", "Instruction: nested\n```"])
def test_prefix_is_a_strict_prefix_of_the_real_full_prompt(instruction: str) -> None:
    prefix = edit_prefix("shlex.py", SHLEX, CONTEXT)
    real = build_messages("shlex.py", SHLEX, instruction, mode="full", repo_context=CONTEXT).messages
    assert prefix.is_prefix_of(real)
    assert real[-1]["content"].startswith(prefix.messages[-1][1])
    assert prefix.messages[-1][1].endswith("Instruction: ")
    assert SHLEX[:2000] in prefix.text  # the file block is inside the prefix


def test_prefix_of_another_file_or_version_is_not_a_prefix() -> None:
    prefix = edit_prefix("shlex.py", SHLEX, CONTEXT)
    changed = build_messages("shlex.py", SHLEX.replace("def split", "def splat"), "x", repo_context=CONTEXT)
    assert not prefix.is_prefix_of(changed.messages)


class GatedSenderDouble:
    """Test double for a WarmSender: blocks until released, records what it was asked to warm."""

    def __init__(self, fail: bool = False) -> None:
        self.sent: list[str] = []
        self.gate = threading.Event()
        self.started = threading.Event()
        self.fail = fail

    def send(self, messages: list[dict[str, str]], progress: Callable[[PromptProgress], None],
             cancelled: Callable[[], bool]) -> int:
        self.sent.append(messages[-1]["content"].split("File: ", 1)[1].split("\n", 1)[0])
        self.started.set()
        progress(PromptProgress(100, 0, 50, 10.0))
        while not self.gate.wait(0.01):
            if cancelled():
                raise Cancelled
        if self.fail:
            raise CoderError("backend unreachable")
        return 100


def _prefix(rel: str) -> WarmPrefix:
    return edit_prefix(rel, SHLEX, CONTEXT)


def test_warm_then_warm_state_with_tokens() -> None:
    states: list[WarmState] = []
    sender = GatedSenderDouble()
    warmer = CacheWarmer(sender, on_state=states.append)
    warmer.warm(_prefix("a.py"))
    assert sender.started.wait(2)
    assert warmer.state.status == "warming" and "50%" in warmer.state.label()
    sender.gate.set()
    final = warmer.join(2)
    assert final.status == "warm" and final.label() == "cache: warm (100 tokens, a.py)"
    warmer.warm(_prefix("a.py"))  # already warm: nothing sent again
    assert sender.sent == ["a.py"]


def test_warm_up_asked_during_an_edit_waits_for_it() -> None:
    sender = GatedSenderDouble()
    sender.gate.set()
    warmer = CacheWarmer(sender)
    real = build_messages("b.py", SHLEX, "x", repo_context=CONTEXT).messages
    warmer.before_edit(real)
    warmer.warm(_prefix("a.py"))
    assert sender.sent == [] and warmer.state.status == "waiting"
    warmer.after_edit(real)
    assert warmer.join(2).status == "warm" and sender.sent == ["a.py"]


def test_edit_cancels_a_warm_up_of_something_else_but_awaits_its_own_prefix() -> None:
    sender = GatedSenderDouble()
    warmer = CacheWarmer(sender)
    warmer.warm(_prefix("a.py"))
    assert sender.started.wait(2)
    other = build_messages("b.py", SHLEX, "x", repo_context=CONTEXT).messages
    assert warmer.before_edit(other, timeout=2).status == "cancelled"
    warmer.after_edit(other)

    sender2 = GatedSenderDouble()
    warmer2 = CacheWarmer(sender2)
    warmer2.warm(_prefix("a.py"))
    assert sender2.started.wait(2)
    own = build_messages("a.py", SHLEX, "add a docstring", repo_context=CONTEXT).messages
    threading.Timer(0.2, sender2.gate.set).start()
    assert warmer2.before_edit(own, timeout=5).status == "warm"  # awaited: it is the edit's own prefill


def test_failed_warm_up_is_only_a_state() -> None:
    sender = GatedSenderDouble(fail=True)
    sender.gate.set()
    warmer = CacheWarmer(sender)
    warmer.warm(_prefix("a.py"))
    state = warmer.join(2)
    assert state.status == "failed" and "unreachable" in state.label()


def test_disabled_warmer_sends_nothing() -> None:
    sender = GatedSenderDouble()
    warmer = CacheWarmer(sender, enabled=False, reason_off="attached server")
    warmer.warm(_prefix("a.py"))
    assert sender.sent == [] and warmer.state.label() == "cache: no warm-up (attached server)"


def test_prompt_cache_model_estimates_the_shared_prefix() -> None:
    from coder.edit.run.warmup.cache import PromptCacheModel, prompt_text

    cache = PromptCacheModel()
    prefix = edit_prefix("shlex.py", SHLEX, CONTEXT)
    cache.record(prompt_text(prefix.as_messages()), 3000)
    real = build_messages("shlex.py", SHLEX, "add a docstring", repo_context=CONTEXT).messages
    est = cache.cached_tokens(prompt_text(real), 3020)
    assert 2900 <= est <= 3000
    other = build_messages("other.py", "x = 1\n", "add a docstring", repo_context=CONTEXT).messages
    assert cache.cached_tokens(prompt_text(other), 200) < 200  # only the system prompt and context


def test_warm_all_warms_each_file_in_order_once() -> None:
    sender = GatedSenderDouble()
    sender.gate.set()
    warmer = CacheWarmer(sender)
    warmer.warm_all([_prefix("a.py"), _prefix("b.py")])
    deadline = 50
    while (warmer.state.status != "warm" or warmer.state.rel != "b.py") and deadline:
        warmer.join(0.1)
        deadline -= 1
    assert sender.sent == ["a.py", "b.py"]
    warmer.warm_all([_prefix("a.py"), _prefix("b.py")])  # both still cached: nothing sent
    assert sender.sent == ["a.py", "b.py"]


@pytest.mark.parametrize("instruction", ["Add a docstring to the function split", "x"])
def test_region_prefix_is_a_strict_prefix_of_the_real_region_prompt(instruction: str) -> None:
    from coder.edit.run.prompt import region_prompt
    from coder.edit.source.regions import find_symbol

    region = find_symbol("shlex.py", SHLEX, "split")
    prefix = edit_prefix("shlex.py", SHLEX, CONTEXT, region)
    real, _ = region_prompt("shlex.py", SHLEX, region, instruction, repo_context=CONTEXT)
    assert prefix.is_prefix_of(real.messages)
    assert prefix.rel == "shlex.py, function split"
    assert "def split(" in prefix.text and "def quote(" not in prefix.text  # the region, not the file
    assert not edit_prefix("shlex.py", SHLEX, CONTEXT).is_prefix_of(real.messages)  # why it needs its own


def test_the_region_a_typed_instruction_names() -> None:
    from coder.edit.run.warmup.context import _named_region

    named = _named_region("shlex.py", SHLEX, "Add a docstring to the function split", "auto")
    assert named is not None and named.label == "function split"
    assert _named_region("shlex.py", SHLEX, "tidy up the imports", "auto") is None  # names nothing
    assert _named_region("shlex.py", SHLEX, "fix the function nosuch", "auto") is None  # the edit says why
    region_mode = _named_region("shlex.py", SHLEX, "make `split` faster", "region")  # /mode region's finder
    assert region_mode is not None and region_mode.label == "function split"
