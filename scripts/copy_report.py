"""Figures and the table of ``scripts/bench_copy.py``: ratios side by side, targets, lossless verdicts.

Every ratio compares configurations measured in one run on the same prompts: the mean decode tok/s
of a configuration over a class's prompts divided by another's. "At its best depth" picks the
per-request cap with the highest mean for that configuration and class.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from statistics import mean
from typing import NotRequired, TypedDict

from coder.bench import lossless

PREDICTS = ("prediction", "prediction+draft", "prediction+ngram-mod")
TARGETED = ("prediction", "prediction+draft")  # the "prediction, with or without the model drafter"
SPEC = ("ngram-mod", "ngram-mod+draft", *PREDICTS)
CEILING_CAP = 7
TARGETS = {"vs_ceiling": 2.0, "vs_ngram": 1.3, "fresh_vs_model": 0.97}


class CopyRun(TypedDict, total=False):
    """One greedy run of ``scripts/bench_copy.py``: its identity, timings, counters and lossless verdict."""

    config: str
    cap: int | None
    workload: str
    cls: str
    rep: int
    tokens: list[int]
    text: str
    n: int
    tps: float | None  # llama.cpp timings.predicted_per_second
    wall: float
    prompt_ms: float | None
    drafts: float
    draft_tokens: float
    accepted: float
    al: float | None
    per_pos: list[float]
    by_type: dict[str, dict[str, int]]  # timings.draft_by_type of coder's build
    step_share: dict[str, float]
    lossless: lossless.DivergenceJSON


class RealDivergence(TypedDict):
    """Where a run diverged beyond the noise floor, and the margins per batch shape."""

    config: str
    cap: int | None
    workload: str
    index: int | None
    margin: float | None
    margins: dict[str, float | None]


class Pick(TypedDict):
    """A configuration at one cap and its mean tok/s."""

    config: str
    cap: int | None
    tps: float


class ClassSummary(TypedDict):
    """One request class: the best configurations and the ratios the targets name."""

    none: Pick
    ceiling: Pick | None
    best_prediction: Pick | None
    best_ngram_mod: Pick | None
    best_overall: Pick | None
    model_drafter: Pick | None
    prediction_vs_ceiling: float | None
    prediction_vs_ngram_mod: float | None
    prediction_vs_none: float | None
    prediction_ngram_chain: Pick | None
    chain_vs_ngram_mod: float | None
    prediction_draft_vs_model: NotRequired[float | None]  # fresh only


class MismatchSummary(TypedDict):
    """The worst case: a prediction that does not match the output."""

    prediction_draft_tokens_max: int
    prediction_drafts_max: int
    tps_vs_none_min: float | None


class CopySummary(TypedDict, total=False):
    """What :func:`summarize` returns (keys in the order they are filled)."""

    classes: dict[str, ClassSummary]
    noise_floor_nats: float
    targets: dict[str, str]
    mismatch: MismatchSummary
    lossless: dict[str, dict[str, int]]
    real_divergences: list[RealDivergence]
    noise_floor: list[lossless.DivergenceJSON]


def _tps(rows: Iterable[CopyRun]) -> float | None:
    values = [float(t) for r in rows if (t := r.get("tps"))]
    return mean(values) if values else None


def _by(rows: list[CopyRun], cls: str) -> dict[tuple[str, int | None], list[CopyRun]]:
    out: dict[tuple[str, int | None], list[CopyRun]] = defaultdict(list)
    for r in rows:
        if r["cls"] == cls:
            out[(r["config"], r["cap"])].append(r)
    return out


def best(rows: list[CopyRun], cls: str, configs: tuple[str, ...]) -> Pick | None:
    """The (config, cap) of ``configs`` with the highest mean tok/s on ``cls`` (cap 7 excluded)."""
    groups = [(k, _tps(v)) for k, v in _by(rows, cls).items() if k[0] in configs and k[1] != CEILING_CAP]
    scored = [(k, t) for k, t in groups if t is not None]
    if not scored:
        return None
    (config, cap), tps = max(scored, key=lambda g: g[1])
    return {"config": config, "cap": cap, "tps": round(tps, 1)}


def ceiling(rows: list[CopyRun], cls: str) -> Pick | None:
    """The block-8 ceiling: the better copy drafter (ngram-mod or prediction) capped at k=7."""
    groups = _by(rows, cls)
    scored = [(c, _tps(groups.get((c, CEILING_CAP), []))) for c in ("ngram-mod", "prediction")]
    scored = [(c, t) for c, t in scored if t is not None]
    if not scored:
        return None
    config, tps = max(scored, key=lambda g: g[1] or 0.0)
    return {"config": config, "cap": CEILING_CAP, "tps": round(tps or 0.0, 1)}


def _ratio(a: Pick | None, b: Pick | None) -> float | None:
    if not a or not b or not b["tps"]:
        return None
    return round(float(a["tps"]) / float(b["tps"]), 3)


def judge_all(rows: list[CopyRun]) -> float:
    """Set every run's lossless verdict against the noise floor of the plain-vs-plain runs."""
    floor = lossless.noise_floor([r["lossless"] for r in rows if r["config"] == "none-cold" and "lossless" in r])
    for r in rows:
        if "lossless" in r:
            r["lossless"]["verdict"] = lossless.judge(r["lossless"], floor)
    return floor


