"""The behaviour check of a fix: the instruction's own failing example, run before and after the edit.

On the 2026-12-03 H200 run, 11 of the suite's 13 wrong edits and 5 of the held-out set's 7 were bug fixes
the model got wrong, and no check looked at what the code does. A report often carries its example
("unhex(b'ff') returns 85 instead of 255"; read by :mod:`coder.edit.intent.examples`), so the edit is
held to it:

- the calls run in one subprocess on the original file and in one on the edited text
  (``sys.executable -I``), the file executed as a module under a throwaway name, with its own path as
  ``__file__`` and its package when its folders are packages. The work tree goes last on ``sys.path``
  (a file of the tree named like a standard module shadows nothing), and the cwd is an empty temporary
  folder: a call that writes or deletes a relative path, by the model's code or by the example's own
  arguments, cannot touch the tree before review. Each call gets :data:`TIMEOUT_S`, and one that does
  not return after the edit fails (an endless loop);
- an example counts only when the original shows the bug as reported: it returns the wrong value the
  report quotes, raises the exception it names, or (only a right value given) returns something else;
  else it is skipped with a note: a report misquoted is no reason to refuse an edit;
- after the edit the call must return the expected value (``==`` on the literal, in the subprocess), or no
  longer raise the exception, or (only a wrong value given) return something else.

Running the calls runs the repository's code, so it happens only where coder already runs it on each
proposal: a ``test_command`` the user configured or trusted (:mod:`coder.trust`,
:mod:`coder.edit.checks.user_commands`). Elsewhere the edit says once that the examples were not run.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from coder.edit.apply.files import FileSnapshot
from coder.edit.checks.user_commands import UserCommand
from coder.edit.intent.spec import ChangeSpec, Example
from coder.edit.proposal import EditProposal
from coder.textsafe import one_line

CODE = "behaviour"  # the refusal code (a check's: coder.bench.edits.layers)
TIMEOUT_S = 5.0  # one call; the subprocess gets this per call, plus the module's own import
NOT_RUN = ("the instruction's examples ({calls}) were not run on this edit: running them runs the repository's "
           "code, which coder does only where a test_command is configured (your config, or a .coder.toml "
           "you trusted with `coder trust`)")
_SHOWN = 80  # characters of a repr said in a note

# The child: reads {"path", "name", "package", "source", "roots", "timeout", "examples"} on stdin, writes one
# JSON list on stdout (the module's own prints go to stderr). Each call: {"timeout": true}, {"raised": the
# exception's class names, most derived first} or {"repr", "expected", "wrong"} (the == comparisons). With
# "trace" (only where a fix is sought elsewhere: a profiled call runs slower), also "reached": the module's
# functions the call ran, by qualified name, in the order first called, and "calls": which called which
# ([caller, callee]; the caller "" for the example's own expression or the module's top level).
# Every child's start (run_child's too): its data read, its prints sent to stderr, the tree on sys.path, and
# _Late raised by the alarm each call sets.
PRELUDE = r"""
import ast, itertools, json, re, signal, sys, time, types
data = json.load(sys.stdin)
out, sys.stdout = sys.stdout, sys.stderr
sys.path += data["roots"]
class _Late(BaseException):
    pass
def _alarm(*_):
    raise _Late()
signal.signal(signal.SIGALRM, _alarm)
"""
_CHILD = PRELUDE + r"""
def run(fn, limit):
    signal.setitimer(signal.ITIMER_REAL, limit)
    try:
        return {"value": fn()}
    except _Late:
        return {"timeout": True}
    except BaseException as exc:
        return {"raised": [c.__name__ for c in type(exc).__mro__]}
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
reached, calls = [], []
def _qual(code):
    name = getattr(code, "co_qualname", code.co_name).split(".<", 1)[0]
    return "" if name.startswith("<") else name
