"""Validation of model replies: each refusal reason and each accepted shape.

The replies live in tests/data/edit/ (see its README): whole files and regions in the
shapes models return, replayed through the same engine path a live stream takes.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from coder.edit.apply.files import diff_stat
from coder.edit.checks.reply import EditRefused, check_reply, elided_line, parse_fenced
from coder.edit.run.engine import EditEngine
from coder.edit.run.guard import DriftGuard
from coder.edit.run.prompt import build_messages, fence_for
from coder.edit.source.regions import find_symbol, split

DATA = Path(__file__).parents[1] / "data" / "edit"
CASES: dict[str, dict[str, str | None]] = json.loads((DATA / "cases.json").read_text())
ORIGINAL = (DATA / "ttl_cache.py.txt").read_text()


pytestmark = pytest.mark.repo_files({"ttl_cache.py": ORIGINAL})


@pytest.fixture
def repo(tmp_repo: Path) -> Path:
    """conftest's ``tmp_repo``, holding the original file committed."""
    return tmp_repo


@pytest.mark.parametrize("name", sorted(CASES))
def test_recorded_reply(name: str, repo: Path) -> None:
    case = CASES[name]
    reply = (DATA / f"{name}.reply.txt").read_text()
    engine = EditEngine(None, repo, ctx=16384)
    request = engine.prepare(repo / "ttl_cache.py", "add a docstring to get", mode=str(case["mode"]),
                             symbol=case["symbol"])
    proposal = engine.evaluate(request, reply, finish_reason=case["finish_reason"])
    if case["expect"] == "ok":
        assert proposal.ok, proposal.refusal
        compile(proposal.new, "ttl_cache.py", "exec")
        if "unchanged" in name:
            assert proposal.new == ORIGINAL and not proposal.changed and proposal.diff == ""
        else:
            assert proposal.changed
            assert '"""The live value for ``key``' in proposal.new
            # Only the docstring line is added; every other line is copied.
            assert proposal.new.replace(proposal.new.splitlines(keepends=True)[
                ORIGINAL.splitlines().index("    def get(self, key: K, default: V | None = None) -> V | None:") + 1
            ], "") == ORIGINAL
            assert diff_stat(proposal.diff) == (1, 0)
    else:
        assert not proposal.ok
        assert proposal.refusal_code == case["expect"], proposal.refusal
        assert proposal.refusal
        assert proposal.new == ORIGINAL  # a refused proposal carries the original text
    assert (repo / "ttl_cache.py").read_text() == ORIGINAL  # evaluation never writes


def test_every_refusal_code_has_a_recorded_reply() -> None:
    codes = {c["expect"] for c in CASES.values()}
    for code in ("length", "empty", "no_fence", "unclosed_fence", "multiple_blocks", "elision", "syntax",
                 "not_single_region", "wrong_region", "loop", "context_repeated", "shrunk"):
        assert code in codes


@pytest.mark.parametrize("line", [
    "# ... rest unchanged ...",
    "# existing code here",
    "// ... rest of code",
    "    # rest of the file stays the same",
    "/* remaining methods omitted for brevity */",
    "    ...",
])
def test_elision_lines_are_caught(line: str) -> None:
    assert elided_line(f"def f():\n    return 1\n{line}\n", "def f():\n    return 1\n") is not None


@pytest.mark.parametrize("line", [
    "# keep the cache unchanged when the loader raises an error and log the failure",
    "x = previous_code_here  # not a comment line",
    "value = 1",
])
def test_ordinary_lines_are_not_elision(line: str) -> None:
    assert elided_line(line + "\n", "") is None


def test_placeholder_already_in_the_original_is_allowed() -> None:
    original = "class P(Protocol):\n    def f(self) -> int:\n        ...\n"
    assert elided_line(original, original) is None


def test_fence_longer_than_backticks_in_the_file() -> None:
    text = 'DOC = """\n```python\nx = 1\n```\n"""\n'
    fence = fence_for(text)
    assert fence == "````"
    reply = f"{fence}python\n{text}{fence}\n"
    parsed = parse_fenced(reply, fence)
    assert parsed is not None and parsed.closed and parsed.body == text
    new = check_reply(reply, "stop", fence=fence, target=text, python=True)
    assert new == text


