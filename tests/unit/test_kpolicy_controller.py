"""The adaptive controller: convergence on recorded per-position statistics, cleanliness, persistence."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from coder.kpolicy.controller import KController, is_clean
from coder.telemetry.metrics import SpecDelta

DATA = Path(__file__).parents[1] / "data" / "kpolicy"
RECORDED = sorted(DATA.glob("*.json"))


def test_recorded_statistics_are_present() -> None:
    # an empty parametrisation would skip the convergence test silently
    assert {p.stem for p in RECORDED} >= {"ngram-simple", "synth-edit", "synth-gen"}


def _conditional(survival: list[float]) -> list[float]:
    out, prev = [], 1.0
    for s in survival:
        out.append(s / prev if prev > 0 else 0.0)
        prev = s
    return out


def _true_tps(cond: list[float], step_ms: dict[int, float], k: int) -> float:
    tau, surv = 1.0, 1.0
    for a in cond[:k]:
        surv *= a
        tau += surv
    return tau / step_ms[k]


def _simulate(ctrl: KController, cls: str, cond: list[float], step_ms: dict[int, float], requests: int,
              rng: random.Random, tokens: int = 300) -> list[int]:
    """Replay the recorded acceptance chain and step times as if a server answered ``requests``."""
    chosen: list[int] = []
    for _ in range(requests):
        decision = ctrl.choose(cls)
        k = decision.k
        if not decision.explore:
            chosen.append(k)
        per_pos = [0.0] * k
        n = drafts = accepted = 0
        ms = 0.0
        while n < tokens:
            a = 0
            while a < k and rng.random() < cond[a]:
                a += 1
            drafts += 1
            accepted += a
            n += a + 1
            ms += step_ms[k] * rng.uniform(0.9, 1.1)  # timing noise of a shared machine
            for j in range(a):
                per_pos[j] += 1
        timings = {"predicted_n": n, "predicted_ms": ms, "draft_n": drafts * k, "draft_n_accepted": accepted}
        delta = SpecDelta(drafts=drafts, draft_tokens=drafts * k, accepted=accepted,
                          accepted_per_pos=tuple(per_pos))
        ctrl.observe(cls, k, timings, delta)
    return chosen


def _interp(points: dict[int, float], k: int) -> float:
    if k in points:
        return points[k]
    lo, hi = max(j for j in points if j < k), min(j for j in points if j > k)
    return points[lo] + (points[hi] - points[lo]) * (k - lo) / (hi - lo)


def _load(path: Path) -> dict:
    return json.loads(path.read_text())


@pytest.mark.parametrize("path", RECORDED, ids=[p.stem for p in RECORDED])
def test_converges_to_best_k_on_recorded_statistics(path: Path) -> None:
    rec = _load(path)
    recorded = {int(k): v for k, v in rec["step_ms"].items()}
    k_max = max(recorded)
    step_ms = {k: _interp(recorded, k) for k in range(1, k_max + 1)}  # the sweep skips some k
    for cls, counts in rec["classes"].items():
        if not counts["drafts"]:
            continue  # no clean window was recorded for this class
        cond = _conditional([p / counts["drafts"] for p in counts["accepted_per_pos"]][:k_max])
        cond += [0.0] * (k_max - len(cond))
        oracle = max(_true_tps(cond, step_ms, k) for k in step_ms)
        ctrl = KController(k_max, probe_every=5)
        chosen = _simulate(ctrl, cls, cond, step_ms, 40, random.Random(7))
        settled = chosen[-5:]
        for k in settled:
            assert _true_tps(cond, step_ms, k) >= 0.97 * oracle, (cls, k, settled)


def test_converges_on_a_synthetic_chain_with_interior_optimum() -> None:
    # deep positions rarely survive and each drafted token costs 30% of a step: best k is small
    cond = [0.95, 0.9, 0.5, 0.3, 0.2, 0.1, 0.1, 0.1]
    step_ms = {k: 10.0 * (1 + 0.3 * k) for k in range(1, 9)}
    best = max(step_ms, key=lambda k: _true_tps(cond, step_ms, k))
    ctrl = KController(8)
    chosen = _simulate(ctrl, "region", cond, step_ms, 30, random.Random(3))
    assert chosen[-1] == best
    learned = ctrl.rates("region")[:3]
    assert learned == pytest.approx(cond[:3], abs=0.08)


def test_unclean_windows_do_not_touch_positions() -> None:
    ctrl = KController(8)
    short = SpecDelta(drafts=50, draft_tokens=150, accepted=100, accepted_per_pos=(40, 30, 30))
    assert not is_clean(short, 8)
    assert not ctrl.observe("full", 8, {"predicted_n": 150, "predicted_ms": 900, "draft_n": 150,
                                        "draft_n_accepted": 100}, short)
    assert ctrl.classes["full"].den == [0.0] * 8 or ctrl.classes["full"].den == []
    clean = SpecDelta(drafts=50, draft_tokens=400, accepted=300,
                      accepted_per_pos=(50, 50, 50, 50, 40, 30, 20, 10))
    assert ctrl.observe("full", 8, {"predicted_n": 350, "predicted_ms": 900, "draft_n": 400,
                                    "draft_n_accepted": 300}, clean)
    assert ctrl.classes["full"].den[:3] == [50, 50, 50]
    # another request's draft tokens in the window: not ours alone
    assert not ctrl.observe("full", 8, {"predicted_n": 10, "predicted_ms": 90, "draft_n": 16,
                                        "draft_n_accepted": 8}, clean)


def test_learned_state_persists_per_profile(tmp_path: Path) -> None:
    path = tmp_path / "kstats" / "demo.json"
    cond = [0.95, 0.9, 0.5, 0.3, 0.2, 0.1, 0.1, 0.1]
    step_ms = {k: 10.0 * (1 + 0.3 * k) for k in range(1, 9)}
    first = KController(8, path=path)
    _simulate(first, "fresh", cond, step_ms, 12, random.Random(1))
    again = KController(8, path=path)
    assert again.rates("fresh") == pytest.approx(first.rates("fresh"))
    assert again.choose("fresh").k == first.choose("fresh").k
    assert again.classes["full"].requests == 0
