#!/usr/bin/env python3
"""Replay recorded replies through the prediction drafter and ngram-mod, under draft-sizing policies.

Both drafters are deterministic given the prompt, the prediction and the reply, so the steps a server
takes at temperature 0 can be recounted offline: per step the chain (prediction first, then ngram-mod)
proposes a draft, the verification accepts its longest prefix that the reply continues with, and the
step yields that many tokens plus one. This module re-implements coder's ``prediction`` speculator
(coder/backends/toolchain/prediction_impl.py) and llama.cpp 11434's ``ngram-mod`` (its hash table
included, shared across requests as on a server) step for step; under today's policy it must reproduce
the server's own step log recorded by ``scripts/draft_policy_record.py`` (``--check``).

Time is a cost model, not a measurement: a step verifying a batch of ``w`` tokens (the sampled token
plus the draft) costs ``PLAIN_MS + (w - 1) * (WIDE_MS - PLAIN_MS) / 64``, a straight line through the
H200's plain step (2.1 ms at width 1) and its cap-64 verification (9.5 ms at width 65),
docs/benchmarks/2026-12-02-h200-reading-and-step.md.

    .venv/bin/python scripts/draft_policy_sim.py rec.json --check
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

PLAIN_MS = 2.1
WIDE_MS = 9.5
MASK = (1 << 64) - 1


def step_ms(width: int, plain: float = PLAIN_MS, wide: float = WIDE_MS) -> float:
    """Modelled time of one step that evaluates ``width`` tokens (the assumption stated above)."""
    return plain + (width - 1) * (wide - plain) / 64


class NgramMod:
    """llama.cpp's common_ngram_mod + common_speculative_impl_ngram_mod (one sequence), hash table and all."""

    EMPTY = -1

    def __init__(self, n_match: int = 24, n_max: int = 64, n_min: int = 4, size: int = 4 * 1024 * 1024) -> None:
        self.n, self.n_max, self.n_min, self.size = n_match, n_max, n_min, size
        self.table: dict[int, int] = {}
        self.i_last = 0
        self.n_draft_last = 0
        self.n_low = 0

    def _idx(self, toks: Sequence[int], at: int) -> int:
        res = 0
        for i in range(self.n):
            res = (res * 6364136223846793005 + toks[at + i]) & MASK
        return res % self.size

    def _add(self, toks: Sequence[int], at: int) -> None:
        self.table[self._idx(toks, at)] = toks[at + self.n]

    def begin(self, prompt: Sequence[int]) -> None:
        """A request starts: every n-gram of its prompt goes into the shared table."""
        self.i_last, self.n_draft_last = 0, 0
        if len(prompt) < self.n:
            return
        for i in range(len(prompt) - self.n):
            self._add(prompt, i)
        self.i_last = len(prompt) - self.n

    def draft(self, ctx: list[int], id_last: int) -> list[int]:
        """The draft after ``ctx`` (prompt + output before ``id_last``) and ``id_last``."""
        self.n_draft_last = 0
        n, cur = self.n, len(ctx)
        if cur < n:
            return []
        if self.i_last + 32 < cur:
            for i in range(self.i_last, cur - n):
                self._add(ctx, i)
            self.i_last = cur - n
        win = [*ctx[cur - n + 1:], id_last]
        out: list[int] = []
        for i in range(self.n_max):
            tok = self.table.get(self._idx(win, i), self.EMPTY)
            if tok == self.EMPTY:
                if i < self.n_min:
                    return []
                break
            win.append(tok)
            out.append(tok)
        self.n_draft_last = len(out)
        return out

    def accept(self, n_accepted: int) -> None:
        """Its own draft was verified: a streak of five poor drafts empties the table."""
        if self.n_draft_last > 0:
            if n_accepted / self.n_draft_last < 0.25:
                self.n_low += 1
                if self.n_low >= 5:
                    self.table.clear()
                    self.n_low, self.i_last = 0, 0
            else:
                self.n_low = 0


@dataclass(frozen=True)
class Policy:
    """How the prediction drafter sizes its next draft.

    ``resync``: the budget right after a re-synchronisation (0: the full budget, as today);
    ``grow``: the factor the budget grows by after a fully accepted draft; ``partial``: after a draft
    accepted only in part, the next budget is ``partial * (accepted + 1)`` (0: untouched, as today);
    ``floor``: the smallest budget those rules give; ``eager``: when > 0, a re-synchronisation first
    looks for the last ``eager`` output tokens within ``eager_window`` tokens of where the output left
    the prediction (an insertion or a substitution rejoins there), before the N_SYNC search.
    """

    name: str
    resync: int = 0
    grow: int = 4
    partial: int = 0
    floor: int = 4
    eager: int = 0
    eager_window: int = 8


TODAY = Policy("today")


