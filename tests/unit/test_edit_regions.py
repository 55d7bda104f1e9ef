"""Regions (ast symbols, line ranges), auto mode, token budget, and the headless import rule."""

from __future__ import annotations

from pathlib import Path

import pytest

from coder.backends.runtime.handle import LaunchK
from coder.edit.intent.read import target_of
from coder.edit.run.budget import plan_budget
from coder.edit.run.engine import EditEngine
from coder.edit.source.regions import find_symbol, line_range, python_symbols, split
from coder.errors import CoderError
from coder.samples import JAVASCRIPT, LARGE, SMALL, sample_names, sample_path
from coder.tokens import TokenCounter, estimate

SOURCE = '''\
import functools


@functools.cache
def load(path):
    return open(path).read()


class Store:
    """Keeps things."""

    def load(self, key):
        return key

    async def save(self, key):
        return key

    class Inner:
        def load(self):
            return 1


def save():
    pass
'''


def test_python_symbols_include_decorators_and_methods() -> None:
    symbols = dict(python_symbols(SOURCE))
    assert symbols["load"].start == 4 and symbols["load"].end == 6  # decorator line included
    assert symbols["Store.load"].start == 12 and symbols["Store.load"].end == 13
    assert symbols["Store.Inner.load"].kind == "function"
    assert symbols["Store"].kind == "class" and symbols["Store"].end == 20


def test_find_symbol_qualified_bare_and_errors() -> None:
    assert find_symbol("m.py", SOURCE, "Store.save").label == "function Store.save"
    assert find_symbol("m.py", SOURCE, "Inner").kind == "class"
    assert find_symbol("m.py", SOURCE, "save").start == 23  # an exact qualified name wins
    assert find_symbol("m.py", SOURCE, "Inner.load").start == 19  # partly qualified
    no_top_load = SOURCE.replace("def load(path)", "def read(path)")
    with pytest.raises(CoderError, match=r"ambiguous.*Store\.load.*Store\.Inner\.load"):
        find_symbol("m.py", no_top_load, "load")  # two methods, no top-level function
    with pytest.raises(CoderError, match="no symbol named 'nope'"):
        find_symbol("m.py", SOURCE, "nope")
    with pytest.raises(CoderError, match="does not parse"):
        find_symbol("m.py", "def broken(:\n", "broken")


def test_line_range_bounds() -> None:
    region = line_range(SOURCE, "9-10")
    assert split(SOURCE, region).target == 'class Store:\n    """Keeps things."""\n'
    for bad, msg in [("0-3", "1 <= A"), ("5-3", "1 <= A"), ("1-999", "out of bounds"), ("a-b", "A-B")]:
        with pytest.raises(CoderError, match=msg):
            line_range(SOURCE, bad)


def test_split_round_trips() -> None:
    for _, region in python_symbols(SOURCE):
        parts = split(SOURCE, region)
        assert parts.before + parts.target + parts.after == SOURCE


def test_other_languages_use_tree_sitter_or_say_unsupported() -> None:
    with pytest.raises(CoderError, match=r"not supported for \.txt files"):
        find_symbol("notes.txt", "hello\n", "x")
    try:
        import tree_sitter  # noqa: F401
        import tree_sitter_javascript  # noqa: F401
    except ImportError:
        with pytest.raises(CoderError, match="pip install tree-sitter tree-sitter-javascript"):
            find_symbol("a.js", "function f() {}\n", "f")
    else:
        js = "class A {\n  run() {\n    return 1;\n  }\n}\n\nfunction f() {\n  return 2;\n}\n"
        assert find_symbol("a.js", js, "A.run").start == 2
        assert find_symbol("a.js", js, "f").end == 9
        topics = sample_path(JAVASCRIPT).read_text()
        publish = find_symbol(JAVASCRIPT, topics, "TopicHub.publish")
        assert split(topics, publish).target.lstrip().startswith("publish(topic, message")
        with pytest.raises(CoderError, match="ambiguous"):
            find_symbol(JAVASCRIPT, topics, "constructor")


def test_the_one_symbol_an_instruction_is_about() -> None:
    text = sample_path(SMALL).read_text()
    picked = target_of("c.py", text, "make `TTLCache.get` log misses")
    assert picked is not None and picked.qualname == "TTLCache.get"
    picked = target_of("c.py", text, "rename get_or_compute() to compute")
    assert picked is not None and picked.name == "get_or_compute"
    # Plain English "get" or "put" must not pick a method; "pop" where a name stands does.
    assert target_of("c.py", text, "put a docstring on every method and get the details right") is None
    picked = target_of("c.py", text, "get rid of pop")
    assert picked is not None and picked.name == "pop"


# conftest's tmp_repo commits the two shipped samples for every test of this module that asks for it
pytestmark = pytest.mark.repo_files({name: sample_path(name).read_text() for name in (LARGE, SMALL)})


@pytest.fixture
def sample_repo(tmp_repo: Path) -> Path:
    """conftest's ``tmp_repo``, holding the large and the small shipped sample."""
    return tmp_repo


