"""The bench result: versioned JSON, derived figures (speedups, k recommendation, lossless) and tables."""

from __future__ import annotations

import datetime as dt
import json
import os
import platform
import re
import sys
from pathlib import Path
from typing import TypeGuard

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from coder import __version__
from coder.bench import stats
from coder.bench.lossless import CheckJSON
from coder.bench.schema import (
    Analysis,
    BenchReport,
    ConcurrencyRow,
    LosslessItem,
    LosslessJSON,
    PrefillRow,
    RunJSON,
    SingleRow,
    TargetJSON,
    WorkloadJSON,
)
from coder.config import REQUEST_CLASSES
from coder.errors import CoderError
from coder.fsutil import atomic_write, read_json
from coder.hardware import cpu_model, gpus
from coder.jsontypes import JSONObject, as_list

SCHEMA = 1

# Every figure the report prints, with the names other tools give the same (or a clashing) quantity.
DEFINITIONS: dict[str, str] = {
    "TTFT": "time to first token: request sent → first SSE frame with non-empty content "
            "(llmperf's event; vLLM bench times the first frame with choices, which may be role-only; "
            "AIPerf skips empty first responses)",
    "decode tok/s": "per request (N − 1) / (wall − TTFT), N = completion_tokens from the server's usage "
                    "(never re-tokenised); the first token comes from prefill, so it is excluded. = 1/TPOT",
    "single-stream tok/s": "median decode tok/s over repetitions for each prompt, then the mean over prompts "
                           "(the seeds' figure); per class likewise over that class's prompts",
    "TPOT": "(E2E − TTFT) / (N − 1) per request: vLLM bench 'TPOT', AIPerf/GuideLLM 'ITL' "
            "(GuideLLM's 'TPOT' includes the first token instead)",
    "output throughput": "at concurrency c: Σ completion_tokens / (last response end − first request sent), "
                         "TTFT and queueing included (vLLM bench 'Output token throughput', AIPerf "
                         "'Output Token Throughput')",
    "acceptance length (AL)": "1 + Δaccepted / Δdrafts from the engine's own /metrics counters deltaed "
                              "across the run; counts the bonus token (vLLM 'Mean acceptance length'); "
                              "drafts = verification steps that carried a draft",
    "acceptance rate": "Δaccepted / Δdraft_tokens (llama.cpp 'draft acceptance', "
                       "vLLM 'Avg Draft acceptance rate')",
    "survival[i]": "accepted_per_pos[i] / drafts = P(at least i+1 drafts accepted in a step) "
                   "(vLLM 'Per-position acceptance rate'); non-increasing",
    "conditional[i]": "survival[i] / survival[i−1] = P(position i accepted | position i−1 accepted)",
    "derived AL": "running acceptance length per request, 1 + draft_n_accepted / steps whose draft the "
                  "stream saw (growths of timings_per_token's draft_n; coder.telemetry.figures)",
    "tokens per chunk": "completion tokens ÷ content-bearing SSE frames: why chunk-counted ITL is wrong "
                        "under speculation (vLLM's pooled 'ITL' and AIPerf's 'ICL' are chunk gaps)",
    "prefill tok/s": "cold long prompt, cache off: server timings.prompt_per_second (llama.cpp) and "
                     "client prompt_tokens / TTFT; 'warm' repeats it with the prompt cache reused",
    "mean active streams": "Σ request durations ÷ run span at concurrency c; well below c means a tail "
                           "where fewer streams ran (the c=1/c=2 imbalance the seeds flag)",
    "speedup": "tok/s with speculation ÷ tok/s of the same engine, model and prompts without it (baseline)",
    "fraction of ideal": "delivered ÷ (baseline × AL): 1.0 = drafting and verification cost nothing",
    "lossless agreement": "greedy output with vs without speculation, per prompt: exact match and "
                          "common-prefix fraction (characters ÷ the longer output)",
    "lossless divergence": "llama.cpp, token ids (/completion): the first output token where speculative "
                           "and plain greedy output differ, both tokens, and the margin logprob(plain) − "
                           "logprob(speculative) in nats there (n_probs, whole context evaluated cold); "
                           "'within floor' when some batch shape (cold, verify widths) already prefers the "
                           "speculative token, the margin moves that much across shapes, or plain greedy "
                           "diverged from itself (with vs without prompt-cache reuse) at a margin as large; "
                           "else 'real' (coder.bench.lossless)",
    "k recommendation": "per class the k with the best single-stream tok/s; within 1% counts as a tie "
                        "and the smaller k wins",
}


