"""The ``coder bench --edits`` report: tables, one JSON file (a row per task and wording) and PNG plots."""

from __future__ import annotations

import datetime as dt
import json
import re
import statistics
from pathlib import Path

from rich.console import Console
from rich.table import Table

from coder.bench.edits.layers import LAYERS
from coder.bench.edits.run import OUTCOMES, Outcome, counts
from coder.bench.edits.wordings import by_wording, same_plan
from coder.errors import CoderError
from coder.fsutil import atomic_write

_STYLE = {"correct": "green", "refused": "yellow", "wrong": "bold red", "skipped": "dim"}


def _num(v: float | None, fmt: str) -> str:
    return format(v, fmt) if v is not None else "–"


def median(values: list[float | None]) -> float | None:
    """The median of the known values (None when there are none)."""
    known = [v for v in values if v is not None]
    return statistics.median(known) if known else None


def p90(values: list[float | None]) -> float | None:
    """The 90th percentile of the known values (nearest rank; None when there are none)."""
    known = sorted(v for v in values if v is not None)
    return known[max(0, -(-9 * len(known) // 10) - 1)] if known else None


def kinds(runs: dict[str, list[Outcome]]) -> list[str]:
    """The task kinds in the order they first appear."""
    return list(dict.fromkeys(r.kind for rows in runs.values() for r in rows))


def by_kind(rows: list[Outcome]) -> dict[str, dict[str, object]]:
    """Per kind: the outcome counts, the plans used and the median Enter→diff."""
    out: dict[str, dict[str, object]] = {}
    for kind in dict.fromkeys(r.kind for r in rows):
        mine = [r for r in rows if r.kind == kind]
        plans = sorted({r.plan or r.mode or r.mode_requested for r in mine if r.outcome != "skipped"})
        out[kind] = {**{k: sum(1 for r in mine if r.outcome == k) for k in OUTCOMES}, "plans": plans,
                     "median_enter_to_diff_s": median([r.enter_to_diff_s for r in mine if r.outcome != "skipped"])}
    return out


def by_layer(rows: list[Outcome]) -> dict[str, int]:
    """The refusals by the layer that refused them (:mod:`coder.bench.edits.layers`)."""
    refused = [r for r in rows if r.outcome == "refused"]
    return {layer: sum(1 for r in refused if r.layer == layer) for layer in (*LAYERS, "other")}


def summary(rows: list[Outcome]) -> dict[str, object]:
    """Counts and medians of one run (one target, one mode), overall, per kind, per wording and per layer."""
    ran = [r for r in rows if r.outcome != "skipped"]
    return {**counts(rows), "tasks": len(ran),
            "median_enter_to_diff_s": median([r.enter_to_diff_s for r in ran]),
            "p90_enter_to_diff_s": p90([r.enter_to_diff_s for r in ran]),
            "median_decode_tps": median([r.decode_tps for r in ran]),
            "median_acceptance_length": median([r.acceptance_length for r in ran]),
            "by_kind": by_kind(rows), "by_wording": by_wording(rows), "refused_by_layer": by_layer(rows),
            "same_plan": same_plan(rows)}


def render(rows: list[Outcome], title: str, console: Console) -> None:
    """One row per task, then the totals."""
    table = Table(title=title, title_justify="left")
    for col in ("task", "w", "kind", "mode", "plan", "outcome", "layer", "scope", "Enter→diff s", "TTFT s", "tok/s",
                "acc len", "why"):
        table.add_column(col, overflow="fold", justify="right" if col[0].isupper() or col in (
            "tok/s", "acc len") else "left")
    for r in rows:
        scope = f"flagged ({r.flagged_would_be})" if r.flagged else ""
        plan = (r.plan or "") + (f"; retried: {r.retried}" if r.retried else "") + (
            f"; {r.sampled}" if r.sampled else "") + (f"; {r.moved}" if r.moved else "") + (
            f"; {r.repaired}" if r.repaired else "")
        table.add_row(r.task, str(r.wording), r.kind, r.mode or r.mode_requested, plan[:40],
                      f"[{_STYLE[r.outcome]}]{r.outcome}[/]", r.layer or "", scope,
                      _num(r.enter_to_diff_s, ".1f"), _num(r.ttft_s, ".2f"), _num(r.decode_tps, ".1f"),
                      _num(r.acceptance_length, ".2f"), r.why[:70])
    console.print(table)
    s = summary(rows)
    console.print(
        f"{title}: " + ", ".join(f"{k} {s[k]}" for k in OUTCOMES) + f"; scope guard flagged {s['flagged']} "
        f"({s['flagged_would_be_wrong']} would have been wrong); wrong edits committed: {s['committed_wrong']}; "
        f"median Enter→diff {_num(s['median_enter_to_diff_s'], '.1f')} s, "  # type: ignore[arg-type]
        f"p90 {_num(s['p90_enter_to_diff_s'], '.1f')} s", highlight=False)  # type: ignore[arg-type]
    layers = by_layer(rows)
    same = same_plan(rows)
    console.print("refused by layer: " + ", ".join(f"{k} {v}" for k, v in layers.items() if v or k != "other")
                  + f"; the same plan in every wording: {same['same']} of {same['tasks']} tasks", highlight=False)


def render_wordings(runs: dict[str, list[Outcome]], console: Console) -> None:
    """One row per (run, wording): correct / refused / wrong, the refusals by layer; then the same-plan count."""
    table = Table(title="per wording: correct / refused / wrong, and where the refusals were lost",
                  title_justify="left")
    for col in ("run", "wording", "pairs", "correct", "refused", "wrong", *LAYERS, "other"):
        table.add_column(col, justify="left" if col in ("run", "wording") else "right")
    for name, rows in runs.items():
        if name.startswith("aider-"):
            continue
        for w, c in by_wording(rows).items():
            n = c["correct"] + c["refused"] + c["wrong"]
            table.add_row(name, str(w), str(n), f"[green]{c['correct']}[/]", f"[yellow]{c['refused']}[/]",
                          f"[bold red]{c['wrong']}[/]", *(str(c[f"refused: {layer}"]) for layer in (*LAYERS, "other")))
    console.print(table)
    for name, rows in runs.items():
        if not name.startswith("aider-"):
            same = same_plan(rows)
            differs = ", ".join(same["differs"][:12])  # type: ignore[index]
            console.print(f"{name}: the same plan in every wording for {same['same']} of {same['tasks']} tasks"
                          + (f"; differs: {differs}" if differs else ""), highlight=False)


def render_kinds(runs: dict[str, list[Outcome]], console: Console) -> None:
    """One row per kind: correct/refused/wrong of each run side by side, with the plans used."""
    table = Table(title="per kind: correct / refused / wrong (plans used)", title_justify="left")
    table.add_column("kind")
    table.add_column("tasks", justify="right")
    for name in runs:
        table.add_column(name)
    per_run = {name: by_kind(rows) for name, rows in runs.items()}
    for kind in kinds(runs):
        cells = []
        for name in runs:
            k = per_run[name].get(kind)
            if k is None:
                cells.append("–")
                continue
            plans = ", ".join(k["plans"])  # type: ignore[arg-type]
            cells.append(f"[green]{k['correct']}[/] / [yellow]{k['refused']}[/] / [bold red]{k['wrong']}[/]"
                         + (f" ({plans})" if plans and not name.startswith("aider-") else ""))
        n = max(sum(1 for r in rows if r.kind == kind) for rows in runs.values())
        table.add_row(kind, str(n), *cells)
    console.print(table)


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


def merge(paths: list[Path]) -> tuple[dict[str, list[Outcome]], dict[str, object]]:
    """The runs of several ``--edits`` result files joined (same run name: rows appended), and the document."""
    from dataclasses import fields

    names = {f.name for f in fields(Outcome)}
    runs: dict[str, list[Outcome]] = {}
    first: dict[str, object] = {}
    imports: dict[str, object] = {}
    for path in paths:
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
            parts = doc["runs"]
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise CoderError(f"{path}: not an --edits result ({exc})") from exc
        first = first or doc
        imports.update(doc.get("aider_import_s") or {})
        for run_name, part in parts.items():
            runs.setdefault(run_name, []).extend(Outcome(**{k: v for k, v in row.items() if k in names})
                                                 for row in part["rows"])
    out = build(runs, target=str(first.get("target", "merged")), server=first.get("server", {}),  # type: ignore[arg-type]
                guard=bool(first.get("scope_guard", True)), argv=[str(p) for p in paths])
    out["merged_from"] = [str(p) for p in paths]
    if imports:
        out["aider_import_s"] = imports
    return runs, out
