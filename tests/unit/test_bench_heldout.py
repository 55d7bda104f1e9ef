"""The held-out set of ``coder bench --edits --set heldout``: two distinct wordings per task, each check
passes on a hand-written correct result and fails on the original and on plausible wrong results."""

from __future__ import annotations

import json

import pytest
from bench_sets import Edits, expected_result, plain_words

from coder.bench.edits.checks import replace_once
from coder.bench.edits.taskdef import Task, source
from coder.bench.edits.tasks_heldout import HELDOUT

BY_NAME = {t.name: t for t in HELDOUT}

# A correct result for each task whose check does not say it: edits on the task's original.
SOLUTIONS: dict[str, Edits] = {
    "reprlib-docstring": (("class Repr:\n", 'class Repr:\n    """repr() with limits on sizes and depth."""\n'),),
    "reprlib-method": (("        self.maxother = 30\n",
                        "        self.maxother = 30\n\n    def reset(self):\n        self.__init__()\n"),),
    "reprlib-comment": (("        if ' ' in typename:\n",
                         "        # 'method-wrapper' style names with spaces cannot be attribute names\n"
                         "        if ' ' in typename:\n"),),
    "quopri-hints": (("def unhex(s):", "def unhex(s: bytes) -> int:"),),
    "quopri-param": (("def quote(c):", "def quote(c, lowercase=False):"),
                     ("    return ESCAPE + bytes((HEX[c//16], HEX[c%16]))",
                      "    digits = HEX.lower() if lowercase else HEX\n"
                      "    return ESCAPE + bytes((digits[c//16], digits[c%16]))")),
    "tabnanny-docstring": (("class Whitespace:\n", 'class Whitespace:\n    """Leading whitespace, normalised."""\n'),),
    "quopri-docstring": (("def encodestring(s, quotetabs=False, header=False):\n",
                          'def encodestring(s, quotetabs=False, header=False):\n    """Encode bytes s."""\n'),),
    "quopri-comment": (("decode underscore as space (per RFC 1522).\"\"\"\n",
                        "decode underscore as space (per RFC 1522).\"\"\"\n    # the loop is a fallback\n"),),
    "string-comment": (("    return (sep or ' ').join",
                        "    # split(None) drops outer whitespace\n    return (sep or ' ').join"),),
    "string-method": (("        self.template = template\n",
                       "        self.template = template\n\n    def __repr__(self):\n"
                       "        return f'Template({self.template!r})'\n"),),
    "copy-docstring": (("                 *, deepcopy=deepcopy):\n",
                        '                 *, deepcopy=deepcopy):\n    """Rebuild x from its reduce tuple."""\n'),),
    "copy-extract": ((
        """        if deep:
            state = deepcopy(state, memo)
        if hasattr(y, '__setstate__'):
            y.__setstate__(state)
        else:
            if isinstance(state, tuple) and len(state) == 2:
                state, slotstate = state
            else:
                slotstate = None
            if state is not None:
                y.__dict__.update(state)
            if slotstate is not None:
                for key, value in slotstate.items():
                    setattr(y, key, value)
""", """        if deep:
            state = deepcopy(state, memo)
        _apply_state(y, state)
"""), ("def _reconstruct(", """def _apply_state(y, state):
    if hasattr(y, '__setstate__'):
        y.__setstate__(state)
    else:
        if isinstance(state, tuple) and len(state) == 2:
            state, slotstate = state
        else:
            slotstate = None
        if state is not None:
            y.__dict__.update(state)
        if slotstate is not None:
            for key, value in slotstate.items():
                setattr(y, key, value)

def _reconstruct(""")),
    "copy-hints": (("def _keep_alive(x, memo):", "def _keep_alive(x: object, memo: dict[int, object]) -> None:"),),
    "tabnanny-hints-all": (("    def __init__(self, lineno, msg, line):",
                            "    def __init__(self, lineno: int, msg: str, line: str) -> None:"),
                           ("    def get_lineno(self):", "    def get_lineno(self) -> int:"),
                           ("    def get_msg(self):", "    def get_msg(self) -> str:"),
                           ("    def get_line(self):", "    def get_line(self) -> str:")),
    "tabnanny-method": (("        self.is_simple = len(count) <= 1\n",
                         "        self.is_simple = len(count) <= 1\n\n    def is_mixed(self):\n"
                         "        return 0 < self.nt < self.n\n"),),
    "tabnanny-comment": (("            if not indents[-1].less(thisguy):\n",
                          "            # deeper than the enclosing block at every tab size\n"
                          "            if not indents[-1].less(thisguy):\n"),),
    "timeit-param": (("def reindent(src, indent):", "def reindent(src, indent, char=' '):"),
                     ('" " * indent)', "char * indent)"),
                     ("reindent(setup, 4)", "reindent(setup, 4, char=' ')"),
                     ("reindent(stmt, 8)", 'reindent(stmt, 8, char=" ")')),
    "timeit-behaviour": (("            r.append(t)\n        return r\n",
                          "            r.append(t)\n        return sorted(r)\n"),),
}

