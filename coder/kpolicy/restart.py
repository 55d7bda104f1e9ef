"""Switching k without a per-request cap: decide whether relaunching the managed server pays.

Stock llama-server, vLLM and SGLang fix k at launch. A relaunch costs seconds
(measured here, every time), so it happens only when the time the new k is
predicted to save over the coming requests of this class exceeds that cost
(hysteresis: a small predicted gain never triggers a restart, so alternating
classes do not flap). An explicit user override restarts unconditionally. Servers
coder does not manage are never touched: the caller reports the recommendation.
This module only decides and keeps the measured cost; the relaunch itself is
:meth:`coder.backends.runtime.handle.BackendHandle.apply`.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass

from coder.config import Profile
from coder.fsutil import atomic_write
from coder.paths import data_dir, ensure

DEFAULT_RESTART_S = 20.0  # assumed until the first restart is timed
MIN_RELATIVE_GAIN = 0.05  # predicted tokens/s must improve at least this much too

Notify = Callable[[str], None]


@dataclass(frozen=True)
class RestartVerdict:
    """Whether to relaunch, and the arithmetic behind it (shown to the user)."""

    restart: bool
    reason: str
    gain_s: float | None = None
    cost_s: float = DEFAULT_RESTART_S


class RestartFallback:
    """Decides k switches by relaunching one managed profile, from the measured restart cost."""

    def __init__(self, profile: Profile, *, persist: bool = True) -> None:
        self.profile = profile
        self._path = data_dir() / "kstats" / f"restart__{profile.name}.json" if persist else None
        self.cost_s = self._load_cost()
        self.restarts = 0

    def _load_cost(self) -> float:
        if self._path is None:
            return DEFAULT_RESTART_S
        try:
            return float(json.loads(self._path.read_text())["restart_s"])
        except (OSError, ValueError, KeyError, TypeError):
            return DEFAULT_RESTART_S

    def _save_cost(self) -> None:
        if self._path is None:
            return
        ensure(self._path.parent)
        atomic_write(self._path, json.dumps({"restart_s": round(self.cost_s, 3)}))

    def verdict(self, current_k: int, desired_k: int, rate: Callable[[int], float | None],
                coming_tokens: float, forced: bool = False) -> RestartVerdict:
        """Restart from ``current_k`` to ``desired_k``? ``rate(k)``: predicted tokens/s or None."""
        if desired_k == current_k:
            return RestartVerdict(False, f"launch k={current_k} already in force", 0.0, self.cost_s)
        if forced:
            return RestartVerdict(True, f"k={desired_k} requested explicitly", None, self.cost_s)
        now, new = rate(current_k), rate(desired_k)
        if not now or not new:
            return RestartVerdict(False, f"no throughput estimate for k={desired_k} yet; keeping launch "
                                         f"k={current_k}", None, self.cost_s)
        gain = coming_tokens / now - coming_tokens / new
        if new < (1 + MIN_RELATIVE_GAIN) * now or gain <= self.cost_s:
            return RestartVerdict(False, f"keeping launch k={current_k}: k={desired_k} would save "
                                         f"{gain:.1f} s over ~{coming_tokens:.0f} tokens, a restart costs "
                                         f"{self.cost_s:.1f} s", gain, self.cost_s)
        return RestartVerdict(True, f"restart to k={desired_k}: saves {gain:.1f} s over ~{coming_tokens:.0f} "
                                    f"tokens ({now:.1f} → {new:.1f} tok/s) vs {self.cost_s:.1f} s restart",
                              gain, self.cost_s)

    def record(self, took: float) -> None:
        """Fold one measured restart (seconds) into the cost estimate and persist it."""
        # the first measurement replaces the assumed default; later ones are a decayed mean
        self.cost_s = took if self.restarts == 0 and self.cost_s == DEFAULT_RESTART_S else \
            0.5 * self.cost_s + 0.5 * took
        self.restarts += 1
        self._save_cost()
