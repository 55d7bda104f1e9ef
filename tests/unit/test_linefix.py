"""A bug fix answered unchanged: the second try asks which line is wrong (coder.edit.run.linefix).

The question's text and schema, and what coder does with an answer: the answer strings below are inputs written
here, in the schema's form (the server's constrained JSON); the one marked so is a real reply of
Qwen2.5-Coder-1.5B (CPU llama-server, 2026-12-03), which echoed a line unchanged.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from cli_helpers import make_repo

from coder.bench.edits.taskdef import source
from coder.bench.edits.tasks import TASKS
from coder.edit.intent.model_read import Asker
from coder.edit.proposal import UNCHANGED, EditProposal, EditRequest
from coder.edit.run import linefix
from coder.edit.run.engine import EditEngine
from coder.edit.run.prompt import predicted_reply
from coder.edit.run.retry import asks_the_line

TASK = {t.name: t for t in TASKS}
# real: the 1.5B's answer for bug-colorsys-hue w0 on the CPU server, line 86 as it stands
ECHOED = '{\n  "line": 86,\n  "fixed": "s = rangec / (2.0-maxc-minc)  # Not always 2.0-sumc: gh-106498."\n}'


def _request(tmp_path: Path, name: str, wording: int = 0) -> tuple[EditEngine, EditRequest]:
    task = TASK[name]
    make_repo(tmp_path / "r", {task.file: source(task.file)})
    engine = EditEngine(None, tmp_path / "r", ctx=32768, run_examples=True)
    request = engine.prepare(tmp_path / "r" / task.file, task.wordings[wording], mode="auto")
    assert request.mode == "region" and request.region is not None
    return engine, request


def _asked(answer: str, seen: list[tuple[list[dict[str, str]], dict[str, object]]]) -> Asker:
    def ask(messages: list[dict[str, str]], schema: dict[str, object], max_tokens: int) -> str:
        seen.append((messages, schema))
        assert max_tokens == linefix.MAX_TOKENS
        return answer
    return ask


def test_the_question_numbers_the_region_and_its_schema_names_only_code_lines(tmp_path: Path) -> None:
    _, request = _request(tmp_path, "bug-colorsys-hue")
    messages, schema = linefix.question(request, "rgb_to_hls(1.0, 0.0, 0.5) returns -0.083")
    user = messages[1]["content"]
    assert "75| def rgb_to_hls(r, g, b):\n" in user and "96|     h = h/6.0\n" in user
    assert "What the code does now: rgb_to_hls(1.0, 0.0, 0.5) returns -0.083" in user
    props = schema["properties"]
    assert isinstance(props, dict)
    assert props["line"]["enum"] == list(range(75, 98))  # the function's 23 lines, each code
    assert props["why"] == {"type": "string", "maxLength": linefix.WHY_CHARS}
    assert schema["required"] == ["why", "line", "fixed"] and schema["additionalProperties"] is False
    assert "Say in one sentence what goes wrong, then which one line is wrong" in user
    messages, schema = linefix.question(request, "", explain=False)
    assert schema["required"] == ["line", "fixed"] and "What the code does now" not in messages[1]["content"]


@pytest.mark.parametrize("answer", [
    "not json", "[]", '{"line": 74, "fixed": "x"}', '{"line": "96", "fixed": "x"}', '{"line": 96, "fixed": "  "}',
    '{"line": 96}', json.dumps({"line": 96, "fixed": "\n".join(["x = 1"] * 13)}),
])
def test_an_answer_outside_the_schema_or_the_region_is_no_answer(tmp_path: Path, answer: str) -> None:
    _, request = _request(tmp_path, "bug-colorsys-hue")
    assert linefix.parse(answer, request) is None


def test_the_answer_is_put_at_the_lines_indentation(tmp_path: Path) -> None:
    _, request = _request(tmp_path, "bug-colorsys-hue")
    fix = linefix.parse('{"line": 96, "fixed": "h = (h/6.0) % 1.0"}', request)
    assert fix == linefix.LineFix(96, "h = (h/6.0) % 1.0")
    target = linefix.target_with(request, fix)
    assert target == request.prompt.target.replace("    h = h/6.0\n", "    h = (h/6.0) % 1.0\n")


def test_lines_added_with_the_line_keep_their_own_nesting(tmp_path: Path) -> None:
    _, request = _request(tmp_path, "bug-shlex-quote")
    assert request.region is not None
    row = next(request.region.start + i for i, line in enumerate(request.prompt.target.splitlines())
               if "_find_unsafe(s) is None" in line)
    answer = json.dumps({"line": row, "fixed": "if not s:\n    return \"''\"\nif _find_unsafe(s) is None:"})
    fix = linefix.parse(answer, request)
    assert fix is not None
    target = linefix.target_with(request, fix)
    assert target is not None
    assert "    if not s:\n        return \"''\"\n    if _find_unsafe(s) is None:\n" in target


def test_a_real_answer_that_echoes_its_line_is_no_fix(tmp_path: Path) -> None:
    engine, request = _request(tmp_path, "bug-colorsys-hue")
    seen: list[tuple[list[dict[str, str]], dict[str, object]]] = []
    assert linefix.answered(request, UNCHANGED, _asked(ECHOED, seen), _evaluate(engine, request)) is None
    assert len(seen) == 1


def _evaluate(engine: EditEngine, request: EditRequest) -> Callable[[str], EditProposal]:
    return lambda reply: engine.evaluate(request, reply, finish_reason="stop")


def test_an_answer_that_fixes_the_line_is_judged_as_a_reply_and_says_it_was_the_question(tmp_path: Path) -> None:
    engine, request = _request(tmp_path, "bug-colorsys-hue")
    why = f"{UNCHANGED}; rgb_to_hls(1.0, 0.0, 0.5) still returns -0.083"
    proposal = linefix.answered(request, why, _asked('{"line": 96, "fixed": "    h = (h/6.0) % 1.0"}', []),
                                _evaluate(engine, request))
    assert proposal is not None and proposal.ok and proposal.scope is not None and proposal.scope.ok
    assert proposal.retried == f"{why}; asked which line is wrong instead: line 96"
    task = TASK["bug-colorsys-hue"]
    assert task.check(source(task.file), proposal.new) == (True, "4 behaviour case(s) right, the rest unchanged")


def test_an_answer_that_changes_only_the_layout_is_refused_as_a_reply_would_be(tmp_path: Path) -> None:
    engine, request = _request(tmp_path, "bug-colorsys-hue")
    proposal = linefix.answered(request, UNCHANGED, _asked('{"line": 96, "fixed": "h = h / 6.0"}', []),
                                _evaluate(engine, request))
    assert proposal is not None and not proposal.ok
    assert proposal.refusal == "the instruction asks to change code, but the reply changes only blank lines, " \
        "comments or layout"


def test_only_a_fix_answered_unchanged_is_asked_for_its_line(tmp_path: Path) -> None:
    engine, request = _request(tmp_path, "bug-colorsys-hue")
    unchanged = engine.evaluate(request, predicted_reply(request.prompt), finish_reason="stop")
    assert asks_the_line(("unchanged", UNCHANGED), unchanged)
    assert not asks_the_line(("unexplained", "flagged"), unchanged)
    task = TASK["colorsys-docstring"]
    make_repo(tmp_path / "d", {task.file: source(task.file)})
    other = EditEngine(None, tmp_path / "d", ctx=32768)
    doc = other.prepare(tmp_path / "d" / task.file, task.wordings[0], mode="auto")
    assert not asks_the_line(("unchanged", UNCHANGED),
                             other.evaluate(doc, predicted_reply(doc.prompt), finish_reason="stop"))


def test_the_engine_asks_the_line_in_place_of_the_second_region_request(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from types import SimpleNamespace

    from coder.edit.run import engine as engine_module
    from coder.edit.run import reading
    from coder.testing.replies import ScriptedStream

    engine, request = _request(tmp_path, "bug-colorsys-hue")
    model = ScriptedStream([predicted_reply(request.prompt)])  # the function copied back: unchanged
    monkeypatch.setattr(engine_module, "stream_edit", model)
    monkeypatch.setattr(EditEngine, "server", property(lambda self: SimpleNamespace(prediction=False)))
    seen: list[tuple[list[dict[str, str]], dict[str, object]]] = []
    monkeypatch.setattr(reading, "schema_asker",
                        lambda backend, phase, name: _asked('{"line": 96, "fixed": "h = (h/6.0) % 1.0"}', seen))
    *_, proposal = engine.run(request)
    assert isinstance(proposal, EditProposal) and proposal.ok and len(seen) == 1
    assert proposal.retried is not None and proposal.retried.endswith("asked which line is wrong instead: line 96")
    assert "+    h = (h/6.0) % 1.0\n" in proposal.diff
