"""Helpers of the EditSession's requests: chat messages, the symbol a message names, undo lines.

The requests themselves go through :mod:`coder.backends.runtime.request`.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from coder.errors import CoderError
from coder.session import context
from coder.session import events as ev

if TYPE_CHECKING:
    from coder.conversations import Conversation
    from coder.edit.apply.gitops import UndoResult
    from coder.edit.proposal import ApplyResult, EditProposal, EditRequest
    from coder.edit.run.engine import EditEngine
    from coder.edit.run.plan_result import PlanProposal, PlanRequest

CHAT_SYSTEM = ("You are a concise coding assistant working in the user's repository. Answer the question; "
               "show code in fenced blocks with a language tag.")
HISTORY_TURNS = 20  # chat turns sent back to the model with a question


def chat_messages(root: Path, conversation: Conversation, question: str) -> list[dict[str, str]]:
    """System prompt with the context files, recent history, then the question (reads files)."""
    system = CHAT_SYSTEM
    for rel, body in context.read_context(root, conversation.context_files):
        system += f"\n\nFile {rel}:\n```\n{body}\n```"
    history = conversation.chat_messages()[:-1][-HISTORY_TURNS:]  # the question itself is added below
    return [{"role": "system", "content": system}, *history, {"role": "user", "content": question}]


def mentioned_symbol(root: Path, rel: str, instruction: str) -> str | None:
    """The function or class of ``rel`` the instruction names (region mode), else None."""
    from coder.edit.intent.read import target_of

    try:
        text = (root / rel).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    symbol = target_of(rel, text, instruction)
    return symbol.qualname if symbol is not None else None


def undo_text(result: UndoResult) -> str:
    """One line describing an undone commit."""
    return f"{result.sha[:8]} {result.subject!r} ({', '.join(result.paths)} restored)"


def prepare_plan(engine: EditEngine, root: Path, rels: list[str], instruction: str,
                 mode: str) -> PlanRequest | EditRequest:
    """The plan for ``instruction`` over the context files ``rels`` (one file's request when none applies).

    A rename, move, deletion... or a long file's rewrite becomes a plan of regions (``/mode full``
    plans only the windows of a long file).
    """
    from coder.edit.run.plan_run import prepare_files

    return prepare_files(engine, [root / rel for rel in rels], instruction, mode="full" if mode == "full" else "auto")


def apply_proposal(engine: EditEngine, proposal: EditProposal | PlanProposal) -> ApplyResult:
    """Write an accepted edit and commit it (a plan: all of its files in one commit)."""
    from coder.edit.proposal import EditProposal
    from coder.edit.run.plan_result import apply_plan

    return engine.apply(proposal) if isinstance(proposal, EditProposal) else apply_plan(engine, proposal)


def retry_notes(proposal: EditProposal | PlanProposal) -> list[str]:
    """Why a region edit's first reply was asked once more, the samples drawn after (coder.edit.run.sample),
    where else the bug was sought (coder.edit.run.locate), and the one-token changes tried (coder.edit.run.repair).

    Each attempt streamed into the same feed; these notes say which one the review shows.
    """
    notes = []
    if isinstance(retried := getattr(proposal, "retried", None), str):  # a plan's retries are a list
        notes.append(f"The first reply for {proposal.rel} was refused ({retried}); asked once more.")
    if (sampled := getattr(proposal, "sampled", None)) is not None:
        notes.append(f"{proposal.rel}: {sampled.line()}.")
    if isinstance(moved := getattr(proposal, "moved", None), str):
        notes.append(f"{proposal.rel}: {moved}.")
    if isinstance(repaired := getattr(proposal, "repaired", None), str):
        notes.append(f"{proposal.rel}: {repaired}.")
    return notes


def run_plan(engine: EditEngine, prepared: PlanRequest, cancel: threading.Event, emit: Callable[[ev.Event], None],
             check: Callable[[], None], baseline_tps: float | None) -> PlanProposal:
    """Run a plan for the session: started, prefill progress, then what was retried and why; the proposal."""
    from coder.edit.run.plan_result import PlanProposal
    from coder.edit.run.plan_run import run_events

    title = f"edit {', '.join(prepared.plan.files)} ({prepared.reason})"
    emit(ev.RequestStarted(ev.RequestInfo("region", "plan", None, prepared.reason, baseline_tps), title))
    proposal: PlanProposal | None = None
    for event in run_events(engine, prepared, cancel):
        check()
        if isinstance(event, PlanProposal):
            proposal = event
        elif event.prefill is not None and event.ttft is None:
            emit(ev.PrefillUpdate(event.prefill))
    check()
    if proposal is None:
        raise CoderError("the plan ended without a result; nothing was changed")
    for line in proposal.review_lines()[1:]:  # what was retried, and why
        emit(ev.Note(line))
    return proposal