def hardware() -> JSONObject:
    """CPU model, cores, memory and GPUs (nvidia-smi when present)."""
    mem = None
    try:
        m = re.search(r"MemTotal:\s+(\d+) kB", Path("/proc/meminfo").read_text())
        mem = int(m.group(1)) * 1024 if m else None
    except OSError:
        pass
    return {"cpu": cpu_model(), "cores": os.cpu_count(), "memory_bytes": mem, "gpus": gpus(),
            "platform": platform.platform(), "python": sys.version.split()[0]}


def build_report(targets: list[TargetJSON], *, settings: JSONObject, workloads: list[WorkloadJSON],
                 argv: list[str]) -> BenchReport:
    """The versioned JSON document: raw runs per target plus derived results."""
    return {
        "schema": SCHEMA,
        "tool": "coder bench",
        "coder_version": __version__,
        "created": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "argv": argv,
        "settings": settings,
        "environment": {"host": hardware(), "servers": _servers(targets)},
        "definitions": DEFINITIONS,
        "workloads": workloads,
        "targets": targets,
        "results": [analyse(t) for t in targets],
    }


def _servers(targets: list[TargetJSON]) -> list[JSONObject]:
    """Each distinct server measured (engine, build, model, drafter, k, argv), in order of first use."""
    seen: dict[str, JSONObject] = {}
    for t in targets:
        for run in t["runs"] + t.get("baseline_runs", []):
            server = run["server"]
            argv = as_list(server.get("argv")) or [server.get("url", "")]
            seen.setdefault(" ".join(map(str, argv)), server)
    return list(seen.values())


def _single_row(run: RunJSON, base: RunJSON | None) -> SingleRow:
    summ, spec = run["summary"], run.get("spec") or {}
    al = spec.get("acceptance_length")
    base_summ = base["summary"] if base else {}
    by_class = summ.get("decode_tps_by_class", {})
    return {
        "label": run["label"], "k": run["k"], "k_applied": run["k_applied"],
        "decode_tps": summ.get("decode_tps"), "decode_tps_by_class": by_class,
        "acceptance_length": al, "acceptance_rate": spec.get("acceptance_rate"),
        "survival": spec.get("survival", []), "conditional": spec.get("conditional", []),
        "ttft_p50": (summ.get("ttft") or {}).get("p50"),
        "speedup": stats.speedup(summ.get("decode_tps"), base_summ.get("decode_tps")),
        "speedup_by_class": {c: stats.speedup(v, base_summ.get("decode_tps_by_class", {}).get(c))
                             for c, v in by_class.items()},
        "fraction_of_ideal": stats.fraction_of_ideal(summ.get("decode_tps"), base_summ.get("decode_tps"), al),
        "failed": summ.get("failed", 0),
    }


