"""Adaptive k: learn acceptance per position and the step-time curve, pick the fastest k.

Objective (adaptive_k.md §1): tokens per millisecond ``τ(k) / T(k)`` with
``τ(k) = 1 + Σ_{i≤k} Π_{j≤i} a_j`` (a_j = conditional acceptance at position j)
and ``T(k)`` the wall time of one verification step, fitted as ``a + b·x`` where
x is the mean number of tokens actually drafted per step.

Two estimators, one decision:

* the **model**: Beta-smoothed, decayed conditional rates per class, fed only by
  ``/metrics`` windows where the request ran alone and every step drafted k
  (clean windows), times the cost fit from every request's ``timings``;
* the **arms**: measured decode tokens/ms per (class, k), ratio of sums with decay.
  n-gram drafters draft variable lengths, so their windows are never clean and
  the model stays at its prior; a measured arm therefore overrides the model's
  prediction for that k, and the model (calibrated against measured arms) ranks the
  arms not yet measured. Measurement beats proxies (adaptive_k.md §3.4).

Exploration: every ``probe_every``-th request of a class tries a k other than the
incumbent (deeper first, since positions above k are never observed), and the very
first request of a class runs at the deepest k to observe every position.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path

from coder.config import REQUEST_CLASSES
from coder.fsutil import atomic_write
from coder.hardware import cpu_model
from coder.jsontypes import JSONObject
from coder.paths import data_dir, ensure
from coder.telemetry.metrics import SpecDelta

SCHEMA = 1
# conditional acceptance priors per class (a_j, every position): copy-heavy rewrites accept
# nearly everything, targeted edits break the copy more often, fresh text rarely matches
PRIOR_RATE = {"full": 0.9, "region": 0.8, "fresh": 0.5}
PRIOR_STRENGTH = 8.0  # pseudo-steps behind each prior rate
PRIOR_COST_SLOPE = 0.25  # T(k) ≈ a·(1 + 0.25·k) until measured: CPU/hybrid verify (adaptive_k.md §4.4)
MIN_POS_OBS = 20.0  # steps that must reach a position before its own estimate is trusted
ARM_MIN_TOKENS = 96.0  # decode tokens before a measured arm overrides the model
POS_HALF_LIFE = 1500.0  # steps
ARM_HALF_LIFE = 3000.0  # tokens
COST_HALF_LIFE = 4000.0  # steps
HYSTERESIS = 0.03
PROBE_MARGIN = 0.10  # measured arms this far below the incumbent are settled


@dataclass
class ClassState:
    """What one request class taught the controller."""

    num: list[float] = field(default_factory=list)  # Σ steps with A ≥ j   (index j-1)
    den: list[float] = field(default_factory=list)  # Σ steps that reached and drafted position j
    steps: float = 0.0
    arms: dict[str, list[float]] = field(default_factory=dict)  # str(k) -> [tokens, ms, requests]
    requests: int = 0
    k_cur: int | None = None

    def grow(self, n: int) -> None:
        """Extend the per-position tallies to ``n`` positions."""
        while len(self.num) < n:
            self.num.append(0.0)
            self.den.append(0.0)


@dataclass
class CostFit:
    """Decayed weighted least squares of ms/step on mean drafted tokens/step."""

    sw: float = 0.0
    sx: float = 0.0
    sy: float = 0.0
    sxx: float = 0.0
    sxy: float = 0.0

    def add(self, x: float, y: float, w: float) -> None:
        """One weighted observation of step time ``y`` at draft length ``x``."""
        keep = 0.5 ** (w / COST_HALF_LIFE)
        self.sw, self.sx, self.sy = self.sw * keep + w, self.sx * keep + w * x, self.sy * keep + w * y
        self.sxx, self.sxy = self.sxx * keep + w * x * x, self.sxy * keep + w * x * y

    def coefficients(self) -> tuple[float, float] | None:
        """(a, b) with T(x) = a + b·x in ms; None before any sample."""
        if self.sw <= 0:
            return None
        mx, my = self.sx / self.sw, self.sy / self.sw
        var = self.sxx / self.sw - mx * mx
        if var > 0.25:  # enough spread in x to fit a slope
            b = (self.sxy / self.sw - mx * my) / var
            a = my - b * mx
            if b >= 0 and a > 0:
                return a, b
        a = my / (1 + PRIOR_COST_SLOPE * mx)  # one level known: keep the prior shape
        return a, PRIOR_COST_SLOPE * a

    def T(self, x: float) -> float:
        """Predicted step time at draft length ``x``: ms once fitted, relative units before any sample."""
        coef = self.coefficients()
        if coef is None:
            return 1.0 + PRIOR_COST_SLOPE * x  # relative units: only ratios matter
        return coef[0] + coef[1] * x


@dataclass(frozen=True)
class Decision:
    """The controller's pick for one request, with the numbers behind it."""

    k: int
    reason: str
    predicted_tps: float | None = None  # tokens/s the chosen k is expected to deliver
    explore: bool = False


