"""**Test doubles** of the model: region requests answered with given replies, offline.

:class:`ScriptedModel` answers a plan's requests, each reply going through :meth:`EditEngine.evaluate`,
the same validation a streamed reply gets; :class:`ScriptedStream` stands in for the stream itself
(``coder.edit.run.engine.stream_edit``), so :meth:`EditEngine.run` and its retry run for real.
Only the server is replaced. Replies are either recorded ones (real model output stored in a
file) or mechanical ones computed from the request (such as the tokenized rename), and the
tests that use them say which.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Generator, Iterable, Iterator

from coder.edit.proposal import EditProposal, EditRequest
from coder.edit.run.engine import EditEngine
from coder.edit.run.prompt import predicted_reply
from coder.edit.run.stream import StreamOutcome
from coder.edit.source.splice import rename_tokens
from coder.telemetry.stats import RequestStats


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


class ScriptedStream:
    """**Test double** of the streamed request: each request gets the next reply (text, or a function of it)."""

    def __init__(self, replies: list[str | Callable[[EditRequest], str]]) -> None:
        self.replies: Iterator[str | Callable[[EditRequest], str]] = iter(replies)
        self.asked: list[EditRequest] = []  # every request, in order

    def __call__(self, backend: object, request: EditRequest, **_: object) -> Generator[RequestStats, None,
                                                                                          StreamOutcome]:
        """Stands in for :func:`coder.edit.run.stream.stream_edit`: one stats snapshot, then the reply."""
        self.asked.append(request)
        reply = next(self.replies)
        text = reply(request) if callable(reply) else reply
        stats = RequestStats(finish_reason="stop")
        yield stats
        return StreamOutcome(text, stats, None, None)


def streamed(engine: EditEngine, request: EditRequest) -> EditProposal:
    """The proposal :meth:`EditEngine.run` ends with for ``request`` (its stats snapshots dropped)."""
    (proposal,) = [e for e in engine.run(request) if isinstance(e, EditProposal)]
    return proposal


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
