"""scripts/draft_policy_sim.py: the Python prediction drafter replays the server's steps, and its policies."""

from __future__ import annotations

import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "scripts"))

import draft_policy_sim as sim  # noqa: E402

RECORD = REPO / "tests/data/draft_policy/linecache_region_1.5b_cpu.json"


def test_today_reproduces_the_servers_own_steps_on_a_recorded_region_reply() -> None:
    rec = json.loads(RECORD.read_text())
    (row,) = rec["rows"]
    (got,) = sim.simulate(rec["rows"], sim.TODAY, rec["cap"], rec["max_tokens"], 16384)
    assert [tuple(s) for s in got["steps"]] == [tuple(s) for s in row["steps"]]
    assert got["n_spec"] == 6 and got["n_steps"] == 21


def _run(policy: sim.Policy, pred: list[int], reply: list[int]) -> list[tuple[int, int]]:
    rows = [{"name": "t", "cls": "region", "prompt": [9000 + i for i in range(30)], "prediction": pred,
             "reply": reply}]
    return [tuple(s) for s in sim.simulate(rows, policy, 64, 4096, 16384)[0]["steps"]]  # type: ignore[misc]


def test_an_insertion_rejoins_at_once_under_eager_and_after_n_sync_tokens_today() -> None:
    pred = list(range(100, 200))
    reply = [*pred[:10], 7, 8, *pred[10:]]  # two new tokens, then the prediction again
    today = _run(sim.TODAY, pred, reply)
    eager = _run(sim.Policy("e", eager=1, resync=4), pred, reply)
    # today: the first draft is accepted up to the insertion, then plain steps until 4 tokens match again
    assert today[:6] == [(0, 0), (64, 9), (0, 0), (0, 0), (0, 0), (0, 0)]
    # eager: the first token after the insertion is found where the output left, and a short draft follows
    assert eager[:5] == [(0, 0), (64, 9), (0, 0), (0, 0), (4, 4)]
    assert eager[5] == (16, 16)  # a fully accepted draft grows fourfold
    assert len(eager) < len(today)


def test_the_cost_model_is_a_line_through_the_plain_step_and_the_cap_64_verification() -> None:
    assert sim.step_ms(1) == sim.PLAIN_MS
    assert abs(sim.step_ms(65) - sim.WIDE_MS) < 1e-9
