"""Streaming chat client: SSE bytes read with coder's HTTP client, decoded by :mod:`coder.backends.runtime.sse`.

No typed objects per chunk: the OpenAI SDK's pydantic models cost ~0.3 ms per streamed token,
which at 5,000 tok/s is more than a core. Every engine coder drives (llama.cpp, vLLM, SGLang)
frames its stream the same way, so plain JSON is all the compatibility needed.

What goes into the request body beyond the OpenAI fields (llama.cpp's
``timings_per_token``, ``cache_prompt``, coder's per-request draft cap) is the
engine adapter's business (:meth:`EngineAdapter.request_extras`). On llama.cpp,
``timings_per_token`` puts running ``draft_n``/``draft_n_accepted`` in every
chunk and ``stream_options.include_usage`` adds a final usage chunk that carries
the final ``timings``.

Time limits, each ending the request with one line:

- the response headers must come within :func:`headers_deadline` seconds: a few seconds plus
  the prompt at a floor prefill rate (llama.cpp sends them with its first result, a prompt
  progress event when asked for one), never ``timeout``'s ten minutes for a small prompt;
- once the body streams, ``idle_timeout`` seconds without a token (content or prompt
  progress) end it: bytes that carry none, such as ``: keepalive`` comments, do not count;
- the whole request has a deadline: the headers' allowance plus ``max_tokens`` at a floor
  decode rate, so a server that trickles forever is stopped too.

Nothing a server sends is held unbounded: an error body is read up to 4 KiB, an event up to
:data:`~coder.backends.runtime.sse.MAX_EVENT_BYTES`, and the reply up to ``max_tokens`` times
:data:`MAX_CHARS_PER_TOKEN` characters.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Generator, Mapping
from typing import TYPE_CHECKING, Literal, Protocol, overload

from coder.backends.runtime.http import read_capped
from coder.backends.runtime.sse import ChunkReader, EventSplitter, error_text, preview
from coder.errors import CoderError
from coder.telemetry.prefill import PromptProgress
from coder.telemetry.stats import Chunk, Reply, RequestStats

if TYPE_CHECKING:
    from coder.backends.runtime.http import Client, Response

STREAM_IDLE_S = 30.0  # seconds without a token, once the reply streams, before coder gives up
HEADERS_S = 20.0  # the headers' allowance for an empty prompt (connect included)
FLOOR_PREFILL_TPS = 40.0  # prompt tokens per second no working server falls below (2 busy CPU cores: ~100)
FLOOR_DECODE_TPS = 2.0  # output tokens per second likewise (the same box decodes 1.5B at ~10)
CHARS_PER_TOKEN = 3.0  # a prompt's size in tokens, estimated from its characters (code: 3-4)
MAX_CHARS_PER_TOKEN = 128  # no vocabulary's token is longer: more text per asked-for token is junk
ERROR_BODY_BYTES = 4096  # what an error or wrong-kind answer is read to (the rest is never held)
IDLE_SHOWN_AFTER_S = 3.0  # a pause shorter than this is ordinary (a long verification step, a busy box)


def stream_idle_s() -> float:
    """The idle timeout: ``CODER_STREAM_IDLE_S`` when set to a positive number, else 30 s."""
    import os

    try:
        value = float(os.environ.get("CODER_STREAM_IDLE_S", ""))
    except ValueError:
        return STREAM_IDLE_S
    return value if 0 < value < 1e6 else STREAM_IDLE_S


def idle_note(idle: float, limit: float | None = None) -> str | None:
    """The progress line's countdown once a streaming reply paused: ``no token for 7 s, giving up in 23 s``."""
    if idle < IDLE_SHOWN_AFTER_S:
        return None
    limit = stream_idle_s() if limit is None else limit
    return f"no token for {idle:.0f} s, giving up in {max(0.0, limit - idle):.0f} s"


def headers_deadline(messages: list[dict[str, str]]) -> float:
    """Seconds the response headers may take: :data:`HEADERS_S` plus the prompt at the floor prefill rate."""
    chars = sum(len(m.get("content", "")) for m in messages)
    return HEADERS_S + chars / CHARS_PER_TOKEN / FLOOR_PREFILL_TPS


