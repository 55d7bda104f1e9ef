"""How a warm-up prefix reaches each engine's prompt cache: the senders the adapters hand out
(``EngineAdapter.warm_sender``) for :class:`coder.edit.run.warmup.cache.CacheWarmer`.

A sender gets the chat messages of an edit prompt whose last message is cut where the
instruction would start (:func:`coder.edit.run.warmup.cache.edit_prefix` builds them).

* llama.cpp: ``/apply-template`` renders the edit's messages with the server's own chat
  template, the rendered text is cut at the warm-up mark, and ``/completion`` prefills
  it with ``n_predict: 0`` (at most one token is sampled), ``cache_prompt: true``,
  streamed with ``return_progress`` so the panel can show how far it got. The cut is a
  byte prefix of what the real chat request renders, so every token but possibly the
  last one at the cut is reused.
* OpenAI-compatible engines with automatic prefix caching (vLLM, SGLang): a chat
  request of the cut messages with ``max_tokens: 1``; the template's end-of-turn
  tokens after the cut are the only part not shared with the real request.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from coder.backends.runtime.server import ServerInfo, answer_json
from coder.errors import CoderError
from coder.jsontypes import as_count, as_object
from coder.telemetry.prefill import PromptProgress, parse_prompt_progress
from coder.textsafe import one_line

if TYPE_CHECKING:
    from coder.backends.runtime.chat import RequestExtras
    from coder.backends.runtime.http import Response
    from coder.telemetry.stats import Chunk


def _http_error() -> type[Exception]:
    from coder.backends.runtime.http import HTTPError

    return HTTPError


SENTINEL = "\u2063coder-warm-up-cut\u2063"  # invisible separators: never in a real instruction
Message = dict[str, str]


class Cancelled(Exception):
    """Raised inside a sender when the warm-up was superseded or an edit needs the server."""


class WarmSender(Protocol):
    """Sends one cut prompt for prefill only (one per engine, from ``EngineAdapter.warm_sender``)."""

    def send(self, messages: list[Message], progress: Callable[[PromptProgress], None],
             cancelled: Callable[[], bool]) -> int:
        """Prefill ``messages``; returns the prompt tokens now cached. Raises CoderError or Cancelled."""
        ...


class LlamaCppWarmSender:
    """Warm-up through llama.cpp's ``/apply-template`` and streamed ``/completion``."""

    def __init__(self, server: ServerInfo, *, check_idle: bool = False, timeout: float = 600.0) -> None:
        self.server = server
        self.check_idle = check_idle  # attached servers: skip while another client's request runs
        headers = {"Authorization": f"Bearer {server.api_key}"} if server.api_key else {}
        from coder.backends.runtime.http import make_client

        self._http = make_client(server.url.rstrip("/"), headers=headers, timeout=timeout)

    def render(self, messages: list[Message]) -> str:
        """The prompt text the server's template makes of the edit's messages, cut at the mark."""
        messages = [dict(m) for m in messages]
        messages[-1]["content"] += SENTINEL  # render with the mark where the instruction goes
        resp = self._post("/apply-template", {"messages": messages})
        prompt = as_object(answer_json(f"{self.server.url}/apply-template", resp, dict)).get("prompt")
        if not isinstance(prompt, str) or SENTINEL not in prompt:
            raise CoderError("/apply-template returned no usable prompt")
        return prompt[: prompt.index(SENTINEL)]

    def busy(self) -> bool:
        """True when some slot is processing (only checked for attached servers)."""
        try:
            resp = self._http.get("/slots")
        except _http_error():
            return False
        try:
            slots = answer_json(f"{self.server.url}/slots", resp, list)
        except CoderError:
            return False
        return isinstance(slots, list) and any(isinstance(s, dict) and s.get("is_processing") for s in slots)

    def send(self, messages: list[Message], progress: Callable[[PromptProgress], None],
             cancelled: Callable[[], bool]) -> int:
        """Prefill ``messages`` (the last one cut); returns the prompt tokens now cached."""
        if self.check_idle and self.busy():
            raise CoderError("the server is busy with another request; not warming")
        prompt = self.render(messages)
        body = {"prompt": prompt, "n_predict": 0, "cache_prompt": True, "stream": True,
                "return_progress": True, "temperature": 0}
        final: dict[str, Any] = {}
        try:
            with self._http.stream("POST", "/completion", json=body) as resp:
                if resp.status_code != 200:
                    from coder.backends.runtime.http import read_capped

                    text = read_capped(resp, 4096).decode("utf-8", "replace")
                    raise CoderError(f"/completion answered {resp.status_code}: {one_line(text, 100)}")
                for line in resp.iter_lines():
                    if cancelled():
                        raise Cancelled  # leaving the block closes the stream: the server cancels it
                    if not line.startswith("data: "):
                        continue
                    chunk = _event(line[6:])
                    if (update := parse_prompt_progress(chunk)) is not None:
                        progress(update)
                    if chunk.get("stop"):
                        final = chunk
        except _http_error() as exc:
            raise CoderError(f"server unreachable ({type(exc).__name__})") from None
        timings = as_object(final.get("timings"))
        cached = as_count(timings.get("cache_n")) + as_count(timings.get("prompt_n"))
        return cached or as_count(final.get("tokens_evaluated"))

    def _post(self, path: str, body: dict[str, Any]) -> Response:
        try:
            return self._http.post(path, json=body)
        except _http_error() as exc:
            raise CoderError(f"server unreachable ({type(exc).__name__})") from None

    def close(self) -> None:
        """Close the HTTP connection pool."""
        self._http.close()


def _event(data: str) -> dict[str, Any]:
    """One streamed ``/completion`` event; anything but a JSON object is one CoderError line."""
    try:
        chunk = json.loads(data)
    except ValueError:
        chunk = None
    if not isinstance(chunk, dict):
        raise CoderError(f"/completion streamed something that is not a JSON object: {one_line(data, 80)}")
    return chunk


class ChatWarmSender:
    """Warm-up for engines with automatic prefix caching: the cut messages, one output token.

    ``extras`` is the engine adapter's request-extras hook (the adapter hands itself in).
    """

    def __init__(self, server: ServerInfo, extras: RequestExtras) -> None:
        self.server = server
        self.extras = extras

    def send(self, messages: list[Message], progress: Callable[[PromptProgress], None],
             cancelled: Callable[[], bool]) -> int:
        """Prefill the cut messages with one output token; returns the prompt tokens reported."""
        from coder.backends.runtime.request import FixedServer, run_request
        from coder.kchoice import KChoice

        def tap(chunk: Chunk) -> None:
            if cancelled():
                raise Cancelled  # the runner closes the stream: the server drops the request

        outcome = run_request(FixedServer(self.server, self.extras), messages,
                              KChoice(None, "warm-up", "prefix warm-up", "launch"), max_tokens=1, tap=tap,
                              cache_prompt=None, metrics=False, learn=False)
        return outcome.stats.prompt_tokens or 0
