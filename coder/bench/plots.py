"""PNG plots of a bench report (matplotlib, Agg backend: no display needed)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # after use("Agg"): no display needed
from matplotlib.patches import Patch
from matplotlib.ticker import ScalarFormatter

from coder.bench.schema import BenchReport

if TYPE_CHECKING:
    from coder.bench.edits.run import Outcome

CLASS_COLORS = {"fresh": "tab:blue", "full": "tab:green", "region": "tab:orange", "all": "black"}


def plot_all(report: BenchReport, out_dir: Path, stem: str) -> list[Path]:
    """Write every plot the report has data for; returns the files written."""
    out_dir.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    for name, fn in (("k", plot_k), ("acceptance", plot_acceptance), ("concurrency", plot_concurrency)):
        path = out_dir / f"{stem}-{name}.png"
        if fn(report, path):
            written.append(path)
    return written


def _save(fig: Any, path: Path) -> None:
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _finish(fig: Any, ax: Any, path: Path, drawn: bool, xlabel: str, ylabel: str, title: str,
            legend_size: int = 8) -> bool:
    """Label and save a drawn figure; discard an empty one (False: nothing to plot)."""
    if not drawn:
        plt.close(fig)
        return False
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=legend_size)
    _save(fig, path)
    return True


def plot_k(report: BenchReport, path: Path) -> bool:
    """Single-stream tok/s vs k, one line per class (and all prompts), baseline dashed."""
    fig, ax = plt.subplots(figsize=(7, 4.2))
    drawn = False
    for res in report["results"]:
        by_k = sorted(((k, r) for r in res["single"] if (k := r["k"]) and not r.get("baseline")),
                      key=lambda kr: kr[0])
        if len(by_k) < 2:
            continue
        ks = [k for k, _ in by_k]
        rows = [r for _, r in by_k]
        series = {"all": [r["decode_tps"] for r in rows]}
        for cls in ("fresh", "full", "region"):
            if any(cls in r["decode_tps_by_class"] for r in rows):
                series[cls] = [r["decode_tps_by_class"].get(cls) for r in rows]
        for cls, ys in series.items():
            ax.plot(ks, [y if y is not None else float("nan") for y in ys], marker="o",
                    color=CLASS_COLORS[cls] if len(report["results"]) == 1 else None,
                    label=f"{res['name']} {cls}")
        base = next((r for r in res["single"] if r.get("baseline")), None)
        if base and base["decode_tps"]:
            ax.axhline(base["decode_tps"], linestyle="--", color="grey",
                       label=f"{res['name']} no speculation")
        drawn = True
    return _finish(fig, ax, path, drawn, "k (draft tokens per step)", "decode tok/s (mean of per-prompt medians)",
                   "tok/s vs k per request class")


def plot_acceptance(report: BenchReport, path: Path) -> bool:
    """Survival P(A ≥ i) per position for every speculative run (conditional rates dotted)."""
    fig, ax = plt.subplots(figsize=(7, 4.2))
    drawn = False
    for res in report["results"]:
        for row in res["single"]:
            surv = row["survival"]
            if not surv:
                continue
            xs = list(range(1, len(surv) + 1))
            (line,) = ax.plot(xs, surv, marker="o", label=f"{row['label']} survival")
            ax.plot(xs, row["conditional"], linestyle=":", marker=".", color=line.get_color(),
                    label=f"{row['label']} conditional")
            drawn = True
    ax.set_ylim(0, 1.05)
    return _finish(fig, ax, path, drawn, "draft position i", "acceptance", "acceptance per position", legend_size=7)


def plot_concurrency(report: BenchReport, path: Path) -> bool:
    """Aggregate output tok/s vs concurrency, per target and its baseline."""
    fig, ax = plt.subplots(figsize=(7, 4.2))
    drawn = False
    for res in report["results"]:
        for is_base in (False, True):
            rows = sorted((r for r in res["concurrency"] if r["baseline"] == is_base),
                          key=lambda r: r["concurrency"])
            if not rows:
                continue
            ax.plot([r["concurrency"] for r in rows],
                    [r["output_throughput"] or float("nan") for r in rows], marker="o",
                    linestyle="--" if is_base else "-",
                    label=f"{res['name']}{' no speculation' if is_base else ''}")
            drawn = True
    return _finish(fig, ax, path, drawn, "concurrency (streams)", "output tok/s (aggregate, incl. TTFT)",
                   "tok/s vs concurrency")


_OUTCOME_COLORS = {"correct": "tab:green", "refused": "tab:olive", "wrong": "tab:red"}
_TOOL_HATCH = ("", "//", "..", "xx", "\\\\")


def _tool_label(name: str, rows: list[Outcome]) -> str:
    from coder.bench.edits.report import median

    ran = [r for r in rows if r.outcome != "skipped"]
    med = median([r.enter_to_diff_s for r in ran])
    ok, wrong = sum(r.outcome == "correct" for r in ran), sum(r.outcome == "wrong" for r in ran)
    return f"{name}: {ok}/{len(ran)} correct, {wrong} wrong" + (f", median {med:.1f} s" if med is not None else "")


def plot_edits(runs: dict[str, list[Outcome]], path: Path, title: str) -> Path:
    """``coder bench --edits``: per kind, one stacked bar per tool (correct/refused/wrong) side by side;
    below, the median Enter→diff per kind and tool on its own (log) axis. Legends sit outside the bars."""
    from coder.bench.edits.report import kinds, median

    names = list(runs)
    ks = kinds(runs)
    width = 0.8 / max(1, len(names))
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(max(8.0, 0.3 * len(ks) * max(2, len(names)) + 3), 7.0),
                                      sharex=True, gridspec_kw={"height_ratios": [3, 2]})
    xs = range(len(ks))
    for i, name in enumerate(names):
        offs = [x - 0.4 + width * (i + 0.5) for x in xs]
        base = [0] * len(ks)
        for outcome, colour in _OUTCOME_COLORS.items():
            vals = [sum(1 for r in runs[name] if r.kind == k and r.outcome == outcome) for k in ks]
            top.bar(offs, vals, width * 0.92, bottom=base, color=colour, hatch=_TOOL_HATCH[i % len(_TOOL_HATCH)],
                    edgecolor="black", linewidth=0.4)
            base = [b + v for b, v in zip(base, vals, strict=True)]
        times = [median([r.enter_to_diff_s for r in runs[name] if r.kind == k and r.outcome != "skipped"])
                 for k in ks]
        bottom.bar(offs, [t if t is not None else 0.0 for t in times], width * 0.92, color="white",
                   hatch=_TOOL_HATCH[i % len(_TOOL_HATCH)], edgecolor="black", linewidth=0.6)
    top.set_ylabel("tasks")
    top.set_title(title)
    top.grid(axis="y", alpha=0.3)
    handles = [Patch(facecolor=c, edgecolor="black", label=o) for o, c in _OUTCOME_COLORS.items()]
    handles += [Patch(facecolor="white", edgecolor="black", hatch=_TOOL_HATCH[i % len(_TOOL_HATCH)],
                      label=_tool_label(n, runs[n])) for i, n in enumerate(names)]
    top.legend(handles=handles, fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), title="outcome / tool",
               title_fontsize=8)
    bottom.set_ylabel("median Enter→diff (s)")
    if any(r.enter_to_diff_s for rows in runs.values() for r in rows):
        bottom.set_yscale("log")
        bottom.yaxis.set_major_formatter(ScalarFormatter())
    bottom.grid(axis="y", alpha=0.3)
    bottom.set_xticks(list(xs))
    bottom.set_xticklabels(ks, rotation=35, ha="right", fontsize=8)
    _save(fig, path)
    return path


_LAYER_COLORS = {"reading": "tab:purple", "model": "tab:orange", "check": "tab:blue", "user command": "tab:gray",
                 "other": "white"}


def plot_edit_wordings(runs: dict[str, list[Outcome]], path: Path, title: str) -> Path:
    """``coder bench --edits`` in several wordings: per run, one panel of stacked bars (correct/refused/wrong)
    per kind with one bar per wording side by side; a last panel, per wording, the refusals by layer."""
    from coder.bench.edits.report import kinds

    names = list(runs)
    ks = kinds(runs)
    ws = sorted({r.wording for rows in runs.values() for r in rows})
    width = 0.8 / max(1, len(ws))
    fig, axes = plt.subplots(len(names) + 1, 1, figsize=(max(8.0, 0.25 * len(ks) * max(3, len(ws)) + 3),
                                                        3.6 * (len(names) + 1)), squeeze=False)
    for ax, name in zip(axes[:-1, 0], names, strict=True):
        for j, w in enumerate(ws):
            offs = [x - 0.4 + width * (j + 0.5) for x in range(len(ks))]
            base = [0] * len(ks)
            for outcome, colour in _OUTCOME_COLORS.items():
                vals = [sum(1 for r in runs[name] if r.kind == k and r.wording == w and r.outcome == outcome)
                        for k in ks]
                ax.bar(offs, vals, width * 0.92, bottom=base, color=colour, hatch=_TOOL_HATCH[j % len(_TOOL_HATCH)],
                       edgecolor="black", linewidth=0.4)
                base = [b + v for b, v in zip(base, vals, strict=True)]
        ax.set_title(f"{title} ({name})", fontsize=10)
        ax.set_ylabel("tasks")
        ax.set_xticks(list(range(len(ks))))
        ax.set_xticklabels(ks, rotation=35, ha="right", fontsize=8)
        ax.grid(axis="y", alpha=0.3)
        handles = [Patch(facecolor=c, edgecolor="black", label=o) for o, c in _OUTCOME_COLORS.items()]
        handles += [Patch(facecolor="white", edgecolor="black", hatch=_TOOL_HATCH[j % len(_TOOL_HATCH)],
                          label=f"wording {w}") for j, w in enumerate(ws)]
        ax.legend(handles=handles, fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0),
                  title="outcome / wording", title_fontsize=8)
    ax = axes[-1, 0]
    labels = [f"{name} w{w}" for name in names for w in ws]
    base = [0] * len(labels)
    for layer, colour in _LAYER_COLORS.items():
        vals = [sum(1 for r in runs[name] if r.wording == w and r.outcome == "refused" and r.layer == layer)
                for name in names for w in ws]
        ax.bar(range(len(labels)), vals, 0.6, bottom=base, color=colour, edgecolor="black", linewidth=0.4,
               label=layer)
        base = [b + v for b, v in zip(base, vals, strict=True)]
    ax.set_title("refusals by the layer that refused them", fontsize=10)
    ax.set_ylabel("refused pairs")
    ax.set_xticks(list(range(len(labels))))
    ax.set_xticklabels(labels, fontsize=8)
    ax.grid(axis="y", alpha=0.3)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), title="layer", title_fontsize=8)
    _save(fig, path)
    return path
