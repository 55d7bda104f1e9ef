"""Switching k without a per-request cap: relaunch the managed server, only when it pays.

Stock llama-server, vLLM and SGLang fix k at launch. A relaunch costs seconds
(measured here, every time), so it happens only when the time the new k is
predicted to save over the coming requests of this class exceeds that cost
(hysteresis: a small predicted gain never triggers a restart, so alternating
classes do not flap). An explicit user override restarts unconditionally. Servers
coder does not manage are never touched: the caller reports the recommendation.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass

from coder.backends.server import ServerInfo
from coder.config import Profile
from coder.paths import data_dir, ensure

DEFAULT_RESTART_S = 20.0  # assumed until the first restart is timed
MIN_RELATIVE_GAIN = 0.05  # predicted tokens/s must improve at least this much too

Notify = Callable[[str], None]
RestartFn = Callable[[Profile, int], ServerInfo]


@dataclass(frozen=True)
class RestartVerdict:
    """Whether to relaunch, and the arithmetic behind it (shown to the user)."""

    restart: bool
    reason: str
    gain_s: float | None = None
    cost_s: float = DEFAULT_RESTART_S


def _default_restart(profile: Profile, k: int) -> ServerInfo:
    from coder.backends import manager

    return manager.restart(profile, k)


class RestartFallback:
    """Decides and performs k switches by relaunching one managed profile."""

    def __init__(self, profile: Profile, *, restart_fn: RestartFn | None = None,
                 notify: Notify | None = None, persist: bool = True) -> None:
        self.profile = profile
        self.restart_fn = restart_fn or _default_restart
        self.notify = notify or (lambda msg: None)
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
        self._path.write_text(json.dumps({"restart_s": round(self.cost_s, 3)}))

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

    def restart(self, k: int, reason: str) -> ServerInfo:
        """Relaunch with launch depth ``k``, timing it; tells the user before and after."""
        self.notify(f"restarting backend {self.profile.name} with k={k}: {reason}")
        start = time.monotonic()
        info = self.restart_fn(self.profile, k)
        took = time.monotonic() - start
        # the restart cost estimate follows the measurements (decayed mean)
        self.cost_s = took if self.restarts == 0 and self.cost_s == DEFAULT_RESTART_S else \
            0.5 * self.cost_s + 0.5 * took
        self.restarts += 1
        self.profile = self.profile.with_overrides(k=k)
        self._save_cost()
        self.notify(f"backend {self.profile.name} restarted with k={info.k} in {took:.1f} s")
        return info
