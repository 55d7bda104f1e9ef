"""A **test double** of the model for plans: region requests answered with given replies, offline.

Each reply goes through :meth:`EditEngine.evaluate`, the same validation a streamed reply gets;
only the server is replaced. Replies are either recorded ones (real model output stored in a
file) or mechanical ones computed from the request (such as the tokenized rename), and the
tests that use them say which.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable

from coder.edit.proposal import EditProposal, EditRequest
from coder.edit.run.engine import EditEngine
from coder.edit.run.prompt import predicted_reply
from coder.edit.source.splice import rename_tokens


class ScriptedModel:
    """**Test double**: answers region requests in turn from ``replies`` (texts, or a function of the request)."""

    def __init__(self, engine: EditEngine, replies: Iterable[str] | Callable[[EditRequest], str]) -> None:
        self.engine = engine
        self._replies = replies if callable(replies) else iter(list(replies))
        self.asked: list[EditRequest] = []  # every request, in order

    def __call__(self, request: EditRequest) -> EditProposal:
        """The proposal for ``request``, as :meth:`EditEngine.run` would end with it."""
        self.asked.append(request)
        reply = self._replies(request) if callable(self._replies) else next(self._replies)
        return self.engine.evaluate(request, reply, finish_reason="stop")


def renaming_reply(pairs: list[tuple[str, str]]) -> Callable[[EditRequest], str]:
    """A reply function that renames ``pairs`` in the region, exactly (a mechanical reply, not a model's)."""
    def reply(request: EditRequest) -> str:
        prompt = request.prompt
        body = prompt.target
        with contextlib.suppress(SyntaxError):
            body = rename_tokens(body, pairs)
        return predicted_reply(type(prompt)(prompt.messages, prompt.fence, prompt.lang, body))
    return reply


def no_request(request: EditRequest) -> EditProposal:
    """An asker for a plan that must send no model request: any request fails the test."""
    raise AssertionError(f"a model request was sent for {request.snapshot.rel} ({request.instruction[:60]!r})")
