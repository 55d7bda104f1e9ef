"""The ``coder bench --edits`` report: a table, one JSON file and one PNG plot."""

from __future__ import annotations

import datetime as dt
import json
import re
import statistics
from pathlib import Path

from rich.console import Console
from rich.table import Table

from coder.bench.edits.run import OUTCOMES, Outcome, counts
from coder.fsutil import atomic_write

_STYLE = {"correct": "green", "refused": "yellow", "wrong": "bold red", "skipped": "dim"}


def _num(v: float | None, fmt: str) -> str:
    return format(v, fmt) if v is not None else "–"


def median(values: list[float | None]) -> float | None:
    """The median of the known values (None when there are none)."""
    known = [v for v in values if v is not None]
    return statistics.median(known) if known else None


def summary(rows: list[Outcome]) -> dict[str, object]:
    """Counts and medians of one run (one target, one mode)."""
    ran = [r for r in rows if r.outcome != "skipped"]
    return {**counts(rows), "tasks": len(ran),
            "median_enter_to_diff_s": median([r.enter_to_diff_s for r in ran]),
            "median_decode_tps": median([r.decode_tps for r in ran]),
            "median_acceptance_length": median([r.acceptance_length for r in ran])}


def render(rows: list[Outcome], title: str, console: Console) -> None:
    """One row per task, then the totals."""
    table = Table(title=title, title_justify="left")
    for col in ("task", "kind", "mode", "outcome", "scope", "Enter→diff s", "TTFT s", "tok/s", "acc len",
                "why"):
        table.add_column(col, overflow="fold", justify="right" if col[0].isupper() or col in (
            "tok/s", "acc len") else "left")
    for r in rows:
        scope = f"flagged ({r.flagged_would_be})" if r.flagged else ""
        table.add_row(r.task, r.kind, r.mode or r.mode_requested, f"[{_STYLE[r.outcome]}]{r.outcome}[/]", scope,
                      _num(r.enter_to_diff_s, ".1f"), _num(r.ttft_s, ".2f"), _num(r.decode_tps, ".1f"),
                      _num(r.acceptance_length, ".2f"), r.why[:70])
    console.print(table)
    s = summary(rows)
    console.print(
        f"{title}: " + ", ".join(f"{k} {s[k]}" for k in OUTCOMES) + f"; scope guard flagged {s['flagged']} "
        f"({s['flagged_would_be_wrong']} would have been wrong); wrong edits committed: {s['committed_wrong']}; "
        f"median Enter→diff {_num(s['median_enter_to_diff_s'], '.1f')} s"  # type: ignore[arg-type]
        , highlight=False)


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", text).strip("-")[:48]


def write_json(doc: dict[str, object], out_dir: Path, name: str) -> Path:
    """``edits-<target>-<UTC time>.json`` in ``out_dir``."""
    out_dir.mkdir(parents=True, exist_ok=True)
    stamp = dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%SZ")
    path = out_dir / f"edits-{_slug(name)}-{stamp}.json"
    atomic_write(path, json.dumps(doc, indent=1, default=str).encode(), mode=0o600)
    return path


def build(runs: dict[str, list[Outcome]], *, target: str, server: dict[str, object], guard: bool,
          argv: list[str]) -> dict[str, object]:
    """The JSON document: per run (``<mode>`` or ``aider-<format>``) its rows and summary."""
    return {"kind": "edits", "target": target, "server": server, "scope_guard": guard, "argv": argv,
            "created": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
            "runs": {name: {"summary": summary(rows), "rows": [r.to_json() for r in rows]}
                     for name, rows in runs.items()}}


def plot(runs: dict[str, list[Outcome]], path: Path, title: str) -> Path:
    """Stacked outcome counts per run, with median Enter→diff on a second axis."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = list(runs)
    fig, ax = plt.subplots(figsize=(max(5.0, 1.6 * len(names) + 2), 4.2))
    bottom = [0] * len(names)
    colours = {"correct": "tab:green", "refused": "tab:olive", "wrong": "tab:red", "skipped": "lightgrey"}
    for outcome in OUTCOMES:
        vals = [sum(1 for r in runs[n] if r.outcome == outcome) for n in names]
        ax.bar(names, vals, bottom=bottom, color=colours[outcome], label=outcome)
        bottom = [b + v for b, v in zip(bottom, vals, strict=True)]
    ax.set_ylabel("tasks")
    ax.set_title(title)
    ax.legend(fontsize=8, loc="upper left")
    times = [median([r.enter_to_diff_s for r in runs[n] if r.outcome != "skipped"]) for n in names]
    if any(t is not None for t in times):
        ax2 = ax.twinx()
        ax2.plot(names, [t if t is not None else float("nan") for t in times], "ko-", label="median Enter→diff")
        ax2.set_ylabel("median Enter→diff (s)")
        ax2.set_ylim(bottom=0)
        ax2.legend(fontsize=8, loc="upper right")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