def test_python_that_did_not_parse_before_may_still_not_parse() -> None:
    broken = "def f(:\n    pass\n"
    fixed_reply = "```python\ndef f(:\n    return 1\n```\n"
    assert check_reply(fixed_reply, "stop", fence="```", target=broken, python=True) == "def f(:\n    return 1\n"


def test_length_with_closed_fence_is_still_refused() -> None:
    with pytest.raises(EditRefused) as err:
        check_reply("```\nx = 1\n```\n", "length", fence="```", target="x = 0\n")
    assert err.value.code == "length"


def test_region_splice_keeps_surrounding_bytes() -> None:
    region = find_symbol("ttl_cache.py", ORIGINAL, "TTLCache.put")
    parts = split(ORIGINAL, region)
    new_region = parts.target.replace("life = self.ttl", "life: float = self.ttl")
    reply = f"```python\n{textwrap.dedent(new_region)}```\n"
    new = check_reply(reply, "stop", fence="```", target=parts.target, before=parts.before,
                      after=parts.after, python=True, region_kind="function", region_name="put")
    assert new == parts.before + new_region + parts.after


def test_prompt_has_one_verbatim_copy_and_instruction_last() -> None:
    prompt = build_messages("pkg/ttl_cache.py", ORIGINAL, "add a docstring", repo_context="Repository: x\n")
    user = prompt.messages[-1]["content"]
    assert user.count(ORIGINAL) == 1
    assert user.rstrip().endswith("nothing else.") and user.index("Instruction:") > user.index(ORIGINAL)
    assert "  1 " not in user and "1: " not in user  # no line numbers
    again = build_messages("pkg/ttl_cache.py", ORIGINAL + "x = 1\n", "other", repo_context="Repository: x\n")
    # Stable prefix: system prompt and everything up to the file block are identical.
    assert again.messages[0] == prompt.messages[0]
    head = user[: user.index("```")]
    assert again.messages[-1]["content"].startswith(head)


def test_loop_guard_is_on_and_drift_guard_is_opt_in() -> None:
    loop = "".join("#!\n" for _ in range(60))
    assert DriftGuard(ORIGINAL).drifted(loop)
    refusal = DriftGuard(ORIGINAL).check(loop)
    assert refusal is not None and refusal.code == "loop"
    assert not DriftGuard(ORIGINAL).drifted(ORIGINAL)
    novel = "".join(f"line_{i} = {i}\n" for i in range(60))  # new but varied code is fine by default
    assert not DriftGuard(ORIGINAL).drifted(novel)
    drift = DriftGuard(ORIGINAL, drift=True, window=10, max_novel=0.8).check(novel)
    assert drift is not None and drift.code == "drift"
    assert DriftGuard(ORIGINAL, drift=True).check(ORIGINAL) is None


def test_region_rename_passes_the_guard_only_when_asked_and_leaves_no_call_behind(repo: Path) -> None:
    engine = EditEngine(None, repo, ctx=16384)
    region = split(ORIGINAL, find_symbol("ttl_cache.py", ORIGINAL, "TTLCache.get")).target
    renamed = "```python\n" + region.replace("def get(", "def fetch(") + "```\n"
    asked = engine.prepare(repo / "ttl_cache.py", "rename get to fetch", mode="region", symbol="TTLCache.get")
    # the guard lets the asked rename through; get_or_compute still calls self.get, outside the region, so the
    # renamed def alone breaks it (checks.lost_members, run 18)
    got = engine.evaluate(asked, renamed, finish_reason="stop")
    assert got.refusal_code == "missing_attribute" and "still uses self.get," in (got.refusal or "")
    not_asked = engine.prepare(repo / "ttl_cache.py", "simplify", mode="region", symbol="TTLCache.get")
    proposal = engine.evaluate(not_asked, renamed, finish_reason="stop")
    assert proposal.refusal_code == "wrong_region" and "fetch" in (proposal.refusal or "")


RECORDED = sorted((DATA / "recorded").glob("*.json")) if (DATA / "recorded").is_dir() else []


