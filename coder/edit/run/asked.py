"""Edits asked as short structured questions: the model names the types or the words, coder writes them.

Three plans, each one request under a JSON schema through the one request runner, at temperature 0, when a
server runs: **type hints** on named defs (:mod:`coder.edit.plan.hints_asked`), **a comment whose line
the reading resolved** (:mod:`coder.edit.plan.comment_asked`), and **docstrings for a class's methods or
several named defs** (:mod:`coder.edit.plan.docstrings_asked`). The question is the edit's request phase of
``--timings``. With no server, or an answer that cannot be written, the edit goes on as before (a region
plan or request), with the reason in its notes.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from coder.edit.plan import comment_asked, docstrings_asked, hints_asked

if TYPE_CHECKING:
    from coder.edit.apply.files import FileSnapshot
    from coder.edit.intent.model_read import Asker
    from coder.edit.intent.spec import ChangeSpec
    from coder.edit.plan.steps import Plan
    from coder.edit.run.engine import EditEngine

TOKENS_PER_TYPE = 16
NOT_ASKED = "not written from the model's short answer"


def _ask(engine: EditEngine) -> Asker:
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


def asked_docstrings(engine: EditEngine, snap: FileSnapshot, spec: ChangeSpec) -> tuple[Plan | None, str]:
    """(the mechanical plan of docstrings for several defs, "") or (None, why not: "" when none applies).

    Asked before the region plans are derived: the one region per bare method of a long class
    (:mod:`coder.edit.plan.members`) is what goes on when this is not written.
    """
    if engine.backend.info is None or (dq := docstrings_asked.question(snap.text, spec)) is None:
        return None, ""
    started = time.perf_counter()
    try:
        reply = _ask(engine)(docstrings_asked.messages(spec, dq), docstrings_asked.schema(dq),
                             docstrings_asked.max_tokens(dq))
    except Exception as exc:  # noqa: BLE001 - as above
        return None, f"the docstrings {NOT_ASKED}: the model could not be asked ({type(exc).__name__}: {exc})"
    words = docstrings_asked.parse(reply, dq)
    docs = docstrings_asked.write(snap.text, dq, words) if not isinstance(words, str) else words
    if isinstance(docs, str):
        return None, f"the docstrings {NOT_ASKED}: {docs}"
    return docstrings_asked.plan(snap.rel, spec, dq, docs, time.perf_counter() - started), ""