def analyse(target: TargetJSON) -> Analysis:
    """Speedups, fraction of ideal, per-class k recommendation and lossless agreement for one target."""
    runs, base_runs = target["runs"], target.get("baseline_runs", [])
    base_single = next((r for r in base_runs if r["kind"] == "single"), None)
    single = [_single_row(r, base_single) for r in runs if r["kind"] == "single"]
    if base_single:
        base_row = _single_row(base_single, None)
        base_row["baseline"] = True
        single.append(base_row)
    base_conc = {r["concurrency"]: r for r in base_runs if r["kind"] == "concurrency"}
    conc: list[ConcurrencyRow] = []
    for r in (x for x in runs + base_runs if x["kind"] == "concurrency"):
        thr = r["summary"].get("output_throughput")
        b = base_conc.get(r["concurrency"])
        is_base = r in base_runs
        base_thr = b["summary"].get("output_throughput") if b else None
        conc.append({
            "label": r["label"], "concurrency": r["concurrency"], "output_throughput": thr,
            "ttft_p50": (r["summary"].get("ttft") or {}).get("p50"),
            "acceptance_length": (r.get("spec") or {}).get("acceptance_length"),
            "mean_active_streams": r["summary"].get("mean_active_streams"),
            "speedup": None if is_base else stats.speedup(thr, base_thr),
            "baseline": is_base, "notes": r["notes"],
        })
    prefill: list[PrefillRow] = [{"label": r["label"], "cold": r["summary"]["cold"], "warm": r["summary"]["warm"]}
                                 for r in runs if r["kind"] == "prefill"]
    return {
        "name": target["name"], "single": single, "concurrency": conc, "prefill": prefill,
        "recommendation": recommend(runs),
        "lossless": {**lossless(runs, base_single), **_divergences(target.get("lossless_check"))},
    }


def recommend(runs: list[RunJSON]) -> dict[str, int]:
    """Per class, the k whose run had the best single-stream tok/s (needs at least two k values)."""
    sweep = [(k, r) for r in runs if r["kind"] == "single" and (k := r["k"])]
    if len({k for k, _ in sweep}) < 2:
        return {}
    out: dict[str, int] = {}
    for cls in REQUEST_CLASSES:
        by_k = {k: r["summary"].get("decode_tps_by_class", {}).get(cls) for k, r in sweep}
        if (k := stats.best_k(by_k)) is not None:
            out[cls] = k
    return out


def lossless(runs: list[RunJSON], base: RunJSON | None) -> LosslessJSON:
    """Per prompt, first-repetition output with speculation (launch k) vs the baseline's."""
    if base is None:
        return {}
    spec_runs = [r for r in runs if r["kind"] == "single" and r["k"]]
    if not spec_runs:
        return {}
    spec = next((r for r in spec_runs if r["k_applied"] == "launch"), spec_runs[0])
    first = {str(r["workload"]): str(r["text"]) for r in spec["requests"] if r["rep"] == 0 and r["error"] is None}
    ref = {str(r["workload"]): str(r["text"]) for r in base["requests"] if r["rep"] == 0 and r["error"] is None}
    items: list[LosslessItem] = []
    for name in (n for n in first if n in ref):
        a, b = first[name], ref[name]
        items.append({"workload": name, "exact": a == b, "chars": [len(a), len(b)],
                      "prefix_fraction": stats.common_prefix_fraction(a, b)})
    agree = [i["exact"] for i in items]
    return {"compared": spec["label"], "items": items,
            "exact_share": sum(agree) / len(agree) if agree else None,
            "mean_prefix_fraction": stats.mean(i["prefix_fraction"] for i in items)}


def _divergences(check: CheckJSON | None) -> LosslessJSON:
    """Per prompt: identical, or where the outputs first differ, the two tokens, the margin, the verdict."""
    if not check:
        return {}
    return {"divergences": check["items"], "real_differences": check["real"],
            "noise_floor": check["noise_floor"], "divergence_k": check.get("k")}


def write_json(report: BenchReport, out_dir: Path) -> Path:
    """``bench-<target>-<model>-<UTC time>.json`` in ``out_dir`` (written atomically, mode 0600)."""
    out_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
    first = report["targets"][0] if report["targets"] else None
    model = ""
    if first and first["runs"]:
        model = Path(str(first["runs"][0]["server"].get("model") or "")).stem
    stamp = dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%SZ")
    name = "-".join(_slug(p) for p in ("bench", first["name"] if first else "", model, stamp) if p)
    path = out_dir / f"{name}.json"
    # 0600: the results hold prompts (your code) and local paths
    atomic_write(path, json.dumps(report, indent=1, default=str), mode=0o600)
    return path