def _profile(frame, event, arg):
    code = frame.f_code
    if event == "call" and code.co_filename == data["path"] and len(calls) < 128 and (name := _qual(code)):
        if name not in reached:
            reached.append(name)
        back = frame.f_back
        while back is not None and back.f_code.co_filename != data["path"]:
            back = back.f_back
        edge = [_qual(back.f_code) if back is not None else "", name]
        if edge[0] != name and edge not in calls:
            calls.append(edge)
def traced(fn):
    def call():
        reached.clear()
        calls.clear()
        sys.setprofile(_profile)
        try:
            return fn()
        finally:
            sys.setprofile(None)
    return call
def same(value, literal):
    try:
        return bool(value == ast.literal_eval(literal))
    except BaseException:
        return False
mod = types.ModuleType(data["name"])
mod.__file__, mod.__package__ = data["path"], data["package"]
sys.modules[data["name"]] = mod
code = compile(data["source"], data["path"], "exec")
loaded = run(lambda: exec(code, mod.__dict__), 4 * data["timeout"])
results = []
for ex in data["examples"] if "value" in loaded else ():
    call = lambda: eval(ex["call"], mod.__dict__)
    got = run(traced(call) if data.get("trace") else call, data["timeout"])
    got["reached"], got["calls"] = list(reached), list(calls)
    if "value" in got:
        value = got.pop("value")
        shown = run(lambda: repr(value), data["timeout"])
        got["repr"] = shown.get("value", "<unprintable>")[:400]
        got.update({k: same(value, ex[k]) for k in ("expected", "wrong") if ex[k] is not None})
    results.append(got)