@dataclass
class Prediction:
    """coder's prediction speculator for one sequence (prediction_impl.py), plus a sizing policy."""

    pred: list[int]
    n_prompt: int
    n_max: int = 64
    policy: Policy = TODAY
    N_SYNC: int = 4
    N_WINDOW: int = 2048
    n_seen: int = 0
    cursor: int = 0
    anchor: int = 0
    run: int = 0
    aligned: bool = True
    n_miss: int = 0
    budget: int = 0  # 0: n_max
    lost: int = 0  # the cursor when the output last left the prediction
    last_draft: int = 0
    stats: dict[str, int] = field(default_factory=dict)

    def _observe(self, t: int) -> None:
        if self.aligned and self.cursor < len(self.pred) and self.pred[self.cursor] == t:
            self.cursor += 1
            self.run += 1
            if self.run >= self.N_SYNC:
                self.anchor = self.cursor
        else:
            if self.aligned:
                self.lost = self.cursor
            self.aligned = False
            self.run = 0

    def _eager(self, tail: list[int]) -> bool:
        n = len(tail)
        end = min(len(self.pred), self.lost + self.policy.eager_window + n)
        for p in range(self.lost, end - n + 1):
            if self.pred[p:p + n] == tail:
                self.cursor, self.aligned, self.run = p + n, True, 0
                return True
        return False

    def _resync(self, tail: list[int]) -> bool:
        n = len(tail)
        end = min(len(self.pred), self.anchor + self.N_WINDOW + n)
        for p in range(self.anchor, end - n + 1):
            if self.pred[p:p + n] == tail:
                self.cursor, self.aligned, self.run = p + n, True, 0
                return True
        return False

    def draft(self, ctx: list[int], id_last: int, dp_n_max: int) -> list[int]:
        """The draft after ``ctx`` (prompt + output before ``id_last``) and ``id_last``."""
        self.last_draft = 0
        n_gen = len(ctx) - self.n_prompt
        n_out = n_gen + 1

        def out_at(i: int) -> int:
            return ctx[self.n_prompt + i] if i < n_gen else id_last

        for i in range(self.n_seen, n_out):
            self._observe(out_at(i))
        self.n_seen = n_out
        if not self.aligned:
            e = self.policy.eager
            n = self.N_SYNC * (1 + min(self.n_miss, 3))
            if not (e and self.n_miss == 0 and n_out >= e and self._eager([out_at(n_out - e + j) for j in range(e)])) \
                    and (n_out < n or not self._resync([out_at(n_out - n + j) for j in range(n)])):
                return []
            if self.policy.resync:
                self.budget = self.policy.resync
        if self.cursor >= len(self.pred):
            return []
        n_draft = self.n_max if not self.budget else min(self.budget, self.n_max)
        if dp_n_max > 0:
            n_draft = min(n_draft, dp_n_max)
        n_draft = max(1, n_draft >> (2 * min(self.n_miss, 3)))
        n_draft = min(n_draft, len(self.pred) - self.cursor)
        self.last_draft = n_draft
        return self.pred[self.cursor:self.cursor + n_draft]

    def accept(self, n_accepted: int) -> None:
        """Its own draft was verified with ``n_accepted`` tokens accepted."""
        self.n_miss = self.n_miss + 1 if n_accepted == 0 else 0
        p = self.policy
        if n_accepted >= self.last_draft:
            if self.budget:
                self.budget = min(self.n_max, self.budget * p.grow)
                if self.budget >= self.n_max:
                    self.budget = 0
        elif n_accepted > 0 and p.partial:
            self.budget = max(p.floor, min(self.n_max, p.partial * (n_accepted + 1)))


def simulate(rows: list[dict[str, Any]], policy: Policy, cap: int, max_tokens: int, n_ctx: int,
             plain: float = PLAIN_MS, wide: float = WIDE_MS) -> list[dict[str, Any]]:
    """Every recorded request in order on one simulated server; per request its steps and modelled time."""
    ngm = NgramMod(n_max=cap)
    out = []
    for r in rows:
        prompt, reply = r["prompt"], r["reply"]
        ngm.begin(prompt)  # the one-token prefill request
        ngm.begin(prompt)
        pr = Prediction(list(r["prediction"]), len(prompt), n_max=max(64, cap), policy=policy) \
            if r["prediction"] else None
        steps: list[tuple[int, int]] = [(0, 0)]
        k = 1  # the prompt step yields the first token
        ms = 0.0
        while k < len(reply):
            ctx = prompt + reply[:k - 1]
            dp_n_max = min(n_ctx - len(ctx) - 2, max_tokens - k - 1, cap)
            draft: list[int] = []
            who = None
            if dp_n_max > 0:
                if pr is not None:
                    draft, who = pr.draft(ctx, reply[k - 1], dp_n_max), pr
                if not draft:
                    draft, who = ngm.draft(ctx, reply[k - 1]), ngm
                draft = draft[:dp_n_max]
            a = 0
            while a < len(draft) and k + a < len(reply) and draft[a] == reply[k + a]:
                a += 1
            if draft and who is not None:
                who.accept(a)
            steps.append((len(draft), a))
            ms += step_ms(len(draft) + 1, plain, wide)
            k += a + 1
        n_spec = sum(1 for d, _ in steps if d)
        acc = sum(a for _, a in steps)
        out.append({"name": r["name"], "cls": r["cls"], "n": len(reply), "steps": steps,
                    "n_steps": len(steps) - 1, "n_spec": n_spec, "al": 1 + acc / n_spec if n_spec else 1.0,
                    "ms": ms, "tps": (len(reply) - 1) / ms * 1000 if ms else 0.0})
    return out


