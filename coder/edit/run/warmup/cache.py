"""Prompt-cache warm-up: prefill the stable prefix of the next edit prompt while the user types.

The prefix (system prompt, repository context, the file block, up to ``Instruction:``)
is cut from a prompt built by the *same* builder as the edit (:func:`edit_prefix`), so
the real request starts with exactly those bytes and the server reuses the cached
tokens. Rules the :class:`CacheWarmer` keeps:

* never during an edit (it would queue behind or evict the running generation): a
  warm-up asked for while an edit holds the warmer waits until the edit ends;
* never delays an edit beyond its own cost: when an edit starts, a warm-up in flight
  that is a prefix of the edit's prompt is awaited (that work is the edit's own prefill),
  any other is cancelled;
* off for attached servers unless the user asked (``enabled``);
* failures are only a state ("warm-up failed: …"), never an exception to the caller.

How a prefix is sent is engine-specific: the adapter's ``warm_sender``
(:mod:`coder.backends.engines.warm`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from coder.backends.engines.warm import SENTINEL, Cancelled, WarmSender
from coder.edit.run.prompt import build_messages, region_prompt
from coder.edit.source.regions import Region
from coder.errors import CoderError
from coder.telemetry.prefill import PromptProgress

__all__ = ["SENTINEL", "CacheWarmer", "Cancelled", "PromptCacheModel", "WarmPrefix", "WarmState", "edit_prefix"]


@dataclass(frozen=True)
class WarmPrefix:
    """The stable head of an edit prompt: the messages with the user message cut before the instruction."""

    rel: str
    messages: tuple[tuple[str, str], ...]  # (role, content) pairs; the last one is cut

    @property
    def text(self) -> str:
        """The prefix as one string (all message contents joined), for prefix matching."""
        return "".join(content for _, content in self.messages)

    def as_messages(self) -> list[dict[str, str]]:
        """The prefix as OpenAI chat messages (``role``/``content`` dicts), ready to send."""
        return [{"role": role, "content": content} for role, content in self.messages]

    def is_prefix_of(self, messages: Sequence[dict[str, str]]) -> bool:
        """True when ``messages`` (a real edit prompt) begins with exactly this prefix."""
        if len(messages) != len(self.messages):
            return False
        *whole, (last_role, last) = self.messages
        for (role, content), msg in zip(whole, messages[:-1], strict=True):
            if msg["role"] != role or msg["content"] != content:
                return False
        return messages[-1]["role"] == last_role and messages[-1]["content"].startswith(last)


def edit_prefix(rel: str, text: str, repo_context: str, region: Region | None = None) -> WarmPrefix:
    """The warm-up prefix of an edit of ``rel``: full-file, or of ``region`` (same builder, cut at the instruction)."""
    if region is None:
        prompt = build_messages(rel, text, SENTINEL, mode="full", repo_context=repo_context)
    else:
        prompt, _ = region_prompt(rel, text, region, SENTINEL, repo_context=repo_context)
    pairs = [(m["role"], m["content"]) for m in prompt.messages]
    role, content = pairs[-1]
    at = content.index(SENTINEL)
    label = rel if region is None else f"{rel}, {region.label}"
    return WarmPrefix(label, (*pairs[:-1], (role, content[:at])))


@dataclass(frozen=True)
class WarmState:
    """What the panel shows: ``cache: warming 40% / warm (N tokens) / warm-up failed``."""

    status: str = "idle"  # idle | off | waiting | warming | warm | failed | cancelled
    rel: str | None = None
    tokens: int = 0  # prompt tokens now in the cache for this prefix
    total: int = 0
    processed: int = 0
    detail: str = ""

    def label(self) -> str:
        """The short status text the panel shows for this state."""
        if self.status == "warming":
            share = f" {100 * self.processed // self.total}%" if self.total else ""
            return f"cache: warming{share} ({self.rel})"
        if self.status == "warm":
            return f"cache: warm ({self.tokens} tokens, {self.rel})"
        if self.status == "failed":
            return f"cache: warm-up failed ({self.detail})"
        if self.status == "waiting":
            return f"cache: warm-up waits for the edit ({self.rel})"
        if self.status == "off":
            return f"cache: no warm-up ({self.detail})" if self.detail else "cache: no warm-up"
        return "cache: –"


class CacheWarmer:
    """Runs at most one background warm-up at a time and keeps out of the way of edits."""

    def __init__(self, sender: WarmSender | None, *, enabled: bool = True, reason_off: str = "",
                 on_state: Callable[[WarmState], None] | None = None,
                 cache: PromptCacheModel | None = None) -> None:
        self.sender = sender
        self.cache = cache  # told what each warm-up put in the server's cache (auto mode reads it)
        self.enabled = enabled and sender is not None
        self._on_state = on_state or (lambda state: None)
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._current: WarmPrefix | None = None
        self._cancel = threading.Event()
        self._pending: list[WarmPrefix] = []  # asked for, in order, not yet sent
        self._warmed: list[WarmPrefix] = []  # recently warmed (llama.cpp keeps several in --cache-ram)
        self._held = 0
        self.state = WarmState("idle") if self.enabled else WarmState("off", detail=reason_off)

    def _set(self, state: WarmState) -> None:
        self.state = state
        self._on_state(state)

    # -- asking ---------------------------------------------------------------------------
    def warm(self, prefix: WarmPrefix) -> None:
        """Warm ``prefix`` in the background (supersedes older requests; deferred during an edit)."""
        self.warm_all([prefix])

    def warm_all(self, prefixes: Sequence[WarmPrefix]) -> None:
        """Warm each prefix in turn, first first (the order edits will use them); replaces older requests."""
        if not self.enabled:
            return
        with self._lock:
            todo = [p for p in dict.fromkeys(prefixes) if p not in self._warmed]
            if not todo:
                return  # all in the cache already
            if self._held:
                self._pending = todo
                self._set(WarmState("waiting", todo[0].rel))
                return
            running = self._thread is not None and self._thread.is_alive()
            if running and self._current in todo:
                todo.remove(self._current)  # let it finish, then the rest
                self._pending = todo
                return
            self._pending = todo[1:] if not running else todo
            if running:
                self._cancel.set()  # the running one sees the flag and hands over
                return
            self._start(todo[0])

    def _start(self, prefix: WarmPrefix) -> None:
        """Start a worker for ``prefix``; the caller holds the lock and no worker runs."""
        self._cancel = threading.Event()
        self._current = prefix
        self._set(WarmState("warming", prefix.rel))
        self._thread = threading.Thread(target=self._run, args=(prefix, self._cancel),
                                        name=f"coder-warm-up {prefix.rel}", daemon=True)
        self._thread.start()

    def _run(self, prefix: WarmPrefix, cancel: threading.Event) -> None:
        assert self.sender is not None

        def progress(update: PromptProgress) -> None:
            self._set(WarmState("warming", prefix.rel, update.processed, update.total, update.processed))

        try:
            tokens = self.sender.send(prefix.as_messages(), progress, cancel.is_set)
        except Cancelled:
            state = WarmState("cancelled", prefix.rel)
        except CoderError as exc:  # server gone, context too small: shown, never raised
            state = WarmState("failed", prefix.rel, detail=str(exc)[:120])
        else:
            state = WarmState("warm", prefix.rel, tokens, tokens, tokens)
            self._warmed = [*[p for p in self._warmed if p != prefix][-7:], prefix]
            if self.cache is not None:
                self.cache.record(prompt_text(prefix.as_messages()), tokens)
        with self._lock:
            self._thread = None
            if state.status != "cancelled" or not self._pending:
                self._set(state)
            if self._pending and not self._held:
                self._start(self._pending.pop(0))

    # -- edits ----------------------------------------------------------------------------
    def before_edit(self, messages: Sequence[dict[str, str]], timeout: float = 600.0) -> WarmState:
        """Call before sending an edit; release with :meth:`after_edit`.

        A warm-up in flight for a prefix of ``messages`` is awaited (it is the edit's own
        prefill, so nothing is lost); any other is cancelled so it cannot delay the edit.
        """
        with self._lock:
            self._held += 1
            thread, current = self._thread, self._current
            if thread is not None and current is not None and not current.is_prefix_of(messages):
                self._cancel.set()
        if thread is not None:
            thread.join(timeout)
        return self.state

    def after_edit(self, messages: Sequence[dict[str, str]] | None = None, cached_tokens: int = 0) -> None:
        """The edit finished: its own prompt is now what the cache holds; start a deferred warm-up."""
        with self._lock:
            self._held = max(0, self._held - 1)
            if messages is not None and self._current is not None and not self._current.is_prefix_of(messages):
                # the edit replaced the slot's contents: the old prefix may no longer be cached
                self._current = None
                self._set(replace(WarmState("idle"), detail="the edit replaced the cached prompt"))
            if self._pending and not self._held and (self._thread is None or not self._thread.is_alive()):
                self._start(self._pending.pop(0))

    def join(self, timeout: float | None = None) -> WarmState:
        """Wait for the warm-up in flight (tests, benchmarks); returns the final state."""
        thread = self._thread
        if thread is not None:
            thread.join(timeout)
        return self.state


def prompt_text(messages: Sequence[dict[str, str]]) -> str:
    """One string per prompt for prefix comparison (roles included, so turns cannot merge)."""
    return "".join(f"\x1e{m['role']}\x1f{m['content']}" for m in messages)


class PromptCacheModel:
    """What the server's prompt cache probably holds: the last few prompts sent, with token counts.

    Used by auto mode to predict uncached tokens. The estimate scales the longest common
    character prefix to tokens; the server's own ``cache_n`` corrects it after each request.
    """

    def __init__(self, keep: int = 4) -> None:
        self.keep = keep
        self._entries: list[tuple[str, int]] = []

    def record(self, text: str, tokens: int) -> None:
        """Remember that ``text`` (a prompt sent) occupied ``tokens`` tokens, keeping the newest few."""
        kept = [(t, n) for t, n in self._entries if t != text][-(self.keep - 1):]
        self._entries = [*kept, (text, tokens)]

    def clear(self) -> None:
        """Forget every remembered prompt (the server restarted or its cache was dropped)."""
        self._entries.clear()

    def cached_tokens(self, text: str, tokens: int) -> int:
        """Estimated tokens of a prompt (``text``, ``tokens`` long) the server would reuse."""
        best = 0
        for known, known_tokens in self._entries:
            common = _common_prefix(known, text)
            if common == 0:
                continue
            best = max(best, min(known_tokens, round(tokens * common / max(1, len(text)))))
        return min(best, tokens)


def _common_prefix(a: str, b: str) -> int:
    n = min(len(a), len(b))
    lo, hi = 0, n  # binary search on slice equality: C-speed compares, O(n log n) worst case
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[:mid] == b[:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo
