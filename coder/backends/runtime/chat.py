"""Streaming chat client (openai package) that reports speculation counters as it streams.

What goes into the request body beyond the OpenAI fields (llama.cpp's
``timings_per_token``, ``cache_prompt``, coder's per-request draft cap) is the
engine adapter's business (:meth:`EngineAdapter.request_extras`). On llama.cpp,
``timings_per_token`` puts running ``draft_n``/``draft_n_accepted`` in every
chunk and ``stream_options.include_usage`` adds a final usage chunk that carries
the final ``timings``.
"""

from __future__ import annotations

import time
from collections.abc import Generator, Iterator, Mapping
from typing import TYPE_CHECKING, Literal, Protocol, overload

import httpx

from coder.errors import CoderError
from coder.telemetry.prefill import PromptProgress, parse_prompt_progress
from coder.telemetry.stats import Chunk, DraftByType, Reply, RequestStats, Timings, by_type

if TYPE_CHECKING:
    import openai
    from openai.types.chat import ChatCompletionChunk


class RequestExtras(Protocol):
    """The adapter hook that adds engine-specific request fields."""

    def request_extras(self, *, k_cap: int | None, cache_prompt: bool | None,
                       progress: bool = False, prediction: str | None = None) -> dict[str, object]:
        """Extra body fields for one streamed chat request."""
        ...


Message = dict[str, str]


def _draft_by_type(chunk: ChatCompletionChunk) -> DraftByType | None:
    raw = (chunk.model_extra or {}).get("timings")
    return by_type(raw) if isinstance(raw, dict) else None


def _timings(chunk: ChatCompletionChunk) -> Timings:
    extra = chunk.model_extra or {}
    raw = extra.get("timings")
    if not isinstance(raw, dict):
        return {}
    return {str(k): float(v) for k, v in raw.items() if isinstance(v, int | float)}


class ChatClient:
    """OpenAI-compatible streaming against llama.cpp, vLLM or SGLang."""

    def __init__(self, base_url: str, api_key: str | None, extras: RequestExtras,
                 timeout: float = 600.0, model: str | None = None) -> None:
        import openai  # ~1.5 s to import: deferred so `coder --help` and the TUI's first paint stay fast

        self.extras = extras
        # vLLM and SGLang answer 404 to any name but the one they serve; llama.cpp takes any
        self.model = model or "default"
        self._client = openai.OpenAI(
            base_url=base_url.rstrip("/") + "/v1", api_key=api_key or "none",
            timeout=timeout, max_retries=0,
        )

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
        """Yield a :class:`Chunk` per content piece, then one :class:`Reply`.

        With ``progress``, :class:`PromptProgress` updates come first while the prompt is
        processed (engines that stream them: llama.cpp). Closing the generator early
        cancels the request on the server. ``prediction`` (the text the reply will mostly
        copy) goes to the adapter; pass it only where ``ServerInfo.prediction``. Connection
        loss, timeouts and refusals raise one-line CoderErrors.
        """
        import openai

        body: dict[str, object] = dict(extra_body or {})
        body.update(self.extras.request_extras(k_cap=k_cap, cache_prompt=cache_prompt, progress=progress,
                                               prediction=prediction))
        stats = RequestStats(k_cap=k_cap)
        parts: list[str] = []
        start = time.monotonic()
        try:
            response = self._client.chat.completions.create(  # type: ignore[call-overload]
                model=model or self.model, messages=messages,
                max_tokens=max_tokens, temperature=temperature, stream=True,
                stream_options={"include_usage": True}, stop=stop, extra_body=body,
            )
            with response:
                for chunk in response:
                    if progress and (update := parse_prompt_progress(
                            chunk.model_extra or {}, time.monotonic() - start)) is not None:
                        yield update
                    yield from self._pieces(chunk, stats, parts, start)
        # APITimeoutError subclasses APIConnectionError: one branch covers both
        except openai.APIConnectionError as exc:
            raise CoderError(f"backend unreachable: {exc.__cause__ or exc}") from None
        except openai.APIStatusError as exc:
            raise CoderError(f"backend refused the request ({exc.status_code}): {_message(exc)}") from None
        except (httpx.HTTPError, openai.APIError) as exc:
            # a server dying mid-stream surfaces as a transport error from the SSE iterator
            raise CoderError(f"backend connection lost mid-stream ({type(exc).__name__})") from None
        stats.elapsed = time.monotonic() - start
        yield Reply("".join(parts), stats)

    @staticmethod
    def _pieces(chunk: ChatCompletionChunk, stats: RequestStats, parts: list[str],
                start: float) -> Iterator[Chunk]:
        timings = _timings(chunk)
        if timings:
            stats.take_timings(timings)
        if (per_type := _draft_by_type(chunk)) is not None:
            stats.draft_by_type = per_type
        if chunk.usage is not None:
            stats.prompt_tokens = chunk.usage.prompt_tokens
            stats.completion_tokens = chunk.usage.completion_tokens
            details = chunk.usage.prompt_tokens_details
            if details is not None and details.cached_tokens is not None:
                stats.cached_tokens = details.cached_tokens
        for choice in chunk.choices:
            if choice.finish_reason:
                stats.finish_reason = choice.finish_reason
            text = choice.delta.content or ""
            if not text:
                continue
            predicted = timings.get("predicted_n")
            piece = Chunk(text, time.monotonic() - start, stats.draft_n, stats.draft_n_accepted,
                          int(predicted) if predicted is not None else None, per_type)
            stats.add(piece)
            parts.append(text)
            yield piece


def _message(exc: openai.APIStatusError) -> str:
    body = exc.body
    if isinstance(body, dict):
        err = body.get("error", body)
        if isinstance(err, dict) and "message" in err:
            return str(err["message"])
    return str(exc.message)
