"""When a single region edit is asked once more, and why: the one decision ``EditEngine.run`` takes for all.

The CLI, the TUI and the bench all stream through :meth:`coder.edit.run.engine.EditEngine.run`, so
deciding here retries them alike. A region edit outside a plan, not itself a retry, gets one more
request when its reply

- is refused by a rule a second try can mend (:data:`coder.edit.checks.result.RETRIED`);
- changed nothing although the reading asks for a change (``unchanged``; 25 of 255 pairs on the H200:
  "Fix rgb_to_yiq: ... 0.114" came back verbatim). Greedy decoding gives the same reply to the same
  prompt, so the retry's prompt says the reply came back unchanged and which kind of change is asked;
- is flagged by the scope check (``unexplained``; 20 of 255: the keyword-only ``*`` dropped in an
  annotation edit, a docstring where a comment was asked, a class's last method deleted);
- fails the instruction's own example (:mod:`coder.edit.checks.behaviour`): the note says what the call
  still does and what the instruction expects.

A plan step has its own retry (:mod:`coder.edit.run.plan_step`) and is never asked again here.
"""

from __future__ import annotations

from coder.edit.checks import behaviour
from coder.edit.checks.explained import Scope
from coder.edit.checks.result import RETRIED
from coder.edit.intent.read import read_instruction
from coder.edit.intent.spec import ChangeSpec
from coder.edit.proposal import UNCHANGED, EditProposal, EditRequest

QUOTED = 3  # flagged changes quoted in the note; the scope's refusal names every one by line
QUOTE_CHARS = 80


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
        return (code, proposal.refusal or "") if code in RETRIED or code == behaviour.CODE else None
    if unchanged(proposal):
        return "unchanged", UNCHANGED
    if proposal.scope is not None and not proposal.scope.ok:
        return "unexplained", flagged(proposal.scope, proposal.old, proposal.new)
    return None


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