def hardware_key() -> str:
    """Short stable id of this machine's compute (learned step times do not transfer)."""
    cpu = cpu_model()
    gpus = os.environ.get("CUDA_VISIBLE_DEVICES", "")
    raw = f"{platform.machine()}|{cpu}|{os.cpu_count()}|{gpus}"
    return hashlib.sha1(raw.encode()).hexdigest()[:10]


def stats_path(profile: str, spec_key: str) -> Path:
    """Where the controller's learned statistics for this profile and speculator live."""
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in f"{profile}__{spec_key}")
    return data_dir() / "kstats" / f"{safe}__{hardware_key()}.json"


class KController:
    """Per-class adaptive k for one server configuration (profile × drafter × hardware)."""

    def __init__(self, k_max: int, *, k_min: int = 1, path: Path | None = None,
                 probe_every: int = 5, prior: dict[str, float] | None = None,
                 start: Mapping[str, int] | None = None) -> None:
        if k_max < k_min:
            raise ValueError(f"k_max {k_max} < k_min {k_min}")
        self.k_max, self.k_min = k_max, k_min
        # per-class first depth (coder.kpolicy.depth.start_depths): deep copy drafts on a GPU
        self.start = {c: max(k_min, min(k, k_max)) for c, k in (start or {}).items()}
        self.path = path
        self.probe_every = probe_every
        self.prior = {**PRIOR_RATE, **(prior or {})}
        self.classes: dict[str, ClassState] = {c: ClassState() for c in REQUEST_CLASSES}
        self.cost = CostFit()
        if path is not None:
            self._load(path)

    # ---- estimates ---------------------------------------------------------------------
    def rates(self, cls: str) -> list[float]:
        """Smoothed conditional acceptance a_1..a_kmax for ``cls``."""
        st, a0 = self.classes[cls], self.prior[cls]
        st.grow(self.k_max)
        out: list[float] = []
        tail = a0
        for j in range(self.k_max):
            if st.den[j] >= MIN_POS_OBS:
                a = (st.num[j] + PRIOR_STRENGTH * a0) / (st.den[j] + PRIOR_STRENGTH)
                tail = a
            else:  # unobserved depth: extrapolate conservatively, probing refreshes it
                a = min(tail, a0) if j else a0
            out.append(a)
        return out

    def tau(self, cls: str, k: int) -> float:
        """Expected tokens per step at ``k`` from the learned conditional rates."""
        total, surv = 1.0, 1.0
        for a in self.rates(cls)[:k]:
            surv *= a
            total += surv
        return total

    def predicted(self, cls: str, k: int) -> float:
        """Model tokens per cost unit (tokens/ms once the cost fit has data)."""
        return self.tau(cls, k) / self.cost.T(k)

    def measured(self, cls: str, k: int) -> float | None:
        """Observed tokens per ms at ``k`` for ``cls`` (None before enough requests)."""
        arm = self.classes[cls].arms.get(str(k))
        if not arm or arm[0] < ARM_MIN_TOKENS or arm[1] <= 0:
            return None
        return arm[0] / arm[1]

    def scores(self, cls: str) -> dict[int, tuple[float, str]]:
        """k -> (tokens/ms estimate, "measured" | "model" | "interp").

        Without clean positional data (n-gram drafters draft variable lengths, so no
        window is clean) the per-position model is only its prior, which cannot know
        how often the drafter finds a draft; unmeasured arms are then interpolated
        between measured ones instead (measured on this build: the prior's shape sent
        n-gram rewrites to k=5 when k=3 was best).
        """
        ks = range(self.k_min, self.k_max + 1)
        meas = {k: m for k in ks if (m := self.measured(cls, k)) is not None}
        if self.classes[cls].steps < MIN_POS_OBS and meas:
            return {k: (meas[k], "measured") if k in meas else (_interpolate(meas, k), "interp") for k in ks}
        pred = {k: self.predicted(cls, k) for k in ks}
        ratios = sorted(meas[k] / pred[k] for k in meas if pred[k] > 0)
        calib = ratios[len(ratios) // 2] if ratios else 1.0
        return {k: (meas[k], "measured") if k in meas else (pred[k] * calib, "model") for k in ks}

    def ladder(self, cls: str | None = None) -> list[int]:
        """Burn-in rungs: the deepest k (observes every position), its half, and 2.

        Three spread-out arms give the cost fit its slope and the arms a coarse shape
        before the controller trusts either (adaptive_k.md §3.3's calibration ladder).
        A class with a start depth burns in at it and its half only: on a GPU a shallow
        rung costs a whole slow rewrite, and the probes explore around the start anyway.
        """
        if cls is not None and (first := self.start.get(cls)) is not None:
            return list(dict.fromkeys([first, max(self.k_min, first // 2)]))
        rungs = [self.k_max, max(self.k_min, self.k_max // 2), max(self.k_min, min(2, self.k_max))]
        return list(dict.fromkeys(rungs))

    # ---- decision ----------------------------------------------------------------------
    def choose(self, cls: str) -> Decision:
        """The k for the next request of ``cls``, exploring now and then, with its reason."""
        st = self.classes[cls]
        ladder = self.ladder(cls)
        for i, rung in enumerate(ladder):
            if str(rung) not in st.arms:
                if cls in self.start:
                    what = "start deep (the copy benchmark's best)" if i == 0 else "measure the step-time slope"
                else:
                    what = f"observe all {self.k_max} positions" if i == 0 else "measure the step-time slope"
                return Decision(rung, f"burn-in {i + 1}/{len(ladder)}: k={rung} to {what}", explore=True)
        scores = self.scores(cls)
        best = max(scores, key=lambda k: scores[k][0])
        cur = st.k_cur if st.k_cur in scores else None
        pick, why = best, "best"
        if cur is not None and cur != best and scores[best][0] < (1 + HYSTERESIS) * scores[cur][0]:
            pick, why = cur, "hold"
        if self.probe_every and st.requests % self.probe_every == self.probe_every - 1:
            probe = self._probe_target(cls, pick, scores)
            if probe is not None:
                return Decision(probe, f"explore: probing k={probe} ({self._fmt(scores, probe)}) "
                                       f"against k={pick} ({self._fmt(scores, pick)})",
                                self._tps(scores[probe][0]), explore=True)
        if why == "hold":
            reason = (f"hold k={pick}: best k={best} is within {HYSTERESIS:.0%} "
                      f"({self._fmt(scores, best)} vs {self._fmt(scores, pick)})")
        else:
            runner = max((k for k in scores if k != pick), key=lambda k: scores[k][0], default=None)
            vs = f" vs k={runner} {self._fmt(scores, runner)}" if runner is not None else ""
            reason = (f"adaptive: k={pick} {self._fmt(scores, pick)}{vs}; "
                      f"τ={self.tau(cls, pick):.2f} tokens/step")
        return Decision(pick, reason, self._tps(scores[pick][0]))

    def _probe_target(self, cls: str, pick: int, scores: dict[int, tuple[float, str]]) -> int | None:
        """Deeper first (unobserved positions), then the least-measured plausible neighbour.

        Arms measured clearly below the incumbent are not probed again: each probe
        costs real time, and a 10% gap is far outside the noise of a measured arm.
        """
        st = self.classes[cls]
        st.grow(self.k_max)
        candidates = [k for k in (pick + 1, pick - 1, pick + 2, pick - 2) if k in scores]
        if pick < self.k_max and st.den[self.k_max - 1] < MIN_POS_OBS:
            candidates.insert(0, self.k_max)
        plausible = [k for k in candidates if scores[k][1] == "model"
                     or scores[k][0] >= (1 - PROBE_MARGIN) * scores[pick][0]]
        if not plausible:
            return None
        return min(plausible, key=lambda k: st.arms.get(str(k), [0.0])[0])

    def _tps(self, score: float) -> float | None:
        return score * 1000 if self.cost.coefficients() is not None else None

    def _fmt(self, scores: dict[int, tuple[float, str]], k: int | None) -> str:
        if k is None:
            return ""
        value, source = scores[k]
        tps = self._tps(value)
        shown = f"{tps:.1f} tok/s" if tps is not None else f"{value:.3f} rel"
        return f"{shown} {source}"

    # ---- learning ----------------------------------------------------------------------
    def observe(self, cls: str, k: int, timings: Mapping[str, float], delta: SpecDelta | None = None,
                alone: bool = True) -> bool:
        """Learn from one finished request run at cap ``k``; True if its window was clean.

        ``timings`` is llama.cpp's per-request object; ``delta`` the ``/metrics`` movement
        around the request (None when unavailable, e.g. another request overlapped).
        """
        st = self.classes[cls]
        st.requests += 1
        st.k_cur = k
        n = float(timings.get("predicted_n") or 0)
        ms = float(timings.get("predicted_ms") or 0)
        drafted = float(timings.get("draft_n") or 0)
        accepted = float(timings.get("draft_n_accepted") or 0)
        steps = n - accepted
        if n > 0 and ms > 0 and steps > 0:
            self.cost.add(drafted / steps, ms / steps, steps)
            arm = st.arms.setdefault(str(k), [0.0, 0.0, 0.0])
            keep = 0.5 ** (n / ARM_HALF_LIFE)
            arm[0], arm[1], arm[2] = arm[0] * keep + n, arm[1] * keep + ms, arm[2] * keep + 1
        clean = (delta is not None and alone and delta.drafts > 0 and is_clean(delta, k)
                 and (not drafted or abs(delta.draft_tokens - drafted) < 0.5))
        if clean and delta is not None:
            self._add_positions(st, k, delta)
        self.save()
        return clean

    def _add_positions(self, st: ClassState, k: int, delta: SpecDelta) -> None:
        st.grow(self.k_max)
        keep = 0.5 ** (delta.drafts / POS_HALF_LIFE)
        per_pos = list(delta.accepted_per_pos) + [0.0] * k
        prev = delta.drafts
        for j in range(min(k, self.k_max)):
            st.num[j] = st.num[j] * keep + per_pos[j]
            st.den[j] = st.den[j] * keep + prev
            prev = per_pos[j]
        for j in range(min(k, self.k_max), self.k_max):  # not drafted: age but do not count
            st.num[j] *= keep
            st.den[j] *= keep
        st.steps = st.steps * keep + delta.drafts

    # ---- views and persistence ---------------------------------------------------------
    def describe(self) -> JSONObject:
        """What the controller has learned, for ``--json`` and the TUI panel (k keys as strings, as in JSON)."""
        coef = self.cost.coefficients()
        classes: JSONObject = {}
        out: JSONObject = {
            "k_max": self.k_max,
            "step_ms": {"a": round(coef[0], 3), "b": round(coef[1], 3)} if coef else None,
            "classes": classes,
        }
        for cls, st in self.classes.items():
            scores = self.scores(cls) if (st.requests or st.steps) else {}
            classes[cls] = {
                "requests": st.requests,
                "k_cur": st.k_cur,
                "steps_observed": round(st.steps, 1),
                "rates": [round(a, 3) for a in self.rates(cls)],
                "tau": {str(k): round(self.tau(cls, k), 3) for k in range(self.k_min, self.k_max + 1)},
                "tok_s": {str(k): (round(v * 1000, 2) if coef else None, src) for k, (v, src) in scores.items()},
            }
        return out

    def save(self) -> None:
        """Persist the learned statistics (atomically; no-op without a path)."""
        if self.path is None:
            return
        body = {"schema": SCHEMA, "k_max": self.k_max, "cost": asdict(self.cost),
                "classes": {c: asdict(s) for c, s in self.classes.items()}}
        ensure(self.path.parent)
        atomic_write(self.path, json.dumps(body, indent=1))

    def _load(self, path: Path) -> None:
        try:
            body = json.loads(path.read_text())
        except (OSError, ValueError):
            return  # nothing learned yet, or unreadable: start from the priors
        if body.get("schema") != SCHEMA:
            return
        self.cost = CostFit(**body.get("cost", {}))
        for cls, raw in body.get("classes", {}).items():
            if cls in self.classes:
                st = ClassState(**raw)
                st.num, st.den = st.num[: self.k_max], st.den[: self.k_max]
                st.arms = {k: v for k, v in st.arms.items() if self.k_min <= int(k) <= self.k_max}
                if st.k_cur is not None and not self.k_min <= st.k_cur <= self.k_max:
                    st.k_cur = None
                self.classes[cls] = st


def is_clean(delta: SpecDelta, k: int) -> bool:
    """Every step drafted k, except the end-of-request taper (drafts shrink near max_tokens).

    A window with shorter drafts would make truncation look like rejection at deep
    positions (adaptive_k.md §3.6 pitfall 3), so it feeds only arms and the cost fit.
    """
    if delta.drafts <= 0 or k <= 0:
        return False
    taper = k * (k + 1) / 2
    return k * delta.drafts - taper - 0.5 <= delta.draft_tokens <= k * delta.drafts + 0.5


def _interpolate(measured: dict[int, float], k: int) -> float:
    """Piecewise-linear in k between measured arms; flat beyond the outermost ones."""
    lower = [j for j in measured if j < k]
    upper = [j for j in measured if j > k]
    if not lower:
        return measured[min(upper)]
    if not upper:
        return measured[max(lower)]
    lo, hi = max(lower), min(upper)
    return measured[lo] + (measured[hi] - measured[lo]) * (k - lo) / (hi - lo)