# Plausible wrong results, as edits on the task's original (a bug task's: the buggy copy): each must fail.
WRONG: dict[str, tuple[Edits, ...]] = {
    "reprlib-rename-local": ((("            s = ', '.join(pieces)\n", "            s = ', '.join(parts)\n"),),),
    "reprlib-method": ((("        self.maxother = 30\n",
                         "        self.maxother = 30\n\n    def reset(self):\n        self.maxlist = 6\n"),),),
    "reprlib-delete": ((("    def repr_array(self, x, level):", "    def repr_deque(self, x, level):\n        pass\n\n"
                         "    def repr_array(self, x, level):"),),),
    "quopri-hints": ((("def unhex(s):", "def unhex(s: bytes):"),),),  # no return type
    "quopri-param": ((("def quote(c):", "def quote(c, lowercase=False):"),
                      ("HEX[c//16], HEX[c%16]", "HEX.lower()[c//16], HEX.lower()[c%16]")),),  # always lower
    "tabnanny-docstring": ((("    S, T = ' \\t'\n", "    S, T = ' \\t'\n    \"\"\"Leading whitespace.\"\"\"\n"),),),
    "string-method": ((("        self.template = template\n",
                        "        self.template = template\n\n    def __repr__(self):\n"
                        "        return f'Template({self.template})'\n"),),),
    "string-move": ((("        return obj, first\n", "        return obj, first\n\ndef capwords(s, sep=None):\n"
                      "    return s\n"),),),
    "copy-extract": ((("def _reconstruct(", "def _apply_state(y, state):\n    y.__dict__.update(state)\n\n"
                       "def _reconstruct("),),),  # extracted but never called
    "copy-hints": ((("def _keep_alive(x, memo):", "def _keep_alive(x: Any, memo: dict) -> None:"),),),  # Any unbound
    "tabnanny-method": ((("        self.is_simple = len(count) <= 1\n",
                          "        self.is_simple = len(count) <= 1\n\n    def is_mixed(self):\n"
                          "        return self.nt > 0\n"),),),
    "timeit-param": ((("def reindent(src, indent):", "def reindent(src, indent, char=' '):"),
                      ('" " * indent)', "char * indent)")),),  # callers do not pass it
    "timeit-behaviour": ((("            r.append(t)\n        return r\n",
                           "            r.append(t)\n        return sorted(r, reverse=True)\n"),),),
    "bug-reprlib-fill": ((("            if n >= maxiter:\n", "            if n > maxiter + 1:\n"),),),
    "bug-string-capwords": ((("' '.join(map(str.capitalize, s.split(sep)))",
                              "(sep or ' ').join(map(str.capitalize, s.split(sep or ' ')))"),),),
    "bug-copy-dict": ((("        y[deepcopy(key, memo)] = value\n", "        y[key] = deepcopy(value)\n"),),),
    "bug-tabnanny-level": ((("tabsize * il + self.nt", "tabsize * il + tabsize"),),),
    "bug-timeit-reindent": ((('" " * (indent - 1)', '" " * (indent + 1)'),),),
    "bug-quopri-unhex": ((("            i = ord('a')\n", "            i = ord('a')-9\n"),),),
}


def expected(task: Task) -> str:
    """A correct result of ``task`` (:func:`bench_sets.expected_result`)."""
    return expected_result(task, SOLUTIONS)


def test_at_least_26_tasks_on_files_the_suite_does_not_use() -> None:
    from coder.bench.edits.tasks import TASKS

    assert len(HELDOUT) >= 26 and len(BY_NAME) == len(HELDOUT)
    suite_files = {f for t in TASKS for f in t.files}
    for task in HELDOUT:
        assert task.file.startswith("heldout/") and task.file not in suite_files and not task.also
    assert sum(1 for t in HELDOUT if t.kind == "bugfix") >= 6


@pytest.mark.parametrize("task", HELDOUT, ids=lambda t: t.name)
def test_two_distinct_plain_wordings(task: Task) -> None:
    assert len(task.wordings) == 2
    assert plain_words(task.wordings[0]) != plain_words(task.wordings[1])
    assert not any("`" in w for w in task.wordings)  # as users type them, not as the suite spells names


@pytest.mark.parametrize("task", HELDOUT, ids=lambda t: t.name)
def test_check_passes_on_the_expected_result_and_fails_on_the_original(task: Task) -> None:
    old = source(task.file)
    ok, why = task.check(old, expected(task))
    assert ok, why
    ok, _ = task.check(old, old)
    assert not ok


@pytest.mark.parametrize("name", sorted(WRONG))
def test_check_fails_on_a_plausible_wrong_result(name: str) -> None:
    task = BY_NAME[name]
    old = source(task.file)
    for edits in WRONG[name]:
        ok, why = task.check(old, replace_once(old, edits))
        assert not ok, why


def test_a_bug_copy_differs_from_its_original_in_one_line() -> None:
    for task in (t for t in HELDOUT if t.kind == "bugfix"):
        bug, fixed = source(task.file).splitlines(), source(task.file.replace("bugs/", "")).splitlines()
        assert len(bug) == len(fixed) and sum(a != b for a, b in zip(bug, fixed, strict=True)) == 1


def test_list_json_set_heldout(capsys: pytest.CaptureFixture[str]) -> None:
    from coder.cli.main import main

    assert main(["bench", "--edits", "--list", "--json", "--set", "heldout"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["id"] for r in rows] == [t.name for t in HELDOUT]
    assert all(r["wordings"] == list(BY_NAME[r["id"]].wordings) for r in rows)
    argv = ["bench", "--edits", "--list", "--json", "--set", "heldout", "--kinds", "bugfix", "--wordings", "1"]
    assert main(argv) == 0
    rows = json.loads(capsys.readouterr().out)
    assert {r["id"] for r in rows} == {t.name for t in HELDOUT if t.kind == "bugfix"}
    assert all(r["wordings"] == [BY_NAME[r["id"]].wordings[1]] for r in rows)
    assert main(["bench", "--edits", "--list", "--json"]) == 0  # the default is still the suite
    assert "heldout/" not in capsys.readouterr().out


def test_the_cpu_subset_is_the_suites(capsys: pytest.CaptureFixture[str]) -> None:
    from coder.cli.main import main

    assert main(["bench", "--edits", "--list", "--set", "heldout", "--subset", "cpu"]) != 0
    assert "--subset is a fixed set" in capsys.readouterr().err
