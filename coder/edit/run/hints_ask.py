"""Ask the running model for a type-hints edit's types; plan their writing (:mod:`coder.edit.plan.hints_asked`).

One request under a JSON schema of the real parameters, through the one request runner, at temperature 0.
Its time is the edit's request phase of ``--timings``: it is this edit's model request. With no server, or
an answer that cannot be written, the edit goes on as a region request, with the reason in its notes.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from coder.edit.plan import hints_asked

if TYPE_CHECKING:
    from coder.edit.apply.files import FileSnapshot
    from coder.edit.intent.spec import ChangeSpec
    from coder.edit.plan.steps import Plan
    from coder.edit.run.engine import EditEngine

TOKENS_PER_TYPE = 16
NOT_ASKED = "type hints not written from the model's types"


def asked_hints(engine: EditEngine, snap: FileSnapshot, spec: ChangeSpec) -> tuple[Plan | None, str]:
    """(the mechanical hints plan, "") or (None, why not: "" when the question does not apply)."""
    q = hints_asked.question(snap.text, spec)
    if q is None or engine.backend.info is None:
        return None, ""
    from coder.edit.run.reading import json_asker
    from coder.telemetry import timings

    ask = json_asker(engine.backend, timings.REQUEST, "the types of a type-hints edit")
    started = time.perf_counter()
    try:
        reply = ask(hints_asked.messages(spec, q), hints_asked.schema(q),
                    TOKENS_PER_TYPE * len(q.slots) + 16)
    except Exception as exc:  # noqa: BLE001 - the region request is the fallback, whatever failed
        return None, f"{NOT_ASKED}: the model could not be asked ({type(exc).__name__})"
    took = time.perf_counter() - started
    types = hints_asked.parse(reply, q, snap.text)
    if isinstance(types, str):
        return None, f"{NOT_ASKED}: {types}"
    headers = hints_asked.write(snap.text, q, types)
    if isinstance(headers, str):
        return None, f"{NOT_ASKED}: {headers}"
    return hints_asked.plan(snap.rel, spec, q, headers, took), ""
