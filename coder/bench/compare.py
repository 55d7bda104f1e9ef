"""``coder bench compare A.json B.json``: the same figures side by side with B ÷ A."""

from __future__ import annotations

from typing import TypedDict

from rich.console import Console
from rich.table import Table

from coder.bench.report import fmt
from coder.bench.schema import BenchReport


class CompareRow(TypedDict):
    """One figure of both reports: A's value, B's and B ÷ A (None where either is missing)."""

    row: str
    metric: str
    a: float | None
    b: float | None
    ratio: float | None


def _key_metrics(report: BenchReport) -> dict[tuple[str, str], float | None]:
    """(row, metric) → value for every comparable figure; rows keyed without the target name."""
    out: dict[tuple[str, str], float | None] = {}
    multi = len(report["results"]) > 1
    for res in report["results"]:
        pre = f"{res['name']} " if multi else ""
        for row in res["single"]:
            label = pre + ("baseline" if row.get("baseline") else f"single k={row['k'] or '–'}")
            out[(label, "decode tok/s")] = row["decode_tps"]
            for cls, v in sorted(row["decode_tps_by_class"].items()):
                out[(label, f"decode tok/s {cls}")] = v
            out[(label, "acceptance length")] = row["acceptance_length"]
            out[(label, "TTFT p50 s")] = row["ttft_p50"]
        for point in res["concurrency"]:
            label = pre + f"{'baseline ' if point['baseline'] else ''}c={point['concurrency']}"
            out[(label, "output tok/s")] = point["output_throughput"]
            out[(label, "TTFT p50 s")] = point["ttft_p50"]
        for pre_row in res["prefill"]:
            out[(pre + "prefill", "cold prompt tok/s")] = pre_row["cold"]["prompt_tps_server"] \
                or pre_row["cold"]["prompt_tps_client"]
    return out


def compare(a: BenchReport, b: BenchReport) -> list[CompareRow]:
    """Rows present in either report, with both values and B/A where both exist."""
    ma, mb = _key_metrics(a), _key_metrics(b)
    rows: list[CompareRow] = []
    for key in list(ma) + [k for k in mb if k not in ma]:
        va, vb = ma.get(key), mb.get(key)
        ratio = vb / va if va and vb is not None else None
        rows.append({"row": key[0], "metric": key[1], "a": va, "b": vb, "ratio": ratio})
    return rows


def prompt_mismatch(a: BenchReport, b: BenchReport) -> str | None:
    """A warning when A and B measured different prompts or method (ratios then compare unlike things)."""
    names_a = [w["name"] for w in a.get("workloads", [])]
    names_b = [w["name"] for w in b.get("workloads", [])]
    problems = []
    if names_a != names_b:
        problems.append("different prompts")
    for key in ("max_tokens", "reps", "cold", "temperature"):
        if a["settings"].get(key) != b["settings"].get(key):
            problems.append(f"{key} {a['settings'].get(key)} vs {b['settings'].get(key)}")
    return f"A and B differ in method: {', '.join(problems)}" if problems else None


def render_compare(rows: list[CompareRow], a_name: str, b_name: str, console: Console) -> None:
    """Print two reports' figures side by side with their ratios."""
    t = Table(title=f"A = {a_name}   B = {b_name}")
    for col in ("run", "metric", "A", "B", "B/A"):
        t.add_column(col, justify="left" if col in ("run", "metric") else "right")
    for r in rows:
        ratio = fmt(r["ratio"], ".3f", "×")
        if r["ratio"] is not None and "TTFT" not in r["metric"]:
            if r["ratio"] > 1.02:
                ratio = f"[green]{ratio}[/]"
            elif r["ratio"] < 0.98:
                ratio = f"[red]{ratio}[/]"
        t.add_row(r["row"], r["metric"], fmt(r["a"], ".3f"), fmt(r["b"], ".3f"), ratio)
    console.print(t)
