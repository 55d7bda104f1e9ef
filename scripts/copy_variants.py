"""Run-time variants of ``scripts/bench_copy.py``: one binary, several server settings, side by side.

A variant is a name made of parts joined by ``+`` (``steps+bs+argmax``); each part adds server
environment variables, llama-server flags or request fields. The parts:

* ``fast``: the build as installed (greedy fast path, no per-step sampler clone);
* ``stock``: build 11434's own sampling (``LLAMA_CODER_NO_GREEDY_FAST``, ``LLAMA_CODER_ALWAYS_CLONE``);
* ``steps``: the per-step phase log (``LLAMA_CODER_STEP_TIMINGS``; adds a device sync per decode);
* ``nographs``: CUDA graphs off;
* ``bs``: ``-bs/--backend-sampling``: the sampler chain runs inside the model's graph and only the
  chosen ids come back. Build 11434 offloads the leading run of samplers that have a backend
  implementation; at greedy settings every sampler of the default chain either has one or is empty,
  so the whole chain runs on the device, but ``top_k`` is a ``ggml_top_k`` over the whole vocabulary
  per verified row, followed by ``top_p``'s argsort, ``min_p``, the temperature-0 argmax and ``dist``.
  The greedy fast path steps aside under ``-bs`` (it checks ``backend_sampling``);
* ``argmax``: request fields ``top_k 0, top_p 1, min_p 0`` that make those samplers empty, so that at
  temperature 0 the chain left is one ``ggml_argmax`` per row (plus ``dist`` over one candidate).
  The reply is the same greedy reply; without ``bs`` it changes nothing the greedy fast path does.
* ``sized``, ``sized4``, ``eager``, ``resync``: the prediction drafter's sizing policy (request fields of
  prediction-v1, ``POLICY_FIELDS``; scripts/draft_policy_sim.py chose the values): ``sized`` re-synchronises
  on one token near where the output left the prediction and drafts at most 16 tokens right after any
  re-synchronisation (64 again after one fully accepted draft); ``sized4`` the same from 4 tokens (4, 16,
  64); ``eager`` and ``resync`` are ``sized``'s two halves alone.
* ``noargmax``: greedy-argmax-v1 off (``LLAMA_CODER_NO_GREEDY_ARGMAX``): the logits of every verified row
  copied to the host and scanned there by the greedy fast path, as before that patch.

``stock-steps`` is kept as the older spelling of ``stock+steps``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any

from coder.backends.toolchain.prediction_patch import POLICY_FIELDS


@dataclass(frozen=True)
class Variant:
    """What one variant changes: server environment, extra llama-server flags, request fields."""

    env: dict[str, str] = field(default_factory=dict)
    flags: tuple[str, ...] = ()
    body: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """The variant as recorded in a run's JSON."""
        return {"env": self.env, "flags": list(self.flags), "body": self.body}


def _policy(eager: int, resync: int, partial: int = 0) -> Variant:
    """A sizing policy of the prediction drafter, as request fields."""
    return Variant(body=dict(zip(POLICY_FIELDS, (eager, resync, partial), strict=True)))


PARTS: dict[str, Variant] = {
    "fast": Variant(),
    "stock": Variant(env={"LLAMA_CODER_NO_GREEDY_FAST": "1", "LLAMA_CODER_ALWAYS_CLONE": "1"}),
    "steps": Variant(env={"LLAMA_CODER_STEP_TIMINGS": "1"}),
    "nographs": Variant(env={"GGML_CUDA_DISABLE_GRAPHS": "1"}),
    "bs": Variant(flags=("-bs",)),
    "argmax": Variant(body={"top_k": 0, "top_p": 1.0, "min_p": 0.0}),
    "noargmax": Variant(env={"LLAMA_CODER_NO_GREEDY_ARGMAX": "1"}),
    "sized": _policy(eager=1, resync=16),
    "sized4": _policy(eager=1, resync=4),
    "eager": _policy(eager=1, resync=0),
    "resync": _policy(eager=0, resync=16),
}
ALIASES = {"stock-steps": "stock+steps"}
STEP_PHASES = ("total_ms", "pre_ms", "draft_ms", "decode_ms", "post_ms", "sample_ms", "verify_ms", "process_ms")


def variant(name: str) -> Variant:
    """The variant ``name`` (parts joined by ``+``); SystemExit with the known parts when a part is unknown."""
    parts = ALIASES.get(name, name).split("+")
    if unknown := [p for p in parts if p not in PARTS]:
        raise SystemExit(f"unknown variant part(s) {', '.join(unknown)} in {name!r} (known: {', '.join(PARTS)})")
    env: dict[str, str] = {}
    flags: list[str] = []
    body: dict[str, Any] = {}
    for p in parts:
        env |= PARTS[p].env
        flags += [f for f in PARTS[p].flags if f not in flags]
        body |= PARTS[p].body
    return Variant(env=env, flags=tuple(flags), body=body)


