"""Edits asked as short structured questions: the model names the types or the words, coder writes them.

Three uses, each one request under a JSON schema through the one request runner, at temperature 0:

* **type hints** on named defs (:mod:`coder.edit.plan.hints_asked`): the plan of the edit, when a server runs;
* **a comment whose line the reading resolved** (:func:`coder.edit.plan.comment_asked.anchored`): the plan too;
* **any other comment edit** whose region requests were refused, flagged or unchanged after the retry
  (:func:`coder.edit.plan.comment_asked.question`): the line and the words; the result then goes through
  :meth:`EditEngine.evaluate` as a reply does, and is used only when accepted with nothing flagged.

A plan's question is the edit's request phase of ``--timings``. With no server, or an answer that cannot be
written, the edit goes on as before (a region request), with the reason in its notes.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from coder.edit.plan import comment_asked, hints_asked
from coder.edit.run.retry import spec_of
from coder.edit.source.regions import split

if TYPE_CHECKING:
    from coder.edit.apply.files import FileSnapshot
    from coder.edit.intent.model_read import Message
    from coder.edit.intent.spec import ChangeSpec
    from coder.edit.plan.steps import Plan
    from coder.edit.proposal import EditProposal
    from coder.edit.run.engine import EditEngine

JsonAsk = Callable[[list["Message"], dict[str, object], int], str]
TOKENS_PER_TYPE = 16
NOT_ASKED = "not written from the model's short answer"
ASKED = "the comment was written from the model's short answer (line and words, JSON)"


def _ask(engine: EditEngine) -> JsonAsk:
    from coder.edit.run.reading import json_asker
    from coder.telemetry import timings

    return json_asker(engine.backend, timings.REQUEST, "a short structured question")


def asked_plan(engine: EditEngine, snap: FileSnapshot, spec: ChangeSpec) -> tuple[Plan | None, str]:
    """(the mechanical plan of a hints or anchored-comment edit, "") or (None, why not: "" when none applies)."""
    if engine.backend.info is None:
        return None, ""
    if (hq := hints_asked.question(snap.text, spec)) is not None:
        started = time.perf_counter()
        try:
            reply = _ask(engine)(hints_asked.messages(spec, hq), hints_asked.schema(hq),
                                 TOKENS_PER_TYPE * len(hq.slots) + 16)
        except Exception as exc:  # noqa: BLE001 - the region request is the fallback, whatever failed
            return None, f"type hints {NOT_ASKED}: the model could not be asked ({type(exc).__name__}: {exc})"
        types = hints_asked.parse(reply, hq, snap.text)
        headers = hints_asked.write(snap.text, hq, types) if not isinstance(types, str) else types
        if isinstance(headers, str):
            return None, f"type hints {NOT_ASKED}: {headers}"
        return hints_asked.plan(snap.rel, spec, hq, headers, time.perf_counter() - started), ""
    if (cq := comment_asked.anchored(snap.text, spec)) is not None:
        started = time.perf_counter()
        try:
            reply = _ask(engine)(comment_asked.messages(spec, cq), comment_asked.schema(cq), comment_asked.MAX_TOKENS)
        except Exception as exc:  # noqa: BLE001 - as above
            return None, f"the comment {NOT_ASKED}: the model could not be asked ({type(exc).__name__}: {exc})"
        comments = comment_asked.parse(reply, cq)
        if isinstance(comments, str):
            return None, f"the comment {NOT_ASKED}: {comments}"
        return comment_asked.plan(snap.rel, spec, snap.text, comments, time.perf_counter() - started), ""
    return None, ""


def wants_asking(proposal: EditProposal) -> bool:
    """True when ``proposal`` is a single region comment edit that its region requests did not make."""
    request = proposal.request
    if request.mode != "region" or request.region is None or request.in_plan:
        return False
    made = proposal.ok and proposal.changed and (proposal.scope is None or proposal.scope.ok)
    return not made and spec_of(request).action == "comment"


def asked_comment(engine: EditEngine, proposal: EditProposal, ask: JsonAsk | None = None) -> EditProposal | None:
    """The comment written from the model's JSON answer, checked like a reply; None when it is not usable."""
    request = proposal.request
    region, spec, snap = request.region, spec_of(request), request.snapshot
    if region is None or (engine.backend.info is None and ask is None):
        return None
    q = comment_asked.question(snap.text, spec, region.start, region.end)
    if q is None:
        return None
    started = time.perf_counter()
    try:
        answer = (ask or _ask(engine))(comment_asked.messages(spec, q), comment_asked.schema(q),
                                       comment_asked.MAX_TOKENS)
    except Exception:  # noqa: BLE001 - the region requests' outcome stands, whatever failed
        return None
    comments = comment_asked.parse(answer, q)
    if isinstance(comments, str):
        return None
    target = split(snap.text, region).target
    written = comment_asked.write(target, [(n - region.start + 1, words) for n, words in comments])
    newline = "" if written.endswith("\n") else "\n"
    fence = request.prompt.fence
    result = engine.evaluate(request, f"{fence}python\n{written}{newline}{fence}", finish_reason="stop")
    if not (result.ok and result.changed and (result.scope is None or result.scope.ok)):
        return None
    took = time.perf_counter() - started
    result.retried = f"{proposal.retried or proposal.refusal or 'unchanged'}; {ASKED} in {took:.2f}s"
    result.first_reply, result.reply = proposal.reply, answer
    return result