def _is_report(data: object) -> TypeGuard[BenchReport]:
    """A coder bench document of the schema this coder reads (what :func:`load_json` checks)."""
    return isinstance(data, dict) and data.get("tool") == "coder bench" and data.get("schema") == SCHEMA


def load_json(path: Path) -> BenchReport:
    """Read a bench report; a one-line CoderError when it is not one."""
    data = read_json(path)
    if not isinstance(data, dict) or data.get("tool") != "coder bench":
        raise CoderError(f"{path}: not a coder bench result")
    if not _is_report(data):
        raise CoderError(f"{path}: result schema {data.get('schema')!r}; this coder reads schema {SCHEMA}")
    return data


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._]+", "_", text).strip("_")[:48]


# ---------------------------------------------------------------- terminal tables


def fmt(value: float | None, spec: str = ".2f", suffix: str = "") -> str:
    """``value`` formatted with ``spec`` and ``suffix``, or an en dash when missing."""
    return "–" if value is None else f"{value:{spec}}{suffix}"


def pct(value: float | None) -> str:
    """A fraction as a percentage, or an en dash when missing."""
    return "–" if value is None else f"{100 * value:.1f}%"


def render(report: BenchReport, console: Console, *, definitions: bool = True) -> None:
    """Print every table of a report (and the definitions, so the numbers can't be misread)."""
    settings, host = report["settings"], report["environment"]["host"]
    cache = "cold prompts (cache off)" if settings["cold"] else "prompt cache on"
    console.print(f"[bold]coder bench[/] · {len(report['workloads'])} prompts × {settings['reps']} reps · "
                  f"max_tokens {settings['max_tokens']} · temperature {settings['temperature']} · "
                  f"thinking off · {cache} · host {host['cpu']} ({host['cores']} cores)")
    for res, target in zip(report["results"], report["targets"], strict=True):
        _render_target(res, target, console)
    if definitions:
        console.print("\n[bold]Definitions[/]")
        for name, text in report["definitions"].items():
            console.print(f"  [bold]{escape(name)}[/]: {escape(text)}", highlight=False)


def _render_target(res: Analysis, target: TargetJSON, console: Console) -> None:
    _render_single(res, console)
    _render_concurrency(res, console)
    _render_extras(res, console)
    _render_notes(target, console)


def _render_single(res: Analysis, console: Console) -> None:
    classes = [c for c in ("fresh", "full", "region")
               if any(c in row["decode_tps_by_class"] for row in res["single"])]
    if res["single"]:
        t = Table(title=f"{res['name']}: single-stream decode tok/s "
                        "(mean of per-prompt medians, TTFT excluded)")
        cols = ("run", "k", "applied", "all", *classes, "AL", "accept", "TTFT p50", "speedup", "of ideal")
        for col in cols:
            t.add_column(col, justify="left" if col in ("run", "applied") else "right")
        for row in res["single"]:
            t.add_row(row["label"], fmt(row["k"], "d") if row["k"] else "–", row["k_applied"] or "–",
                      fmt(row["decode_tps"]), *(fmt(row["decode_tps_by_class"].get(c)) for c in classes),
                      fmt(row["acceptance_length"], ".3f"), pct(row["acceptance_rate"]),
                      fmt(row["ttft_p50"], ".3f", "s"), fmt(row["speedup"], ".2f", "×"),
                      pct(row["fraction_of_ideal"]))
        console.print(t)
        depth = max((len(r["survival"]) for r in res["single"]), default=0)
        if depth:
            p = Table(title="acceptance per position: survival P(A ≥ i) (conditional)")
            p.add_column("run")
            for i in range(depth):
                p.add_column(f"pos {i + 1}", justify="right")
            for row in res["single"]:
                if row["survival"]:
                    pairs = zip(row["survival"], row["conditional"], strict=False)
                    cells = [f"{pct(s)} ({pct(c)})" for s, c in pairs]
                    p.add_row(row["label"], *cells, *([""] * (depth - len(cells))))
            console.print(p)