@pytest.mark.parametrize("verdict_path", RECORDED, ids=[p.stem for p in RECORDED])
def test_replies_recorded_from_the_demo_model(verdict_path: Path, tmp_path: Path) -> None:
    """Real SmolLM2 replies (scripts/bench_edit.py --record) get the verdict they got when recorded."""
    verdict = json.loads(verdict_path.read_text())
    root = tmp_path / "r"
    root.mkdir()
    (root / verdict["file"]).write_text((DATA / "recorded" / f"{verdict['file']}.txt").read_text())
    engine = EditEngine(None, root, ctx=32768)
    request = engine.prepare(root / verdict["file"], verdict["instruction"], mode=verdict["mode"],
                             symbol=verdict["symbol"])
    reply = (verdict_path.parent / f"{verdict_path.stem}.reply.txt").read_text()
    proposal = engine.evaluate(request, reply, finish_reason=verdict["finish_reason"])
    assert proposal.ok == verdict["ok"]
    assert proposal.refusal_code == verdict["refusal_code"]
    if not proposal.ok:
        assert (root / verdict["file"]).read_text() == request.snapshot.text


def test_recorded_replies_exist() -> None:
    assert RECORDED, "tests/data/edit/recorded/ holds replies captured from the demo model"


def test_loop_guard_catches_known_lines_but_allows_repetitive_originals() -> None:
    looping = "".join("(\n    (self - cut) | (cut - self)\n),\n" for _ in range(30))  # recorded SmolLM2 shape
    assert DriftGuard(ORIGINAL).check(looping) is not None
    table = "DATA = [\n" + "    0,\n" * 80 + "]\n"  # an original that is itself repetitive
    assert DriftGuard(table).check(table) is None


def test_loop_inside_one_line_is_caught_but_copied_rules_are_not() -> None:
    runaway = "def f(filename: str" + ", filename: str" * 20
    refusal = DriftGuard(ORIGINAL).check_tail(runaway)
    assert refusal is not None and refusal.code == "loop"
    ruled = "# " + "=" * 78 + "\nx = 1\n"
    assert DriftGuard(ruled).check_tail("# " + "=" * 78) is None  # the original has this rule
    assert DriftGuard(ORIGINAL).check_tail(ORIGINAL) is None


def test_shrinking_is_fine_when_the_instruction_asks_for_it(repo: Path) -> None:
    engine = EditEngine(None, repo, ctx=16384)
    short = '```python\n"""A cache."""\n\n\nclass TTLCache:\n    pass\n```\n'
    asked = engine.prepare(repo / "ttl_cache.py", "remove everything but a stub class", mode="full")
    assert engine.evaluate(asked, short, finish_reason="stop").ok
    not_asked = engine.prepare(repo / "ttl_cache.py", "add type hints", mode="full")
    assert engine.evaluate(not_asked, short, finish_reason="stop").refusal_code == "shrunk"


def _stream_lines(guard: DriftGuard, body: str, step: int = 4) -> tuple[int, EditRefused] | None:
    """Feed ``body`` as a stream does (a few characters per chunk: the tail check after each,
    the line checks after each newline); (offset, refusal) at the first stop."""
    for at in range(step, len(body) + step, step):
        piece = body[at - step:at]
        if (refusal := guard.check_tail(body[:at])) or (
                "\n" in piece and (refusal := guard.check(body[:at]))):
            return at, refusal
    return None


# Real files whose copies repeat lines: a decoding table, generated token constants, a test
# module with runs of near-identical assertions, an HTML entity table.
REPETITIVE_REAL_FILES = ["encodings/cp1252.py", "token.py", "test/test_fnmatch.py", "html/entities.py",
                         "lib2to3/pgen2/grammar.py", "colorsys.py"]


@pytest.mark.parametrize("rel", REPETITIVE_REAL_FILES)
def test_loop_guard_never_stops_a_faithful_copy_of_a_repetitive_real_file(rel: str) -> None:
    import sysconfig

    path = Path(sysconfig.get_paths()["stdlib"]) / rel
    if not path.exists():
        pytest.skip(f"{rel} is not in this Python's standard library")
    text = path.read_text()[:60_000]
    text = text[: text.rfind("\n") + 1]
    assert _stream_lines(DriftGuard(text), text) is None


