"""The H200's run 7 (2026-12-03) edits applied wrong, replayed through today's reading, checks and retry.

``tests/data/edit/h200_1203/run7_wrong.json`` holds Qwen2.5-Coder-1.5B's replies (auto mode); each request of
the replay, the retry's and the samples' included, gets the recorded reply (:class:`ScriptedStream`), and the
task's judge says what an applied result is. Three general rules refuse five of the nine: a fix that only
adds a raise where no error was reported (:mod:`coder.edit.checks.guards`), the bytes twin of a str example
for a function that handles bytes, and the text a new ``__repr__`` is said to show
(:mod:`coder.edit.intent.examples`). Run 8 (same replies) added two: a format that asks the repr of a string
(``Template(<repr of the template string>)``), run on a sample string, and a wrapper's name that means the
method it hands back the value of (:mod:`coder.edit.intent.names`). The other three are pinned as still wrong.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import make_repo

from coder.bench.edits.run import proposed
from coder.bench.edits.tasks import TASKS
from coder.bench.edits.tasks_heldout import HELDOUT
from coder.edit.checks.guards import only_guards_added
from coder.edit.intent.examples import bytes_twins, examples_in, shown_as
from coder.edit.intent.read import read_instruction
from coder.edit.intent.spec import Example
from coder.edit.intent.symbols import SymbolTable
from coder.edit.proposal import EditRequest
from coder.edit.run import agree
from coder.edit.run import engine as engine_module
from coder.edit.run.engine import EditEngine
from coder.edit.run.plan_run import PlanRequest, prepare, run_plan
from coder.edit.run.sample import SAMPLES
from coder.errors import CoderError
from coder.testing.replies import ScriptedModel, ScriptedStream, streamed

DATA = Path(__file__).parents[1] / "data" / "edit" / "h200_1203" / "run7_wrong.json"
ROWS = {(r["task"], r["wording"]): r for r in json.loads(DATA.read_text())["rows"]}
TASK = {t.name: t for t in (*TASKS, *HELDOUT)}


def _replayed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, wording: int,
              row: dict[str, Any] | None = None) -> tuple[str, str, int]:
    """(outcome, why, requests made) of the recorded pair as ``coder edit --yes`` decides it now (``row``: its
    replies in place of the recorded ones)."""
    task, row = TASK[name], row or ROWS[(name, wording)]
    root = tmp_path / "r"
    originals = task.originals()
    make_repo(root, originals)
    engine = EditEngine(None, root, ctx=32768, run_examples=True)
    try:
        request = prepare(engine, root / task.file, row["instruction"])
    except CoderError as exc:
        return "refused", str(exc), 0
    if isinstance(request, PlanRequest):
        model = ScriptedModel(engine, [s["reply"] for s in row["step_replies"] for _ in range(2 + SAMPLES)])
        proposal = run_plan(engine, request, model)
        asked = len(model.asked)
    else:
        stream = ScriptedStream([row["reply"]] * (2 + SAMPLES))  # the samples after a fix's retry, too
        monkeypatch.setattr(engine_module, "stream_edit", stream)
        assert isinstance(request, EditRequest)
        proposal = streamed(engine, request)
        asked = len(stream.asked)
    if not proposal.ok or (proposal.scope is not None and not proposal.scope.ok):
        return "refused", str(proposal.refusal or (proposal.scope and proposal.scope.refusal())), asked
    ok, why = task.judge(originals, {**originals, **proposed(proposal, root)})
    return ("correct" if ok else "wrong"), why, asked


AGREED = 1 + agree.PASSING  # a change nothing checks: the reply and the samples that agree with it
GUARD = ("the instruction reports no error to raise, but the reply only adds a check that raises one "
         "(`if event not in self._queue`): what the code computes is unchanged")


@pytest.mark.parametrize(("name", "wording", "outcome", "why", "asked"), [
    # a ValueError guard added, the order left wrong: refused after the one retry
    ("bug-sched-cancel", 0, "refused", GUARD, 2),
    ("bug-sched-cancel", 2, "refused", GUARD, 2),
    ("bug-sched-cancel", 1, "correct", "2 behaviour case(s) right, the rest unchanged", AGREED),
    # `path == ''` mends _ishidden('') and not the bytes twin the function's own code handles; the example
    # fails on the code as it is, so the retry is sampled (coder.edit.run.sample), each sample given that reply
    ("glob-fix", 2, "refused", "after the edit, _ishidden(b'') still raises IndexError; the instruction expects False",
     2 + SAMPLES),
    ("glob-fix", 0, "correct", "5 behaviour case(s) right, the rest unchanged", AGREED),
    ("glob-fix", 1, "correct", "5 behaviour case(s) right, the rest unchanged", AGREED),
    # the repr the instruction shows, run on the new __repr__
    ("string-method", 0, "refused", "after the edit, repr(Template('hello $name')) returns "
     "'Template(\"hello $name\")'; the instruction expects \"Template('hello $name')\"", 2 + SAMPLES),
    # "repeat" names the function repeat, which hands back what the method it wraps, Timer.repeat, returns: a
    # change of what it returns is made where the list is built, so the region is Timer.repeat's, and the
    # wrapper the reply rewrote (run 7 and run 8 alike) is no reply for it
    ("timeit-behaviour", 1, "refused", "the reply has 6 code lines where the original has 23, and the instruction "
     "does not ask to remove code", 1),
    ("timeit-behaviour", 0, "correct", "3 behaviour case(s) right, the rest unchanged", AGREED),
    # the format "Template(<repr of the template string>)", run on a sample string: the string shown bare
    ("string-method", 1, "refused", "after the edit, repr(Template(template='s0')) returns 'Template(s0)'; the "
     "instruction expects \"Template('s0')\"", 2 + SAMPLES),
    # no example at all: the agreement check (coder.edit.run.agree) samples them, but a sample here is the recorded
    # reply again, so the samples agree with it; the H200's own samples disagreed and refused all three (run 10,
    # tests/unit/test_agree.py replays real samples)
    ("tabnanny-method", 0, "wrong", "m.Whitespace('\\tx = 1').is_mixed() gives True, not False", AGREED),
    ("tabnanny-method", 1, "wrong", "m.Whitespace('    ').is_mixed() gives True, not False", AGREED),
    ("bug-tabnanny-level", 1, "wrong", "m.Whitespace('\\t').indent_level(8) gives 1, not 8", AGREED),
])
def test_run7s_pair_is_decided_as_pinned(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, wording: int,
                                         outcome: str, why: str, asked: int) -> None:
    assert _replayed(tmp_path, monkeypatch, name, wording) == (outcome, why, asked)


F = "def f(xs, x):\n    xs.remove(x)\n    return xs\n"
GUARDED = "def f(xs, x):\n    if x not in xs:\n        raise ValueError('no')\n    xs.remove(x)\n    return xs\n"


@pytest.mark.parametrize(("instruction", "new", "refused"), [
    ("f leaves the list out of order after a removal", GUARDED, True),
    ("f should raise ValueError when x is missing", GUARDED, False),  # an error asked for
    ("f crashes when x is missing", GUARDED, False),
    ("f should reject an x that is not in xs", GUARDED, False),
    ("f leaves the list out of order", GUARDED.replace("    return xs", "    xs.sort()\n    return xs"), False),
    ("f leaves the list out of order", F.replace("    return xs", "    assert xs\n    return xs"), True),
    # a guard that returns is a fix of its own ("_ishidden('') should return False")
    ("f leaves the list out of order", GUARDED.replace("raise ValueError('no')", "return xs"), False),
])
def test_only_a_new_raise_for_a_report_without_an_error_is_refused(instruction: str, new: str, refused: bool) -> None:
    spec = read_instruction(instruction, {"m.py": F}, home="m.py")
    assert (only_guards_added(F, new, spec) is not None) is refused


HIDDEN = "def hidden(path):\n    return path[0] in ('.', b'.'[0])\n\ndef first(s):\n    return s[0] == 'x'\n"


def test_a_str_example_gets_its_bytes_twin_only_where_the_function_handles_bytes() -> None:
    table = SymbolTable.of({"m.py": HIDDEN}, "m.py")
    found = examples_in("hidden('') raises IndexError, it should return False; first('') raises IndexError too",
                        table)
    assert bytes_twins(found, HIDDEN) == (Example("hidden(b'')", expected="False", raises="IndexError"),)
    said = examples_in("hidden('.x') returns 'yes' instead of True", table)
    assert bytes_twins(said, HIDDEN) == ()  # a str said of the result: the bytes call's value is not known


TEMPLATE = "class T:\n    def __init__(self, s):\n        self.s = s\n"


@pytest.mark.parametrize(("instruction", "examples"), [
    ("give T a __repr__ so printing one shows T('hi')", (Example("repr(T('hi'))", expected="\"T('hi')\""),)),
    ("give T a __str__ so that printing one looks like T(1)", (Example("str(T(1))", expected="'T(1)'"),)),
    ("add a __repr__ method to T: it should look like T(1)", (Example("repr(T(1))", expected="'T(1)'"),)),
    ("add __repr__ to T, format: T(<repr of s>)", ()),  # a format, the type of s not said: no sample guessed
    ("add a __repr__ to T so that T('a') shows as T(s='a')", ()),  # two calls: which is the text is not guessed
    ("add a size method to T that returns len(T('ab').s)", ()),  # no __repr__ asked
])
def test_a_new_repr_is_held_to_the_one_call_it_is_said_to_show(instruction: str,
                                                                examples: tuple[Example, ...]) -> None:
    spec = read_instruction(instruction, {"m.py": TEMPLATE}, home="m.py")
    assert spec.examples == examples
    new = ("__str__",) if "__str__" in instruction else ("__repr__",)
    assert shown_as(instruction, SymbolTable.of({"m.py": TEMPLATE}, "m.py"), new, "T") == examples


PAIR = "class P:\n    def __init__(self, key, value=None):\n        self.key, self.value = key, value\n"


@pytest.mark.parametrize(("instruction", "examples"), [
    # a format whose placeholders ask the repr of strings, each named by its parameter: run on sample strings
    ("add __repr__ to P, format: P(<repr of the key string>, <repr of the value string>)",
     (Example("repr(P(key='s0', value='s1'))", expected="\"P('s0', 's1')\""),)),
    ("add __repr__ to P, format: P(<repr of the value string>, <repr of the key string>)",
     (Example("repr(P(value='s0', key='s1'))", expected="\"P('s0', 's1')\""),)),
    ("add __repr__ to P, format: P(<the key string>, <the value string>)", ()),  # no repr asked: quotes not said
    ("add __repr__ to P, format: P(<repr of the key>, <repr of the value>)", ()),  # no type said: no sample
    ("add __repr__ to P, format: P(<repr of the key string>)", ()),  # value left out: its text is not known
])
def test_a_new_repr_is_held_to_a_format_that_asks_the_repr_of_its_strings(instruction: str,
                                                                           examples: tuple[Example, ...]) -> None:
    assert shown_as(instruction, SymbolTable.of({"m.py": PAIR}, "m.py"), ("__repr__",), "P") == examples


WRAPS = ("class W:\n    def fill(self, text):\n        return text\n\n"
         "def fill(text, width=70):\n    return W().fill(text)\n")


@pytest.mark.parametrize(("instruction", "targets", "ambiguous", "text"), [
    ("fill() should strip the text", ("W.fill",), (), WRAPS),  # what the wrapper returns is built by the method
    # a wrapper that does something to the method's value of its own: either may be meant, the model reads it
    ("fill() should strip the text", (), ("fill",), WRAPS.replace("W().fill(text)", "W().fill(text).upper()")),
    ("add a docstring to fill", ("fill",), (), WRAPS),  # not a change of behaviour: the function
    ("change the default width of fill from 70 to 80", ("fill",), (), WRAPS),  # a parameter only the function takes
    ("make the method fill of W strip the text", ("W.fill",), (), WRAPS),
])
def test_a_wrappers_name_means_the_method_for_a_change_of_what_it_returns(
        instruction: str, targets: tuple[str, ...], ambiguous: tuple[str, ...], text: str) -> None:
    spec = read_instruction(instruction, {"m.py": text}, home="m.py")
    assert (tuple(s.qualname for s in spec.targets), spec.ambiguous) == (targets, ambiguous)


def test_the_grammar_reads_the_wrapped_method_without_asking_the_model() -> None:
    task, row = TASK["timeit-behaviour"], ROWS[("timeit-behaviour", 1)]
    asked: list[str] = []

    def ask(messages: list[dict[str, str]], schema: dict[str, object], max_tokens: int) -> str:
        asked.append(messages[-1]["content"])
        return '{"action": "change", "target": "repeat"}'  # run 8's reading: the wrapper

    spec = read_instruction(row["instruction"], task.originals(), home=task.file, ask=ask)
    assert [s.qualname for s in spec.targets] == ["Timer.repeat"] and spec.read_by == "grammar" and not asked


def _with_reply(name: str, wording: int, old: str, new: str) -> dict[str, Any]:
    """The recorded row of ``(name, wording)`` with ``old`` replaced by ``new`` in its replies."""
    row = ROWS[(name, wording)]
    steps = [{**s, "reply": s["reply"].replace(old, new)} for s in row["step_replies"] or ()]
    return {**row, "reply": row["reply"] and row["reply"].replace(old, new), "step_replies": steps}


@pytest.mark.parametrize(("name", "wording", "row"), [
    # Timer.repeat sorted, as the model wrote it for wording 0, now asked under wording 1
    ("timeit-behaviour", 1, {**ROWS[("timeit-behaviour", 1)], "reply": ROWS[("timeit-behaviour", 0)]["reply"]}),
    # the recorded reply with its return line as the model wrote it in run 4 (judged correct), and with !r
    ("string-method", 1, _with_reply("string-method", 1, "f'Template({self.template})'",
                                     "f\"Template('{self.template}')\"")),
    ("string-method", 1, _with_reply("string-method", 1, "{self.template}", "{self.template!r}")),
])
def test_a_right_reply_passes_the_rules_that_refuse_run8s_wrong_ones(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                      name: str, wording: int,
                                                                      row: dict[str, Any]) -> None:
    outcome, why, _ = _replayed(tmp_path, monkeypatch, name, wording, row)
    assert outcome == "correct", why
