"""Streaming chat client (openai package) that reports speculation as it streams.

On llama.cpp, ``timings_per_token`` puts running ``draft_n``/``draft_n_accepted``
in every chunk; ``stream_options.include_usage`` adds a final usage chunk that
carries the final ``timings``. On coder's own llama-server build the request
field ``speculative.n_max`` caps the draft depth for this request.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from coder.backends.draft_cap_patch import REQUEST_FIELD
from coder.backends.prediction_patch import REQUEST_FIELD as PREDICTION_FIELD
from coder.errors import CoderError

if TYPE_CHECKING:
    import openai


@dataclass(frozen=True)
class Delta:
    """A piece of streamed content with the speculation counters seen so far."""

    text: str
    elapsed: float  # seconds since the request was sent
    draft_n: int | None = None
    draft_n_accepted: int | None = None
    predicted_n: int | None = None
    draft_by_type: dict[str, dict[str, int]] | None = None  # coder's build: per speculator


@dataclass
class StreamResult:
    """Everything known once a streamed request has finished (or was stopped)."""

    text: str = ""
    finish_reason: str | None = None
    ttft: float | None = None  # first non-empty content
    wall: float = 0.0
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    cached_tokens: int | None = None
    draft_n: int | None = None
    draft_n_accepted: int | None = None
    timings: dict[str, Any] = field(default_factory=dict)
    stopped_early: bool = False
    k_cap: int | None = None

    @property
    def tokens(self) -> int:
        return self.completion_tokens or int(self.timings.get("predicted_n", 0))

    @property
    def decode_tps(self) -> float | None:
        """completion_tokens / (wall − TTFT): decode speed excluding prefill."""
        if self.ttft is None or self.wall <= self.ttft or not self.tokens:
            return None
        return self.tokens / (self.wall - self.ttft)

    @property
    def draft_acceptance(self) -> float | None:
        if not self.draft_n:
            return None
        return (self.draft_n_accepted or 0) / self.draft_n

    @property
    def draft_by_type(self) -> dict[str, dict[str, int]] | None:
        """Which speculator drafted how much (coder's llama-server build only)."""
        return by_type(self.timings)


def by_type(timings: dict[str, Any]) -> dict[str, dict[str, int]] | None:
    """``timings.draft_by_type`` of coder's build: {type: {steps, draft_n, draft_n_accepted}}."""
    raw = timings.get("draft_by_type")
    if not isinstance(raw, dict):
        return None
    return {str(t): {k: int(v.get(k, 0)) for k in ("steps", "draft_n", "draft_n_accepted")}
            for t, v in raw.items() if isinstance(v, dict)}


def _timings(chunk: Any) -> dict[str, Any]:
    extra = getattr(chunk, "model_extra", None) or {}
    timings = extra.get("timings")
    return timings if isinstance(timings, dict) else {}


class ChatClient:
    """OpenAI-compatible streaming against llama.cpp, vLLM or SGLang."""

    def __init__(self, base_url: str, api_key: str | None, engine: str = "llama.cpp",
                 timeout: float = 600.0) -> None:
        import openai  # ~1.5 s to import: deferred so the TUI paints first (issue 4 startup target)

        self.engine = engine
        self._client = openai.OpenAI(
            base_url=base_url.rstrip("/") + "/v1", api_key=api_key or "none",
            timeout=timeout, max_retries=0,
        )

    def stream(
        self,
        messages: list[dict[str, str]],
        *,
        max_tokens: int = 512,
        temperature: float = 0.0,
        k_cap: int | None = None,
        cache_prompt: bool | None = None,
        stop: list[str] | None = None,
        model: str = "default",
        extra_body: dict[str, Any] | None = None,
        prediction: str | None = None,
    ) -> Iterator[Delta | StreamResult]:
        """Yield :class:`Delta` per content chunk, then one :class:`StreamResult`.

        ``prediction`` (the text the reply will mostly copy) is sent in OpenAI's Predicted
        Outputs shape; pass it only to a server that drafts from it (``ServerInfo.prediction``).
        Closing the generator early cancels the request on the server.
        """
        import openai

        body: dict[str, Any] = dict(extra_body or {})
        if self.engine == "llama.cpp":
            body["timings_per_token"] = True
            if k_cap is not None:
                body[REQUEST_FIELD] = k_cap
            if cache_prompt is not None:
                body["cache_prompt"] = cache_prompt
            if prediction:
                body[PREDICTION_FIELD] = {"type": "content", "content": prediction}
        result = StreamResult(k_cap=k_cap)
        parts: list[str] = []
        start = time.monotonic()
        try:
            response = self._client.chat.completions.create(  # type: ignore[call-overload]
                model=model, messages=messages,
                max_tokens=max_tokens, temperature=temperature, stream=True,
                stream_options={"include_usage": True}, stop=stop, extra_body=body,
            )
            with response:
                for chunk in response:
                    timings = _timings(chunk)
                    if timings:
                        result.timings = timings
                        result.draft_n = timings.get("draft_n", result.draft_n)
                        result.draft_n_accepted = timings.get("draft_n_accepted", result.draft_n_accepted)
                    if chunk.usage is not None:
                        result.prompt_tokens = chunk.usage.prompt_tokens
                        result.completion_tokens = chunk.usage.completion_tokens
                        details = chunk.usage.prompt_tokens_details
                        result.cached_tokens = details.cached_tokens if details else None
                    for choice in chunk.choices:
                        if choice.finish_reason:
                            result.finish_reason = choice.finish_reason
                        text = choice.delta.content or ""
                        if not text:
                            continue
                        now = time.monotonic() - start
                        if result.ttft is None:
                            result.ttft = now
                        parts.append(text)
                        yield Delta(
                            text, now, result.draft_n, result.draft_n_accepted,
                            timings.get("predicted_n"), by_type(timings),
                        )
        except GeneratorExit:
            result.stopped_early = True
            raise
        except openai.APIConnectionError as exc:
            raise CoderError(f"backend unreachable: {exc.__cause__ or exc}") from None
        except openai.APIStatusError as exc:
            raise CoderError(f"backend refused the request ({exc.status_code}): {_message(exc)}") from None
        except openai.APITimeoutError:
            raise CoderError("backend timed out") from None
        result.text = "".join(parts)
        result.wall = time.monotonic() - start
        yield result


def _message(exc: openai.APIStatusError) -> str:
    body = exc.body
    if isinstance(body, dict):
        err = body.get("error", body)
        if isinstance(err, dict) and "message" in err:
            return str(err["message"])
    return str(exc.message)