def test_repeating_block_is_stopped_within_a_few_hundred_tokens() -> None:
    from coder.tokens import estimate

    reply = (DATA / "recorded" / "intervals_region_loop.reply.txt").read_text()
    body = reply[reply.index("\n") + 1:]
    original = (DATA / "recorded" / "intervals.py.txt").read_text()
    region = split(original, find_symbol("intervals.py", original, "IntervalSet.__sub__")).target
    stopped = _stream_lines(DriftGuard(region), body)
    assert stopped is not None and stopped[1].code == "loop"
    assert estimate(body[: stopped[0]]) <= 160  # the 24-line window alone needed ~200
    # a copy of the region itself is never a loop
    assert _stream_lines(DriftGuard(region), region) is None


def test_a_copy_is_allowed_as_many_repeats_as_the_original_has_and_no_more() -> None:
    original = "rows = [\n" + "    (0, 0),\n    (1, 1),\n" * 6 + "]\n"
    guard = DriftGuard(original)
    assert _stream_lines(guard, original) is None
    runaway = "rows = [\n" + "    (0, 0),\n    (1, 1),\n" * 12
    stopped = _stream_lines(DriftGuard(original), runaway)
    assert stopped is not None and "copies of 2 line(s)" in stopped[1].reason


LOOPS = [p for p in RECORDED if json.loads(p.read_text())["refusal_code"] == "loop"]


@pytest.mark.parametrize("verdict_path", LOOPS, ids=[p.stem for p in LOOPS])
def test_recorded_loops_are_stopped_within_a_few_hundred_tokens(verdict_path: Path) -> None:
    """Every real looping reply recorded from the demo model is cut by the stream guard early."""
    from coder.tokens import estimate

    verdict = json.loads(verdict_path.read_text())
    original = (DATA / "recorded" / f"{verdict['file']}.txt").read_text()
    target = original if verdict["mode"] == "full" else split(
        original, find_symbol(verdict["file"], original, verdict["symbol"])).target
    reply = (verdict_path.parent / f"{verdict_path.stem}.reply.txt").read_text()
    body = reply[reply.index("\n") + 1:]
    stopped = _stream_lines(DriftGuard(target), body)
    assert stopped is not None and stopped[1].code == "loop"
    assert estimate(body[: stopped[0]]) <= 500  # each ran hundreds to thousands of tokens more unguarded


@pytest.mark.parametrize("module", ["fnmatch", "genericpath", "shlex"])
def test_an_edit_that_adds_the_same_new_line_everywhere_is_not_a_loop(module: str) -> None:
    """A legitimate edit repeats a new line many times (a log call in every function): not stopped."""
    import importlib
    import inspect

    original = Path(inspect.getsourcefile(importlib.import_module(module)) or "").read_text()
    edited = []
    for line in original.splitlines(keepends=True):
        edited.append(line)
        if line.lstrip().startswith("def ") and line.rstrip().endswith(":"):
            indent = line[: len(line) - len(line.lstrip())] + "    "
            edited.append(f'{indent}log.debug("called")\n')
            edited.append(f"{indent}_calls += 1\n")
    assert _stream_lines(DriftGuard(original), "".join(edited)) is None


def test_pinned_greet_reply_replays_to_the_pinned_file(tmp_path: Path) -> None:
    """The demo model's recorded reply (tests/test_edit_server.py pins it live) validates to the
    recorded file offline, so a validator change that would refuse or alter it fails here too."""
    recorded = Path(__file__).parents[1] / "data" / "edit" / "recorded"
    target = tmp_path / "greet.py"
    target.write_text((recorded / "greet.py.txt").read_text())
    engine = EditEngine(None, tmp_path, ctx=4096)
    request = engine.prepare(target, "Add a docstring to the function main", mode="full")
    proposal = engine.evaluate(request, (recorded / "greet_docstring.reply.txt").read_text(), finish_reason="stop")
    assert proposal.ok, proposal.refusal
    assert proposal.new == (recorded / "greet_docstring.py.txt").read_text()
    assert proposal.changed
