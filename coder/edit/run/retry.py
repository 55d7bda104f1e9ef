"""When a single region edit is asked once more, and why: the one decision ``EditEngine.run`` takes for all.

The CLI, the TUI and the bench all stream through :meth:`coder.edit.run.engine.EditEngine.run`, so
deciding here retries them alike. A region edit outside a plan, not itself a retry, gets one more
request when its reply

- is refused by a rule a second try can mend (:data:`coder.edit.checks.result.RETRIED`);
- changed nothing although the reading asks for a change (``unchanged``; 25 of 255 pairs on the H200:
  "Fix rgb_to_yiq: ... 0.114" came back verbatim). Greedy decoding gives the same reply to the same
  prompt, so the retry's prompt says the reply came back unchanged and which kind of change is asked, and
  for a fix what the code as it is still does wrong (:func:`failing_now`);
- is flagged by the scope check (``unexplained``; 20 of 255: the keyword-only ``*`` dropped in an
  annotation edit, a docstring where a comment was asked, a class's last method deleted);
- fails the instruction's own example (:mod:`coder.edit.checks.behaviour`): the note says what the call
  still does and what the instruction expects;
- fails the user's test or lint command (:mod:`coder.edit.checks.user_commands`): the note names the failing
  tests and what they asserted. A wrong bug fix that breaks another case of the code is what a project's
  tests catch, and the assertion shows the model the case it broke.

A plan step has its own retry (:mod:`coder.edit.run.plan_step`) and is never asked again here.

Greedy decoding answers the retry's prompt the same way each time, so a fix the retry did not mend is
not asked greedily a third time. Where an oracle fails on the code as it is (:class:`Oracles`: the
instruction's example, the user's tests), a few *sampled* replies to the retry's prompt are drawn and
the first that passes every check is taken (:mod:`coder.edit.run.sample`); where none fails, nothing is
sampled, since then no check could tell a sampled fix that is right from one that is merely different.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from coder.edit.checks import behaviour
from coder.edit.checks.explained import Scope
from coder.edit.checks.result import RETRIED, retry_note
from coder.edit.intent.read import read_instruction
from coder.edit.intent.spec import ChangeSpec
from coder.edit.proposal import UNCHANGED, EditProposal, EditRequest

if TYPE_CHECKING:
    import git

    from coder.edit.apply.files import FileSnapshot
    from coder.edit.checks.user_commands import UserCommand
    from coder.edit.source.regions import Region

QUOTED = 3  # flagged changes quoted in the note; the scope's refusal names every one by line
QUOTE_CHARS = 80
Build = Callable[["FileSnapshot", ChangeSpec, str, "Region | None", str], EditRequest]  # EditEngine._build
_FIXES = frozenset({"fix", "change"})  # the actions whose unchanged reply is told what the tests say


def spec_of(request: EditRequest) -> ChangeSpec:
    """The request's reading; one built elsewhere (a replay, a test) is read here, without the model."""
    snap = request.snapshot
    return request.spec or read_instruction(request.instruction, {snap.rel: snap.text}, home=snap.rel)


def unchanged(proposal: EditProposal) -> bool:
    """True when an accepted reply changed nothing although its reading asks for a change."""
    return proposal.ok and not proposal.changed and spec_of(proposal.request).action != "unknown"


def retry_reason(proposal: EditProposal) -> tuple[str, str] | None:
    """``(code, why)`` when ``proposal``'s request is asked once more, else None.

    ``code`` keys :func:`coder.edit.checks.result.retry_note`; ``why`` goes into the note and into
    :attr:`EditProposal.retried` of the retry's proposal (the bench row and ``--json`` show it).
    """
    request = proposal.request
    if request.mode != "region" or request.in_plan or request.retry_note or request.region is None:
        return None  # a whole file, a plan step (retried by the plan) or a retry already: never a second retry
    if not proposal.ok:
        code = proposal.refusal_code or ""
        if code == "check_failed":
            failed = next((c for c in proposal.checks if not c.ok), None)
            return (code, failed.failures()) if failed is not None and failed.rc is not None else None
        return (code, proposal.refusal or "") if code in RETRIED or code == behaviour.CODE else None
    if unchanged(proposal):
        return "unchanged", UNCHANGED
    if proposal.scope is not None and not proposal.scope.ok:
        return "unexplained", flagged(proposal.scope, proposal.old, proposal.new)
    return None


@dataclass(frozen=True)
class Clues:
    """Where the failing oracles point, for :mod:`coder.edit.run.locate`: what ran, and what the tests are named."""

    reached: tuple[str, ...] = ()  # the file's functions the failing examples ran, first called first
    calls: tuple[tuple[str, str], ...] = ()  # which of them called which (caller, callee)
    traced: bool = False  # the examples were traced (Oracles.clues does it once, on demand)
    tests: tuple[str, ...] = ()  # the failing tests' names (``test_deepcopy_dict``)
    tests_s: float = 0.0  # the seconds the test command took on the code as it is (what a run of it may cost)