def _render_concurrency(res: Analysis, console: Console) -> None:
    if res["concurrency"]:
        c = Table(title=f"{res['name']}: concurrency (aggregate output tok/s incl. TTFT)")
        for col in ("run", "c", "output tok/s", "TTFT p50", "AL", "busy streams", "speedup", "flags"):
            c.add_column(col, justify="left" if col in ("run", "flags") else "right")
        for row in res["concurrency"]:
            flags = "; ".join(n.split(":")[0] for n in row["notes"])
            c.add_row(row["label"], str(row["concurrency"]), fmt(row["output_throughput"]),
                      fmt(row["ttft_p50"], ".3f", "s"), fmt(row["acceptance_length"], ".3f"),
                      fmt(row["mean_active_streams"]), fmt(row["speedup"], ".2f", "×"), flags)
        console.print(c)


def _render_extras(res: Analysis, console: Console) -> None:
    for pre in res["prefill"]:
        cold, warm = pre["cold"], pre["warm"]
        console.print(f"prefill ({pre['label']}): cold {fmt(cold['prompt_tokens'], '.0f')} prompt tokens at "
                      f"{fmt(cold['prompt_tps_server'], '.1f')} tok/s (server) / "
                      f"{fmt(cold['prompt_tps_client'], '.1f')} tok/s (client, tokens/TTFT); warm TTFT "
                      f"{fmt(warm['ttft_median'], '.3f', 's')} with {fmt(warm['cached_tokens'], '.0f')} "
                      f"cached tokens vs cold {fmt(cold['ttft_median'], '.3f', 's')}", highlight=False)
    if res["lossless"].get("items"):
        ll = res["lossless"]
        console.print(f"lossless ({ll['compared']} vs baseline): {pct(ll['exact_share'])} of prompts "
                      f"identical, mean common prefix {pct(ll['mean_prefix_fraction'])}", highlight=False)
        for item in ll["items"]:
            if not item["exact"]:
                where = pct(item["prefix_fraction"])
                console.print(f"  {item['workload']}: differs after {where} of the text", highlight=False)
    _render_divergences(res, console)
    if res["recommendation"]:
        rec = ", ".join(f"{cls} k={k}" for cls, k in res["recommendation"].items())
        console.print(f"[bold]recommended k[/] ({res['name']}): {rec}")


def _render_divergences(res: Analysis, console: Console) -> None:
    ll = res["lossless"]
    if "divergences" not in ll:
        return
    t = Table(title=f"{res['name']}: lossless, first differing token vs plain greedy (k={ll['divergence_k']})")
    for col in ("prompt", "first divergence", "plain", "speculative", "margin (nats)", "verdict"):
        t.add_column(col, justify="right" if col in ("first divergence", "margin (nats)") else "left")
    for d in ll["divergences"]:
        where = "–" if d["index"] is None else f"token {d['index']} of {d['compared']}"
        t.add_row(d["workload"], where, _piece(d["ref_piece"]), _piece(d["cand_piece"]),
                  fmt(d["margin"], ".3f"), d["verdict"])
    console.print(t)
    console.print(f"real differences: {ll['real_differences']} (noise floor {ll['noise_floor']:.3f} nats: plain "
                  "greedy with vs without prompt-cache reuse)", highlight=False)


def _piece(text: str | None) -> str:
    return "–" if text is None else escape(repr(text))


def _render_notes(target: TargetJSON, console: Console) -> None:
    for note in target.get("notes", []):
        console.print(f"note: {note}", highlight=False)
    for run in target["runs"] + target.get("baseline_runs", []):
        for note in run["notes"]:
            if run["kind"] != "concurrency":
                console.print(f"note ({run['label']}): {note}", highlight=False)
        if run["summary"].get("failed"):
            console.print(f"[red]{run['label']}: {run['summary']['failed']} failed request(s)[/]: "
                          f"{run['summary'].get('first_errors')}", highlight=False)