def overall_deadline(messages: list[dict[str, str]], max_tokens: int) -> float:
    """Seconds the whole request may take: the headers' allowance plus ``max_tokens`` at the floor decode rate."""
    return headers_deadline(messages) + max_tokens / FLOOR_DECODE_TPS


class RequestExtras(Protocol):
    """The adapter hook that adds engine-specific request fields."""

    def request_extras(self, *, k_cap: int | None, cache_prompt: bool | None,
                       progress: bool = False, prediction: str | None = None) -> dict[str, object]:
        """Extra body fields for one streamed chat request."""
        ...


Message = dict[str, str]

_POOLS: dict[str, Client] = {}
_POOLS_LOCK = threading.Lock()


def _pool(url: str) -> Client:
    """One connection pool per server and process: a request reuses the last one's connection.

    A pool made before a command began to record its timings is made again (a test process runs many
    commands; a port reused gives a later server an earlier one's pool): its requests would go unrecorded.
    """
    from coder.backends.runtime.http import make_client
    from coder.telemetry import timings

    with _POOLS_LOCK:
        client = _POOLS.get(url)
        if client is None or client.timed != (timings.RECORDER is not None):
            client = _POOLS[url] = make_client(url, keepalive=2)
        return client


class ChatClient:
    """OpenAI-compatible streaming against llama.cpp, vLLM or SGLang."""

    def __init__(self, base_url: str, api_key: str | None, extras: RequestExtras,
                 timeout: float = 600.0, idle_timeout: float | None = None, model: str | None = None) -> None:
        self.extras = extras
        # vLLM and SGLang answer 404 to any name but the one they serve; llama.cpp takes any
        self.model = model or "default"
        self.base_url = base_url.rstrip("/")
        self.url = self.base_url + "/v1/chat/completions"
        self._headers = {"Authorization": f"Bearer {api_key or 'none'}", "Accept": "text/event-stream"}
        self.timeout = timeout
        self.idle_timeout = idle_timeout if idle_timeout is not None else stream_idle_s()

    @overload
    def stream(
        self,
        messages: list[Message],
        *,
        max_tokens: int = ...,
        temperature: float = ...,
        k_cap: int | None = ...,
        cache_prompt: bool | None = ...,
        stop: list[str] | None = ...,
        model: str | None = ...,
        extra_body: Mapping[str, object] | None = ...,
        progress: Literal[False] = ...,
        prediction: str | None = ...,
    ) -> Generator[Chunk | Reply, None, None]: ...

    @overload
    def stream(
        self,
        messages: list[Message],
        *,
        max_tokens: int = ...,
        temperature: float = ...,
        k_cap: int | None = ...,
        cache_prompt: bool | None = ...,
        stop: list[str] | None = ...,
        model: str | None = ...,
        extra_body: Mapping[str, object] | None = ...,
        progress: bool,
        prediction: str | None = ...,
    ) -> Generator[Chunk | PromptProgress | Reply, None, None]: ...

    def stream(
        self,
        messages: list[Message],
        *,
        max_tokens: int = 512,
        temperature: float = 0.0,
        k_cap: int | None = None,
        cache_prompt: bool | None = None,
        stop: list[str] | None = None,
        model: str | None = None,
        extra_body: Mapping[str, object] | None = None,
        progress: bool = False,
        prediction: str | None = None,
    ) -> Generator[Chunk | PromptProgress | Reply, None, None]:
        """Yield a :class:`Chunk` per network read that carried content, then one :class:`Reply`.

        A read that brings several stream events (a verification step's burst) yields one Chunk
        (``Chunk.count`` says how many). With ``progress``, :class:`PromptProgress` updates come
        first while the prompt is processed (engines that stream them: llama.cpp). Closing the
        generator early cancels the request on the server. ``prediction`` (the text the reply
        will mostly copy) goes to the adapter; pass it only where ``ServerInfo.prediction``.
        Refusals, junk, a stalled stream and a server gone mid-reply raise one-line CoderErrors.
        """
        from coder.backends.runtime import http

        body: dict[str, object] = {
            "model": model or self.model, "messages": messages, "max_tokens": max_tokens, "temperature": temperature,
            "stream": True, "stream_options": {"include_usage": True},
        }
        if stop is not None:
            body["stop"] = stop
        body.update(extra_body or {})
        body.update(self.extras.request_extras(k_cap=k_cap, cache_prompt=cache_prompt, progress=progress,
                                               prediction=prediction))
        stats = RequestStats(k_cap=k_cap)
        reader = ChunkReader(stats, progress=progress)
        client = _pool(self.base_url)
        to_headers = min(self.timeout, headers_deadline(messages))
        start = time.monotonic()
        try:
            response = client.send("POST", "/v1/chat/completions", json=body, headers=self._headers,
                                   timeout=http.Timeout(to_headers, connect=min(to_headers, 10.0)))
        except http.TimeoutException:
            raise CoderError(f"backend did not answer within {to_headers:.0f} s (no response headers; "
                             "is it stuck, or not an inference server?)") from None
        except http.HTTPError as exc:
            raise CoderError(f"backend unreachable: {exc}") from None
        try:
            _check_response(response)
            response.set_read_timeout(self.idle_timeout)  # the headers are in: from here on the idle limit
            yield from self._events(response, reader, start, max_tokens, overall_deadline(messages, max_tokens))
        except http.TimeoutException:
            raise CoderError(self._idle_line(stats)) from None
        except (http.RemoteProtocolError, http.ReadError):
            raise CoderError(_gone(stats)) from None
        except http.HTTPError as exc:
            raise CoderError(f"backend connection lost mid-reply ({type(exc).__name__})") from None
        finally:
            response.close()
        # EOF without [DONE]: a close-delimited body (HTTP/1.0) may end so; a chunked one cut short raised above
        text = reader.finish(time.monotonic() - start)
        yield Reply(text, stats)


    def _idle_line(self, stats: RequestStats) -> str:
        return (f"the server sent no token for {self.idle_timeout:.0f} s mid-reply "
                f"(stream idle timeout, {stats.chunks} tokens in)")

    def _events(self, response: Response, reader: ChunkReader, start: float, max_tokens: int,
                deadline: float) -> Generator[Chunk | PromptProgress, None, None]:
        """The stream's updates until ``[DONE]``; the idle timer counts tokens, not bytes."""
        splitter = EventSplitter()
        last_token = start
        max_chars = max_tokens * MAX_CHARS_PER_TOKEN + ERROR_BODY_BYTES
        for data in response.iter_bytes():
            now = time.monotonic()
            payloads = splitter.feed(data)
            for update in reader.read(payloads, now - start) if payloads else ():
                last_token = now
                yield update
            if reader.done:
                return
            if now - last_token > self.idle_timeout:  # bytes came (a keep-alive comment), no token did
                raise CoderError(self._idle_line(reader.stats))
            if now - start > deadline:
                raise CoderError(f"the reply took more than {deadline:.0f} s (the deadline for {max_tokens} tokens "
                                 f"at {FLOOR_DECODE_TPS:g} tok/s, the slowest a working server decodes)")
            if reader.chars > max_chars:
                raise CoderError(f"the server sent more than {max_chars:,} characters for {max_tokens} tokens "
                                 "asked for; not a reply")


def _gone(stats: RequestStats) -> str:
    return (f"backend gone mid-reply: the server closed the connection after {stats.chunks} tokens "
            "(it stopped or crashed)")


def _check_response(response: Response) -> None:
    """One line for a refusal (status >= 400) or an answer that is not an event stream."""
    if response.status_code >= 400:
        raw = read_capped(response, ERROR_BODY_BYTES)
        raise CoderError(f"backend refused the request ({response.status_code}): {error_text(raw)}")
    ctype = response.headers.get("content-type", "")
    if "event-stream" not in ctype:
        raw = read_capped(response, ERROR_BODY_BYTES)
        raise CoderError(f"backend answered {ctype or 'without a content type'} instead of an event stream: "
                         f"{preview(raw)}")