def step_summary(log_text: str) -> dict[str, Any] | None:
    """Per-step phase times of the ``coder-step`` lines (spec-step-v1 with LLAMA_CODER_STEP_TIMINGS=1):
    medians over the speculative steps (those that verified a draft), and over the plain ones.

    ``shape_changes`` counts the decoding steps whose batch size differs from the step before: on CUDA
    each such change re-captures the one cached graph (ggml-cuda keys it by its first node), so it
    bounds what fixed verification shapes could save."""
    spec: list[dict[str, float]] = []
    plain: list[dict[str, float]] = []
    batches: list[float] = []
    for m in re.finditer(r"coder-step (n_batch=.*)", log_text):
        step = {k: float(v) for k, v in re.findall(r"(\w+)=([\d.]+)", m.group(1))}
        if step.get("n_draft"):
            spec.append(step)
        elif step.get("n_batch") == 1:
            plain.append(step)
        else:
            continue  # processed the prompt
        batches.append(step.get("n_batch", 0.0))
    if not spec and not plain:
        return None

    def med(steps: list[dict[str, float]]) -> dict[str, float]:
        keys = ("n_batch", "n_draft", "n_accepted", *STEP_PHASES)
        return {k: round(sorted(s.get(k, 0.0) for s in steps)[len(steps) // 2], 3) for k in keys} if steps else {}

    changes = sum(a != b for a, b in pairwise(batches))
    return {"spec_steps": len(spec), "plain_steps": len(plain), "shape_changes": changes,
            "spec_median": med(spec), "plain_median": med(plain)}


def variant_agreement(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each ``<config>@<variant>`` run against the same config, cap, workload and rep under the first
    variant: where its tokens first differ (None: identical) and both decode speeds."""
    from coder.bench import lossless

    first = {(r["config"], r["cap"], r["workload"], r["rep"]): r for r in rows if "@" not in r["config"]}
    out = []
    for r in rows:
        base, _, name = r["config"].partition("@")
        ref = first.get((base, r["cap"], r["workload"], r["rep"])) if name else None
        if ref is not None:
            out.append({"config": base, "variant": name, "cap": r["cap"], "workload": r["workload"],
                        "rep": r["rep"], "first_difference": lossless.first_difference(ref["tokens"], r["tokens"]),
                        "n": r["n"], "tps": r["tps"], "tps_first": ref["tps"]})
    return out


def print_agreement(pairs: list[dict[str, Any]]) -> None:
    """Per config and variant: identical replies, and the first variant's decode speed over this one's."""
    groups: dict[tuple[str, str, Any], list[dict[str, Any]]] = {}
    for p in pairs:
        groups.setdefault((p["config"], p["variant"], p["cap"]), []).append(p)
    if groups:
        print("\nside by side (first variant / this variant, decode tok/s):")
    for (config, name, cap), items in groups.items():
        same = sum(p["first_difference"] is None for p in items)
        ratios = sorted(p["tps_first"] / p["tps"] for p in items if p["tps"] and p["tps_first"])
        tps = sorted(p["tps"] for p in items if p["tps"])
        first = sorted(p["tps_first"] for p in items if p["tps_first"])
        med = ratios[len(ratios) // 2] if ratios else float("nan")
        print(f"  {config:22s} @{name:15s} cap={cap!s:4s} identical {same}/{len(items)}  "
              f"median tok/s {first[len(first) // 2] if first else 0:8.1f} vs {tps[len(tps) // 2] if tps else 0:8.1f}"
              f"  ratio {med:.3f}")


def print_steps(rows: list[dict[str, Any]]) -> None:
    """The per-step phase medians of every run that logged them, one line per run, with the plain
    (one-token) step of the run without speculation under the same variant (else the run's own plain
    steps) and the ratio the step target reads (a cap-64 step at most 3x a plain one)."""
    logged = [r for r in rows if r.get("steps") and r["steps"].get("spec_median")]
    if not logged:
        return
    print("\nper-step phases, speculative steps (medians, ms; shape = batch-size changes between steps):")
    print(f"  {'config':34s} {'cap':>4s} {'workload':24s} {'steps':>5s} {'shape':>5s} {'n_batch':>7s} "
          + " ".join(f"{p[:-3]:>7s}" for p in STEP_PHASES) + f" {'plain':>7s} {'x plain':>7s}")
    # the plain step of reference: the run without speculation under the same variant, same prompt
    ref = {(r["config"].partition("@")[2], r["workload"]): r["steps"]["plain_median"].get("total_ms")
           for r in rows if r["config"].partition("@")[0] == "none" and r.get("steps")
           and r["steps"].get("plain_median")}
    for r in logged:
        s, m = r["steps"], r["steps"]["spec_median"]
        plain = ref.get((r["config"].partition("@")[2], r["workload"])) or (s.get("plain_median") or {}).get("total_ms")
        ratio = f"{m['total_ms'] / plain:7.1f}" if plain else f"{'-':>7s}"
        print(f"  {r['config']:34s} {r['cap']!s:>4s} {r['workload'][:24]:24s} {s['spec_steps']:5d} "
              f"{s.get('shape_changes', 0):5d} {m['n_batch']:7.0f} " + " ".join(f"{m[p]:7.2f}" for p in STEP_PHASES)
              + (f" {plain:7.2f}" if plain else f" {'-':>7s}") + f" {ratio}")