class Oracles:
    """What fails on the code as it is, for a fix: run once per request's snapshot and reading (the last one kept).

    The retry's note (:func:`failing_now`) and the sampling decision (:func:`coder.edit.run.sample.due`) both ask;
    the user's test command runs once for the two. Each failing oracle is ``(kind, what it says)``:

    - ``example``: the instruction's own example, run on the code as it is (``unhex(b'ff') still returns 85; the
      instruction expects 255``), where ``examples`` runs them (:mod:`coder.edit.checks.behaviour`);
    - ``report``: the same, for an example that reports only the wrong value (``indent_level(8) gives 1``): it
      tells the retry what is wrong, but a reply that passes it may be wrong another way, so it samples nothing;
    - ``tests``: the repository's failing tests (``AssertionError: 'Abc Def Ghi' != 'Abc-Def-Ghi'``): a bug the
      project's tests catch fails them now. Only the test command runs (a lint says nothing of a bug). ``repo``
      is called only then: opening the repository imports GitPython, which an edit with no test command never needs.
    """

    def __init__(self, checks: Sequence[UserCommand], examples: behaviour.ExampleCheck | None,
                 repo: Callable[[], git.Repo | None]) -> None:
        self.checks, self.examples, self.repo = tuple(checks), examples, repo
        # the snapshot itself, not its text: a later edit of the same text re-runs the tests (other files may differ)
        self._last: tuple[FileSnapshot, str, tuple[tuple[str, str], ...], Clues] | None = None

    def failing(self, request: EditRequest) -> tuple[tuple[str, str], ...]:
        """``(kind, what it says)`` of each oracle that fails on ``request``'s file as it is (none for no fix)."""
        snap, spec = request.snapshot, spec_of(request)
        if spec.action not in _FIXES:
            return ()
        if self._last is None or self._last[0] is not snap or self._last[1] != spec.instruction:
            self._last = snap, spec.instruction, *self._run(request)
        return self._last[2]

    def clues(self, request: EditRequest) -> Clues:
        """Where :meth:`failing`'s oracles point on ``request``'s file (empty for no fix, or none failing).

        The failing examples are traced here, in a run of their own, once per snapshot: only a fix sought
        elsewhere needs it, and a profiled call runs slower than the checks' own runs may.
        """
        failing = self.failing(request)
        if not failing or self._last is None:
            return Clues()
        snap, instruction, said, clues = self._last
        if not clues.traced and any(kind in ("example", "report") for kind, _ in failing):
            reached, calls = behaviour.traced(snap, spec_of(request).examples)
            clues = replace(clues, reached=reached, calls=calls, traced=True)
            self._last = snap, instruction, said, clues
        return clues

    def _run(self, request: EditRequest) -> tuple[tuple[tuple[str, str], ...], Clues]:
        snap, spec, said, clues = request.snapshot, spec_of(request), [], Clues()
        # only where examples run: elsewhere verdict() says once that they were not, which the final proposal says
        examples = self.examples
        verdict = examples.verdict(snap, snap.text, spec) if examples is not None and examples.runs else None
        if verdict is not None and verdict.failure is not None:
            # "report": the example says only what is wrong now, so a sample passing it may be wrong another way
            said.append(("example" if verdict.pins else "report", verdict.failure.replace("after the edit, ", "", 1)))
        if tests := [c for c in self.checks if c.kind == "test"]:
            from coder.edit.checks.user_commands import run_on_proposal

            runs = run_on_proposal(self.repo(), snap, snap.text, tests)
            if (failed := next((c for c in runs if not c.ok and c.rc is not None), None)) is not None:
                said.append(("tests", failed.failures().replace("failed on it", "fails on the code as it is", 1)))
                clues = replace(clues, tests=failed.failed_tests(), tests_s=failed.seconds)
        return tuple(said), clues


def failing_now(why: tuple[str, str] | None, proposal: EditProposal, oracles: Oracles) -> tuple[str, str] | None:
    """``why``, and for a fix that came back unchanged, what the code as it is does wrong (:class:`Oracles`).

    22 of run 6's 68 refused pairs on the H200 were bug fixes answered twice with the region unchanged: "make
    a change" alone did not move the model. What the code does now shows it the case to mend.
    """
    if why is None or why[0] != "unchanged":
        return why
    return why[0], "; ".join([why[1], *(said for _, said in oracles.failing(proposal.request))])


def again(proposal: EditProposal, code: str, reason: str, build: Build) -> EditRequest:
    """The retry of ``proposal``'s region request (``build``: the engine's), its prompt saying why it is asked again."""
    request, spec = proposal.request, spec_of(proposal.request)
    assert request.region is not None  # retry_reason retries region requests only
    note = retry_note(code, reason, spec)
    # the prompt carries the note; the spec the checks hold the reply to stays the user's reading
    asked = replace(spec, instruction=f"{request.instruction.strip()} {note}")
    why = f"{request.mode_reason}; asked once more"
    return replace(build(request.snapshot, asked, "region", request.region, why),
                   instruction=request.instruction, spec=spec, retry_note=note)


def flagged(scope: Scope, old: str, new: str) -> str:
    """The scope check's refusal, and each flagged change's lines quoted (the first few).

    The prompt shows the region without line numbers, so ``bisect.py:4 (changed)`` alone does not
    tell the model which line it must keep: ``it changed `def insort_right(a, x, lo=0, hi=None, *, key=None):```
    does.
    """
    old_lines, new_lines = old.splitlines(), new.splitlines()
    quotes = []
    for change in scope.unexplained[:QUOTED]:
        if change.what == "added":
            lines = new_lines[change.new_start - 1:change.new_end]
        else:  # what was there: the line it must keep
            lines = old_lines[change.old_start - 1:change.old_end]
        text = " ".join(line.strip() for line in lines if line.strip())
        if text:
            cut = text if len(text) <= QUOTE_CHARS else text[:QUOTE_CHARS - 3].rstrip() + "..."
            quotes.append(f"it {change.what} `{cut}`")
    return "; ".join([scope.refusal(), *quotes])
