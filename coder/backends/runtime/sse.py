"""Server-sent events from an OpenAI-compatible chat stream, decoded at the cost of parsing the bytes.

llama.cpp, vLLM and SGLang all frame a streamed chat reply the same way: ``data: {json}`` then a
blank line per event, ``data: [DONE]`` at the end. :class:`EventSplitter` turns the bytes of one
network read into the ``data`` payloads it completes (no per-line objects, no typed models), and
:class:`ChunkReader` folds every payload of one read into at most one
:class:`~coder.telemetry.stats.Chunk`: a speculative verification step that accepts 60 tokens
arrives as 60 events in one read and leaves as one update. Counters that need every event
(draft steps, per-event content count) are kept per event; everything else once per read.

Anything else a server sends (bytes that are not SSE, a payload that is not a JSON object, an
``error`` event) raises one :class:`~coder.errors.CoderError` line that shows what came back,
escaped, never raw. Nothing here does I/O or imports the HTTP client.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Callable, Iterator, Mapping

from coder.errors import CoderError
from coder.telemetry.prefill import PromptProgress, parse_prompt_progress
from coder.telemetry.stats import Chunk, RequestStats, by_type

MAX_EVENT_BYTES = 4 * 1024 * 1024  # no real chunk comes near this; a server streaming junk without a break does
_FIELDS = (b"data:", b"event:", b"id:", b"retry:", b":")


def _parser() -> Callable[[bytes], object]:
    """orjson when installed (4 µs per llama.cpp event against json's 16 µs on a busy 2-core box), else json."""
    try:
        loads: Callable[[bytes], object] = importlib.import_module("orjson").loads
    except ImportError:
        return json.loads
    return loads


_loads = _parser()


def preview(raw: bytes | str, limit: int = 80) -> str:
    """What a server sent, for a one-line message: truncated, control characters escaped."""
    text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
    cut = text[:limit]
    shown = ascii(cut)[1:-1] if not cut.isprintable() or not cut.isascii() else cut
    return shown + ("…" if len(text) > limit else "")


class EventSplitter:
    """Bytes in, complete ``data`` payloads out (``\\n``, ``\\r\\n`` and ``\\r`` line ends alike)."""

    def __init__(self) -> None:
        self._rest = b""

    def feed(self, data: bytes) -> list[bytes]:
        """The payloads of the events ``data`` completes, in order; raises CoderError on non-SSE bytes."""
        buf = self._rest + data if self._rest else data
        if b"\r" in buf:
            if buf.endswith(b"\r"):  # a \r\n may be split across reads: keep the \r for the next one
                self._rest = buf
                return []
            buf = buf.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        end = buf.rfind(b"\n\n")
        if end < 0:
            if len(buf) > MAX_EVENT_BYTES:
                raise CoderError(f"the server's stream has no event boundary in {len(buf)} bytes: {preview(buf)}")
            self._rest = buf
            return []
        self._rest = buf[end + 2:]
        out: list[bytes] = []
        for line in buf[:end].split(b"\n"):
            if line.startswith(b"data:"):
                out.append(line[6:] if line.startswith(b"data: ") else line[5:])
            elif line and not line.startswith(_FIELDS):
                if line.startswith(b"error:"):  # older llama.cpp builds: `error: {json}` mid-stream
                    raise CoderError(f"the server reported an error mid-reply: {error_text(line[6:])}")
                raise CoderError(f"the server's stream is not server-sent events: {preview(line)}")
        return out

    @property
    def pending(self) -> bool:
        """True when bytes of an unfinished event are buffered (a stream cut off inside an event)."""
        return bool(self._rest.strip())


def error_text(payload: bytes | Mapping[str, object]) -> str:
    """The message of an OpenAI-style error body (``{"error": {"message": …}}``), else a preview of it."""
    obj: object = payload
    if isinstance(payload, bytes):
        try:
            obj = _loads(payload)
        except (ValueError, RecursionError):
            return preview(payload)
    err = obj.get("error", obj) if isinstance(obj, Mapping) else obj
    if isinstance(err, Mapping) and "message" in err:
        return preview(str(err["message"]), 200)
    return preview(str(err), 200)


class ChunkReader:
    """Folds a chat stream's events into :class:`Chunk` updates (one per read) and its final stats.

    ``stats`` is the request's running :class:`RequestStats`: usage, finish reason, the last
    ``timings`` (llama.cpp) and the draft counters. ``done`` turns true on ``[DONE]``.
    """

    def __init__(self, stats: RequestStats, *, progress: bool = False) -> None:
        self.stats = stats
        self.progress = progress
        self.done = False
        self.parts: list[str] = []  # all content, joined once at the end
        self.chars = 0  # characters of content so far (the caller bounds it)
        self._timings: Mapping[str, object] | None = None
        self._draft_n = 0

    def read(self, payloads: list[bytes], elapsed: float) -> Iterator[Chunk | PromptProgress]:
        """Everything ``payloads`` (one network read's events) say: progress updates, then one Chunk."""
        texts: list[str] = []
        count = 0
        predicted: object = None
        timings: Mapping[str, object] | None = None
        usage: Mapping[str, object] | None = None
        for payload in payloads:
            obj = self._event(payload)
            if obj is None:
                continue
            if self.progress and "prompt_progress" in obj and (
                    update := parse_prompt_progress(obj, elapsed)) is not None:
                yield update
            t = obj.get("timings")
            if type(t) is dict:
                timings = t
                self._see_draft(t.get("draft_n"))
                predicted = t.get("predicted_n", predicted)
            u = obj.get("usage")
            if type(u) is dict:
                usage = u
            choices = obj.get("choices")
            if choices:
                count += self._choices(choices, texts, payload)
        if timings is not None:
            self._timings = timings
        chunk = self._chunk(texts, count, elapsed, timings, predicted) if count else None
        if usage is not None:  # the server's final count wins over the running predicted_n
            self._usage(usage)
        if chunk is not None:
            yield chunk

    def _event(self, payload: bytes) -> dict[str, object] | None:
        """One payload as a JSON object (None for ``[DONE]``); CoderError for anything else."""
        if payload == b"[DONE]":
            self.done = True
            return None
        try:
            obj = _loads(payload)
        except (ValueError, RecursionError):  # orjson's JSONDecodeError is a ValueError too
            raise CoderError(f"the server sent a stream event that is not JSON: {preview(payload)}") from None
        if type(obj) is not dict:
            raise CoderError(f"the server sent a stream event that is not a JSON object: {preview(payload)}")
        if "error" in obj:
            raise CoderError(f"the server reported an error mid-reply: {error_text(obj)}")
        return obj

    def _choices(self, choices: object, texts: list[str], payload: bytes) -> int:
        """Append each choice's content to ``texts``; returns how many carried content."""
        if type(choices) is not list:
            raise CoderError(f"the server sent a stream event whose choices are not a list: {preview(payload)}")
        count = 0
        for choice in choices:
            if type(choice) is not dict:
                raise CoderError(f"the server sent a malformed choice: {preview(payload)}")
            reason = choice.get("finish_reason")
            if reason:
                self.stats.finish_reason = str(reason)
            delta = choice.get("delta")
            text = delta.get("content") if type(delta) is dict else None
            if text:
                if type(text) is not str:
                    raise CoderError(f"the server sent non-text content: {preview(payload)}")
                texts.append(text)
                count += 1
        return count

    def _chunk(self, texts: list[str], count: int, elapsed: float, timings: Mapping[str, object] | None,
               predicted: object) -> Chunk:
        text = texts[0] if count == 1 else "".join(texts)
        self.parts.append(text)
        self.chars += len(text)
        per_type = by_type(timings) if timings is not None and "draft_by_type" in timings else None
        draft_n = _int(timings.get("draft_n")) if timings is not None else None
        accepted = _int(timings.get("draft_n_accepted")) if timings is not None else None
        chunk = Chunk(text, elapsed, draft_n, accepted, _int(predicted), per_type, count=count,
                      draft_steps=self.stats.draft_steps if draft_n is not None else None)
        self.stats.add(chunk)
        return chunk

    def _see_draft(self, value: object) -> None:
        """Every growth of the running ``draft_n`` is one drafted step: counted per event, not per read."""
        if type(value) is int and value > self._draft_n:
            self._draft_n = value
            self.stats.draft_steps += 1

    def _usage(self, usage: Mapping[str, object]) -> None:
        stats = self.stats
        stats.prompt_tokens = _int(usage.get("prompt_tokens"))
        stats.completion_tokens = _int(usage.get("completion_tokens"))
        details = usage.get("prompt_tokens_details")
        if isinstance(details, Mapping) and (cached := _int(details.get("cached_tokens"))) is not None:
            stats.cached_tokens = cached

    def finish(self, elapsed: float) -> str:
        """Adopt the last ``timings`` (llama.cpp's final figures) and return the whole text."""
        if self._timings is not None:
            timings = {str(k): float(v) for k, v in self._timings.items()
                       if isinstance(v, int | float) and not isinstance(v, bool)}
            steps = self.stats.draft_steps
            self.stats.take_timings(timings)
            self.stats.draft_steps = steps  # already counted per event; take_timings must not add one
            if (per_type := by_type(self._timings)) is not None:
                self.stats.draft_by_type = per_type
        self.stats.elapsed = elapsed
        return "".join(self.parts)


def _int(value: object) -> int | None:
    if type(value) is int:
        return value
    if type(value) is float:
        return int(value)
    return None