POLICIES = (
    TODAY,
    Policy("resync8", resync=8),
    Policy("resync16", resync=16),
    Policy("resync16x2", resync=16, grow=2),
    Policy("partial2", partial=2),
    Policy("partial4", partial=4),
    Policy("resync16+partial2", resync=16, partial=2),
    Policy("resync8+partial2", resync=8, partial=2),
    Policy("eager1", eager=1),
    Policy("eager1+resync2", eager=1, resync=2),
    Policy("eager1+resync4", eager=1, resync=4),
    Policy("eager1+resync16", eager=1, resync=16),
    Policy("eager1+resync8", eager=1, resync=8),
    Policy("eager2+resync8", eager=2, resync=8),
    Policy("eager2+resync16", eager=2, resync=16),
    Policy("eager1+resync4+partial2", eager=1, resync=4, partial=2),
)


def table(recs: list[dict[str, Any]], policies: Sequence[Policy], n_ctx: int, per_request: bool = False) -> None:
    """Per policy and class: steps, spec steps, AL, modelled ms and tok/s (sums over the class's requests);
    each record is replayed on a server of its own."""
    print(f"{'policy':22s} {'class':7s} {'n':>6s} {'steps':>6s} {'spec':>5s} {'AL':>6s} {'ms':>8s} {'tok/s':>7s}"
          f" {'x today':>7s}")
    base: dict[str, float] = {}
    for pol in policies:
        sims = [s for rec in recs for s in simulate(rec["rows"], pol, rec["cap"], rec["max_tokens"], n_ctx)]
        keys = sorted({s["name"] if per_request else s["cls"] for s in sims})
        for cls in keys:
            group = [s for s in sims if (s["name"] if per_request else s["cls"]) == cls]
            n = sum(s["n"] - 1 for s in group)
            ms = sum(s["ms"] for s in group)
            spec = sum(s["n_spec"] for s in group)
            acc = sum(a for s in group for _, a in s["steps"])
            tps = n / ms * 1000
            base.setdefault(cls, tps)
            label = f"{cls[:44]:44s}" if per_request else f"{cls:7s}"
            print(f"{pol.name:22s} {label} {n:6d} {sum(s['n_steps'] for s in group):6d} {spec:5d} "
                  f"{1 + acc / max(spec, 1):6.2f} {ms:8.1f} {tps:7.0f} {tps / base[cls]:7.3f}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("records", type=Path, nargs="+", help="draft_policy_record.py files, one server each")
    ap.add_argument("--check", action="store_true", help="compare today's simulated steps with the recorded ones")
    ap.add_argument("--ctx", type=int, default=16384)
    ap.add_argument("--per-request", action="store_true", help="one row per request instead of per class")
    ap.add_argument("--policies", default="", help="comma-separated policy names (default: all)")
    args = ap.parse_args()
    recs = [json.loads(path.read_text()) for path in args.records]
    if args.check:
        for rec in recs:
            check(rec["rows"], recorded_policy(rec), rec["cap"], rec["max_tokens"], args.ctx)
    chosen = [p for p in POLICIES if not args.policies or p.name in args.policies.split(",")]
    table(recs, chosen, args.ctx, args.per_request)
    return 0


def recorded_policy(rec: dict[str, Any]) -> Policy:
    """The policy a record's requests asked for (prediction-v1's POLICY_FIELDS; none: today's)."""
    from coder.backends.toolchain.prediction_patch import POLICY_FIELDS

    body = rec.get("body") or {}
    eager, resync, partial = (int(body.get(f, 0)) for f in POLICY_FIELDS)
    return Policy("recorded", eager=eager, resync=resync, partial=partial) if eager or resync or partial else TODAY


def check(rows: list[dict[str, Any]], policy: Policy, cap: int, max_tokens: int, n_ctx: int) -> None:
    """The simulated steps against the server's own, per request, under the policy the record used."""
    print(f"check under {policy}")
    for r, s in zip(rows, simulate(rows, policy, cap, max_tokens, n_ctx), strict=True):
            got = [tuple(x) for x in s["steps"]]
            want = [tuple(x) for x in r["steps"]]
            # the server may log its last step after the reply went out, so the record can lack it
            same = got == want or (got[:-1] == want and len(got) > 1)
            print(f"{r['name']:40s} steps recorded {len(want):4d} simulated {len(got):4d} "
                  f"{'identical' if got == want else 'identical but the last' if same else 'DIFFERENT'}")
            if not same:
                i = next((i for i, (a, b) in enumerate(zip(got, want, strict=False)) if a != b),
                         min(len(got), len(want)))
                print(f"   first difference at step {i}: simulated {got[i:i + 4]} recorded {want[i:i + 4]}")


if __name__ == "__main__":
    raise SystemExit(main())