def lossless_counts(rows: list[CopyRun]) -> dict[str, dict[str, int]]:
    """Per config: how many runs were identical to plain greedy, within the floor, or real."""
    out: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for r in rows:
        if "lossless" in r:
            out[r["config"]][r["lossless"]["verdict"]] += 1
    return {c: dict(v) for c, v in out.items()}


def real_divergences(rows: list[CopyRun]) -> list[RealDivergence]:
    """Every divergence judged real: where, which tokens, and the margins per shape."""
    return [{"config": r["config"], "cap": r["cap"], "workload": r["workload"], "index": r["lossless"]["index"],
             "margin": r["lossless"]["margin"], "margins": r["lossless"]["margins"]}
            for r in rows if r.get("lossless", {}).get("verdict") == "real"]


def summarize(rows: list[CopyRun]) -> CopySummary:
    """Targets per class, the mismatch worst case and the lossless verdicts."""
    classes: dict[str, ClassSummary] = {}
    out: CopySummary = {"classes": classes, "noise_floor_nats": round(judge_all(rows), 3)}
    for cls in sorted({r["cls"] for r in rows}):
        none: Pick = {"config": "none", "cap": None, "tps": round(_tps(_by(rows, cls).get(("none", None), [])) or 0, 1)}
        pred, ngram = best(rows, cls, TARGETED), best(rows, cls, ("ngram-mod",))
        chain = best(rows, cls, ("prediction+ngram-mod",))
        model: Pick | None = best(rows, cls, ("draft-simple",)) or next(
            (Pick(config="draft-simple", cap=None, tps=round(t, 1))
             for t in [_tps(_by(rows, cls).get(("draft-simple", None), []))] if t), None)
        ceil = ceiling(rows, cls)
        c: ClassSummary = {"none": none, "ceiling": ceil, "best_prediction": pred, "best_ngram_mod": ngram,
                             "best_overall": best(rows, cls, SPEC), "model_drafter": model,
                             "prediction_vs_ceiling": _ratio(pred, ceil),
                             "prediction_vs_ngram_mod": _ratio(pred, ngram),
                             "prediction_vs_none": _ratio(pred, none),
                             "prediction_ngram_chain": chain, "chain_vs_ngram_mod": _ratio(chain, ngram)}
        if cls == "fresh":
            hybrid = best(rows, cls, ("prediction+draft",))
            c["prediction_draft_vs_model"] = _ratio(hybrid, model)
        classes[cls] = c
    full, fresh = classes.get("full"), classes.get("fresh")
    out["targets"] = {
        "prediction >= 2.0x ceiling (full)": _met(full and full["prediction_vs_ceiling"], TARGETS["vs_ceiling"]),
        "prediction >= 1.3x ngram-mod (full)": _met(full and full["prediction_vs_ngram_mod"], TARGETS["vs_ngram"]),
        "fresh prose >= 0.97x model drafter": _met(
            fresh and fresh.get("prediction_draft_vs_model"), TARGETS["fresh_vs_model"]),
    }
    mism = [r for r in rows if r["cls"] == "mismatch" and r["config"] == "prediction"]
    plain = _tps(r for r in rows if r["cls"] == "mismatch" and r["config"] == "none")
    if mism:
        by_pred: list[dict[str, int]] = [r.get("by_type", {}).get("prediction", {}) for r in mism]
        out["mismatch"] = {"prediction_draft_tokens_max": max(p.get("draft_n", 0) for p in by_pred),
                           "prediction_drafts_max": max(p.get("steps", 0) for p in by_pred),
                           "tps_vs_none_min": round(min(float(r["tps"] or 0) for r in mism) / plain, 3)
                           if plain else None}
    out["lossless"] = lossless_counts(rows)
    out["real_divergences"] = real_divergences(rows)
    out["noise_floor"] = [r["lossless"] for r in rows if r["config"] == "none-cold" and "lossless" in r]
    return out