def test_auto_picks_region_when_named_and_full_otherwise(sample_repo: Path) -> None:
    engine = EditEngine(None, sample_repo, ctx=32768)
    req = engine.prepare(sample_repo / LARGE, "speed up `IntervalSet.__and__`", mode="auto")
    assert req.mode == "region" and req.request_class == "region"
    assert req.region is not None and req.region.label == "function IntervalSet.__and__"
    assert "auto: region is faster" in req.mode_reason
    req = engine.prepare(sample_repo / LARGE, "add a module-level __all__", mode="auto")
    assert req.mode == "full" and "no region" in req.mode_reason
    # With live stats saying region decoding is 100x slower, full wins for a named symbol of a short file;
    # in a long file (313 lines) the named symbol stays a region: a long rewrite asked about one symbol drifts.
    slow_region = EditEngine(None, sample_repo, ctx=32768, mode_tps={"region": 0.1, "full": 100.0})
    req = slow_region.prepare(sample_repo / SMALL, "speed up `TTLCache.get`", mode="auto")
    assert req.mode == "full" and "auto: full is faster" in req.mode_reason
    req = slow_region.prepare(sample_repo / LARGE, "speed up `IntervalSet.__and__`", mode="auto")
    assert req.mode == "region" and "in a long file" in req.mode_reason


def test_region_prompt_holds_region_and_context_only(sample_repo: Path) -> None:
    engine = EditEngine(None, sample_repo, ctx=32768)
    req = engine.prepare(sample_repo / LARGE, "x", mode="region", symbol="allocate")
    user = req.messages[-1]["content"]
    target = split(req.snapshot.text, req.region).target  # type: ignore[arg-type]
    assert user.count(target) == 1
    assert "class IntervalSet" not in user  # far away code is not sent
    assert req.prompt.target == target


def test_mode_argument_errors(sample_repo: Path) -> None:
    engine = EditEngine(None, sample_repo, ctx=32768)
    path = sample_repo / SMALL
    with pytest.raises(CoderError, match="region mode needs"):
        engine.prepare(path, "x", mode="region")
    with pytest.raises(CoderError, match="use --mode region"):
        engine.prepare(path, "x", mode="full", symbol="TTLCache")
    with pytest.raises(CoderError, match="instruction is empty"):
        engine.prepare(path, "  ", mode="full")
    with pytest.raises(CoderError, match="unknown mode"):
        engine.prepare(path, "x", mode="diff")


def test_too_large_file_suggests_region_mode(sample_repo: Path) -> None:
    engine = EditEngine(None, sample_repo, ctx=1024)
    with pytest.raises(CoderError, match="--mode region"):
        engine.prepare(sample_repo / LARGE, "x", mode="full")
    req = engine.prepare(sample_repo / LARGE, "x", mode="region", symbol="parse_ranges")
    assert req.budget.prompt_tokens + req.budget.reply_tokens <= 1024
    # auto never picks a full rewrite that cannot fit, even when live stats favour it
    fast_full = EditEngine(None, sample_repo, ctx=1024, mode_tps={"full": 1000.0, "region": 1.0})
    req = fast_full.prepare(sample_repo / LARGE, "tidy `parse_ranges`", mode="auto")
    assert req.mode == "region" and "cannot fit" in req.mode_reason
    assert req.budget.max_tokens <= 1024 - req.budget.prompt_tokens


def test_budget_math() -> None:
    budget = plan_budget(1000, 900, 4096, mode="full", rel="f.py")
    assert budget.fits and budget.max_tokens >= budget.reply_tokens
    assert budget.prompt_tokens + budget.max_tokens <= 4096
    with pytest.raises(CoderError, match="exceed the server context"):
        plan_budget(3000, 1500, 4096, mode="full", rel="f.py")


class _ExactTokenizer:
    """Test double for the server's /tokenize: counts whitespace-separated words."""

    def tokenize(self, text: str) -> int:
        return len(text.split())


def test_token_counter_calibrates_against_the_server() -> None:
    sample = sample_path(LARGE).read_text()
    counter = TokenCounter(_ExactTokenizer())
    assert counter.count("short text") == 2 and not counter.calibrated  # too short to calibrate on
    assert counter.count(sample) == len(sample.split())
    assert counter.sample == (sample, len(sample.split()))  # kept: fitted only once estimates are needed
    ratio = len(sample.split()) / estimate(sample)
    counter.server = None  # server gone: the estimate, calibrated on the first long text, takes over
    assert counter.count(sample) == round(estimate(sample) * ratio)
    assert counter.calibrated and counter.ratio == pytest.approx(ratio) and "calibrated" in counter.source
    assert counter.calibrate(sample) == pytest.approx(ratio)
    assert TokenCounter().count("hello world") == estimate("hello world") > 0


def test_k_policies() -> None:
    assert LaunchK().choose("full").k is None
    pinned = LaunchK()
    pinned.override(3)
    choice = pinned.choose("region")
    assert (choice.k, choice.via, choice.source, choice.cap) == (3, "cap", "override", 3)
    with pytest.raises(CoderError):
        pinned.override(0)


def test_samples_are_real_and_sized() -> None:
    names = sample_names()
    assert {LARGE, SMALL, JAVASCRIPT} <= set(names)
    large = sample_path(LARGE).read_text()
    assert 200 <= len(large.splitlines()) <= 400
    compile(large, LARGE, "exec")
    assert 200 <= len(sample_path(JAVASCRIPT).read_text().splitlines()) <= 400
    with pytest.raises(FileNotFoundError):
        sample_path("../README.md")
