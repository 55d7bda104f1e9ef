"""Validation of model replies: each refusal reason and each accepted shape.

The replies live in tests/data/edit/ (see its README): whole files and regions in the
shapes models return, replayed through the same engine path a live stream takes.
"""

from __future__ import annotations

import json
import subprocess
import textwrap
from pathlib import Path

import pytest

from coder.edit.apply import diff_stat
from coder.edit.engine import EditEngine
from coder.edit.prompt import build_messages, fence_for
from coder.edit.regions import find_symbol, split
from coder.edit.validate import DriftGuard, EditRefused, check_reply, elided_line, parse_fenced

DATA = Path(__file__).parent / "data" / "edit"
CASES: dict[str, dict[str, str | None]] = json.loads((DATA / "cases.json").read_text())
ORIGINAL = (DATA / "ttl_cache.py.txt").read_text()


def _git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A real git repository holding the original file, committed."""
    root = tmp_path / "repo"
    root.mkdir()
    _git(root, "init", "-q")
    _git(root, "config", "user.email", "test@example.invalid")
    _git(root, "config", "user.name", "test")
    (root / "ttl_cache.py").write_text(ORIGINAL)
    _git(root, "add", ".")
    _git(root, "commit", "-qm", "initial")
    return root


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
                 "not_single_region"):
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


def test_drift_guard() -> None:
    guard = DriftGuard(ORIGINAL, window=10, max_novel=0.8)
    assert not guard.drifted(ORIGINAL)
    novel = "".join(f"line_{i} = {i}\n" for i in range(30))
    assert guard.drifted(novel)