def _met(value: float | None, target: float) -> str:
    if value is None:
        return "not measured"
    return f"{value:.2f}x: {'met' if value >= target else 'NOT met'}"


def _share(group: list[CopyRun]) -> str:
    """Mean share of verification steps each speculator drafted, over the group's runs."""
    short = {"prediction": "pred", "draft-simple": "ds", "ngram-mod": "ngm"}
    types = sorted({t for r in group for t in r.get("step_share", {})})
    shares = {t: mean(r.get("step_share", {}).get(t, 0.0) for r in group) for t in types}
    return " ".join(f"{short.get(t, t)} {v:.0%}" for t, v in shares.items()) or "-"


def _pos(per_pos: list[float]) -> str:
    picks = [i for i in (0, 7, 15, 31, 63) if i < len(per_pos)]
    return " ".join(f"p{i + 1} {per_pos[i]:.2f}" for i in picks) or "-"


def _verdicts(group: list[CopyRun]) -> str:
    counts: dict[str, int] = defaultdict(int)
    for r in group:
        if "lossless" in r:
            counts[r["lossless"]["verdict"]] += 1
    return ", ".join(f"{n} {v}" for v, n in sorted(counts.items())) or "ref"


def table_rows(rows: list[CopyRun]) -> list[list[str]]:
    """One row per (class, config, cap): tok/s, ×none, AL, per-position survival, shares, lossless."""
    out = []
    for cls in sorted({r["cls"] for r in rows}):
        groups = _by(rows, cls)
        none = _tps(groups.get(("none", None), []))
        for (config, cap), group in sorted(groups.items(), key=lambda g: (g[0][0], g[0][1] or 0)):
            tps = _tps(group)
            als = [al for r in group if (al := r.get("al"))]
            per_pos = [mean(p) for p in zip(*[r["per_pos"] for r in group if r["per_pos"]], strict=False)]
            out.append([cls, config, "-" if cap is None else str(cap), f"{tps:.1f}" if tps else "-",
                        f"{tps / none:.2f}" if tps and none else "-", f"{mean(als):.2f}" if als else "-",
                        _pos(per_pos), _share(group), _verdicts(group)])
    return out


def print_table(rows: list[CopyRun], summary: CopySummary) -> None:
    """The table, then the targets, the worst case and the lossless verdicts (plain text)."""
    head = ["class", "config", "cap", "tok/s", "x none", "AL", "accept by position", "steps drafted", "lossless"]
    body = table_rows(rows)
    widths = [max(len(str(x)) for x in col) for col in zip(head, *body, strict=False)]
    for line in [head, *body]:
        print("  ".join(str(x).ljust(w) for x, w in zip(line, widths, strict=True)))
    print()
    for name, verdict in summary["targets"].items():
        print(f"target {name}: {verdict}")
    for cls, c in summary["classes"].items():
        print(f"{cls}: best {c['best_overall']}, ceiling {c['ceiling']}, none {c['none']['tps']} tok/s")
    if "mismatch" in summary:
        print(f"mismatching prediction (worst case): {summary['mismatch']}")
    print(f"lossless verdicts per config: {summary['lossless']}")
    print(f"noise floor: plain greedy diverged from itself at margins up to {summary['noise_floor_nats']} nats")
    for d in summary["real_divergences"]:
        print(f"REAL divergence: {d}")
    floor = [(d.get("index"), d.get("verdict"), d.get("margin")) for d in summary["noise_floor"]]
    print(f"noise floor (plain greedy, cold vs warm prompt cache): {floor}")