loaded.pop("value", None)
out.write(json.dumps({"load": loaded, "results": results}))
"""


@dataclass(frozen=True)
class Run:
    """What one call did in one subprocess."""

    timeout: bool = False
    raised: tuple[str, ...] = ()  # the exception's class and its bases, by name
    repr: str = ""
    expected: bool = False  # == the expected literal
    wrong: bool = False  # == the wrong literal the report quotes
    # traced only (run_calls(trace=True)): the module's functions the call ran (``Timer.__init__``, ``reindent``),
    # and which called which; "" calls from the example itself
    reached: tuple[str, ...] = ()
    calls: tuple[tuple[str, str], ...] = ()

    def raises(self, error: str) -> bool:
        """Whether it raised ``error`` (or a subclass of it)."""
        return error in self.raised

    def said(self) -> str:
        """``returns 85``, ``raises IndexError``, ``does not return within 5 s``."""
        if self.timeout:
            return f"does not return within {TIMEOUT_S:g} s (an endless loop?)"
        if self.raised:
            return f"raises {self.raised[0]}"
        return f"returns {_short(self.repr)}"


@dataclass
class Verdict:
    """What the examples showed: a line per example for the notes, and the first failure (None: passed)."""

    notes: list[str] = field(default_factory=list)
    failure: str | None = None
    pins: bool = False  # an example that shows the bug pins the right answer (Example.pins)


def run_calls(snap: FileSnapshot, source: str, examples: Sequence[Example], *, trace: bool = False) -> list[Run] | str:
    """Run ``examples`` against ``source`` as the module at ``snap``; the runs in order, or why none ran.

    ``trace``: each call is profiled, its :attr:`Run.reached` and :attr:`Run.calls` filled.
    """
    data = {"source": source, "timeout": TIMEOUT_S, "examples": [vars_of(e) for e in examples], "trace": trace}
    told = run_child(snap, _CHILD, data, TIMEOUT_S * (len(examples) + 4) + 5)
    if told is None:
        return [Run(timeout=True) for _ in examples]
    if isinstance(told, str):
        return told
    if isinstance(load := told.get("load"), dict) and load:
        return f"importing {snap.rel} {_run_of(load).said()}"
    results = told.get("results")
    return [_run_of(r if isinstance(r, dict) else {}) for r in (results if isinstance(results, list) else [])]


def run_child(snap: FileSnapshot, child: str, data: dict[str, object], limit: float) -> dict[str, object] | str | None:
    """Run ``child`` (Python source reading ``data`` on stdin) as described above, for the module at ``snap``.

    ``child`` starts with :data:`PRELUDE`; ``data`` gains the module's ``path``, ``name``, ``package`` and
    ``roots``. The JSON object the child writes on stdout; why there is none (a string); None when it ran past
    ``limit`` seconds (killed, its whole session with it). :mod:`coder.edit.checks.probes` runs its probes
    through this too.
    """
    root, rel = snap.root, Path(snap.rel)
    parts = rel.with_suffix("").parts
    package = ".".join(parts[:-1]) if all((root / Path(*parts[:i]) / "__init__.py").is_file()
                                         for i in range(1, len(parts))) else ""
    data = {**data, "path": str(snap.path), "package": package, "roots": [str(root)],
            "name": f"{package}.__coder_example__" if package else "__coder_example__"}
    env = {k: v for k, v in os.environ.items() if k != "CODER_API_KEY"}  # the server's key is not the code's
    with tempfile.TemporaryDirectory(prefix="coder-example-") as cwd:
        proc = subprocess.Popen([sys.executable, "-I", "-c", child], cwd=cwd, env=env, stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, start_new_session=True)
        try:  # the limit: a call stuck where the alarm cannot reach (C code)
            out, _ = proc.communicate(json.dumps(data).encode(), timeout=limit)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)  # its own session: the module and whatever it started
            proc.communicate()
            return None
    try:
        told = json.loads(out.decode("utf-8", "replace"))
    except ValueError:
        return f"the subprocess ended without a result (exit {proc.returncode})"
    return told if isinstance(told, dict) else f"the subprocess wrote {type(told).__name__}, not an object"


def _run_of(told: dict[str, object]) -> Run:
    raised = told.get("raised")
    return Run(timeout=bool(told.get("timeout")), raised=tuple(map(str, raised)) if isinstance(raised, list) else (),
               repr=str(told.get("repr", "")), expected=bool(told.get("expected")), wrong=bool(told.get("wrong")),
               reached=tuple(map(str, reached)) if isinstance(reached := told.get("reached"), list) else (),
               calls=tuple((str(e[0]), str(e[1])) for e in calls if isinstance(e, list) and len(e) == 2)
               if isinstance(calls := told.get("calls"), list) else ())


def vars_of(example: Example) -> dict[str, str | None]:
    """The example as the child reads it."""
    return {"call": example.call, "expected": example.expected, "wrong": example.wrong, "raises": example.raises}


def judge(examples: Sequence[Example], before: list[Run] | str, after: list[Run] | str) -> Verdict:
    """The notes and the failure of ``examples`` run on the original (``before``) and the edit (``after``)."""
    verdict = Verdict()
    if isinstance(before, str):
        verdict.notes.append(f"the instruction's examples were not checked: on the original file, {before}")
        return verdict
    for n, (example, old) in enumerate(zip(examples, before, strict=True)):
        if not shows_bug(example, old):
            verdict.notes.append(f"{example.call} {old.said()} in the original file, which does not show the "
                                 "bug the instruction reports: not checked")
            continue
        verdict.pins = verdict.pins or example.pins
        new = after if isinstance(after, str) else after[n]
        failure = _failure(example, old, new)
        if failure is None and isinstance(new, Run):
            verdict.notes.append(f"checked: {_passed(example, new)}")
        elif verdict.failure is None:
            verdict.failure = failure
    return verdict


def shows_bug(example: Example, old: Run) -> bool:
    """Whether the original does what the report says: raises its error, returns its wrong value, or (only
    a right value given) returns anything else."""
    if example.raises is not None:
        return old.raises(example.raises)
    if example.wrong is not None:
        return old.wrong and not old.raised and not old.timeout
    return example.expected is not None and not old.expected


def _failure(example: Example, old: Run, new: Run | str) -> str | None:
    if isinstance(new, str):
        return f"after the edit, {new}"
    still = "still " if (new.repr, new.raised) == (old.repr, old.raised) and not new.timeout else ""
    if new.timeout or (example.expected is not None and not new.expected):
        want = f"; the instruction expects {_short(example.expected)}" if example.expected is not None else ""
        return f"after the edit, {example.call} {still}{new.said()}{want}"
    if example.raises is not None and new.raises(example.raises):
        return f"after the edit, {example.call} still raises {new.raised[0]}"
    if example.expected is None and example.raises is None and (new.wrong or new.raised):
        return f"after the edit, {example.call} {still}{new.said()}; the instruction reports that as the bug" \
            if new.wrong else f"after the edit, {example.call} {new.said()}"
    return None


def _passed(example: Example, new: Run) -> str:
    if example.expected is not None:
        return f"{example.call} == {_short(example.expected)}"
    if example.raises is not None:
        return f"{example.call} no longer raises {example.raises} (it {new.said()})"
    return f"{example.call} no longer returns {_short(example.wrong or '')} (it {new.said()})"


def _short(text: str) -> str:
    return one_line(text, _SHOWN)


class ExampleCheck:
    """The engine's behaviour check: runs a change's examples where the repository's code may run.

    They run when ``checks`` hold a test command (the user's config or a trusted ``.coder.toml`` gave it:
    coder runs this repository's code on each proposal already), or when ``runs`` says so (the bench owns
    its throwaway trees). The line saying they were not run is said once per engine, as the untrusted
    test_command's is.
    """

    def __init__(self, checks: Sequence[UserCommand] = (), *, runs: bool | None = None) -> None:
        self.runs = any(c.kind == "test" for c in checks) if runs is None else runs
        self._said = False
        self._before: dict[tuple[str, tuple[Example, ...]], list[Run] | str] = {}  # a retry reuses the original's

    def hold(self, proposal: EditProposal, spec: ChangeSpec) -> None:
        """Hold the changed ``proposal`` to its examples: the notes, and a refusal (:data:`CODE`) when one fails."""
        verdict = self.verdict(proposal.request.snapshot, proposal.new, spec)
        if verdict is not None:
            proposal.examples = tuple(verdict.notes)
            if verdict.failure is not None:
                proposal.refusal_code, proposal.refusal = CODE, verdict.failure

    def verdict(self, snap: FileSnapshot, new: str, spec: ChangeSpec) -> Verdict | None:
        """The examples' verdict on ``new`` (None: the change has no examples to run, or they were not run
        and that was said already)."""
        examples = spec.examples if spec.action in ("change", "add_method", "add_function") else ()
        if not examples or not snap.rel.endswith(".py"):
            return None
        if not self.runs:
            if self._said:
                return None
            self._said = True
            return Verdict([NOT_RUN.format(calls=", ".join(e.call for e in examples))])
        key = (snap.text, examples)
        if key not in self._before:
            self._before[key] = run_calls(snap, snap.text, examples)
        before = self._before[key]
        if isinstance(before, str) or not any(shows_bug(e, r) for e, r in zip(examples, before, strict=True)):
            return judge(examples, before, [])  # nothing to hold the edit to: the notes say why
        return judge(examples, before, run_calls(snap, new, examples))


def traced(snap: FileSnapshot, examples: Sequence[Example]) -> tuple[tuple[str, ...], tuple[tuple[str, str], ...]]:
    """What the ``examples`` that show the bug on ``snap`` as it is ran: the module's functions, in the order first
    called, and which called which (:attr:`Run.calls`). Empty where none ran or none shows the bug."""
    runs = run_calls(snap, snap.text, examples, trace=True)
    reached: list[str] = []
    calls: list[tuple[str, str]] = []
    for example, run in zip(examples, runs if not isinstance(runs, str) else [], strict=False):
        if shows_bug(example, run):
            reached += [name for name in run.reached if name not in reached]
            calls += [edge for edge in run.calls if edge not in calls]
    return tuple(reached), tuple(calls)
