#!/usr/bin/env python3
"""The weight-format table of ``scripts/gpu/round3.sh quant``: one bench_copy JSON per format, side by side.

Per format: decode tok/s without speculation and with prediction + ngram-mod at cap 64 (variant
``fast``: no phase log) for the full rewrites and the region edits, the acceptance length, the median
cap-64 step split into forward / verification / other and the plain step (variant ``steps``), and the
lossless verdicts of every speculative run against plain greedy of the same format.

    python3 scripts/gpu/round3_report.py quant --json quant.json Q4_K_M=a.json Q8_0=b.json F16=c.json
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path
from statistics import median
from typing import Any

SPEC = "prediction+ngram-mod"


def _med(values: list[float]) -> float | None:
    return round(median(values), 3) if values else None


def summarize(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """The figures of one format's bench_copy runs."""
    def tps(config: str, cls: str) -> float | None:
        return _med([r["tps"] for r in runs if r["config"] == config and r["cls"] == cls and r.get("tps")])

    out: dict[str, Any] = {}
    for cls in sorted({r["cls"] for r in runs}):
        base, spec = tps("none", cls), tps(SPEC, cls)
        out[cls] = {"none_tps": base, "spec_tps": spec, "speedup": round(spec / base, 3) if base and spec else None,
                    "al": _med([r["al"] for r in runs if r["config"] == SPEC and r["cls"] == cls and r.get("al")])}
    steps = [r["steps"]["spec_median"] for r in runs
             if r["config"] == f"{SPEC}@steps" and (r.get("steps") or {}).get("spec_median")]
    plain = [r["steps"]["plain_median"] for r in runs
             if r["config"] == "none@steps" and (r.get("steps") or {}).get("plain_median")]
    if steps:
        total, fwd, ver = (_med([s[k] for s in steps]) for k in ("total_ms", "decode_ms", "verify_ms"))
        out["spec_step"] = {"total_ms": total, "forward_ms": fwd, "verify_ms": ver,
                            "other_ms": round(total - fwd - ver, 3) if total and fwd is not None and ver is not None
                            else None,
                            "n_batch": _med([s["n_batch"] for s in steps])}
    if plain:
        out["plain_step"] = {"total_ms": _med([s["total_ms"] for s in plain]),
                             "forward_ms": _med([s["decode_ms"] for s in plain])}
    verdicts = Counter((r.get("lossless") or {}).get("verdict", "unchecked") for r in runs if r["config"] != "none")
    out["lossless"] = dict(verdicts)
    return out


def quant(args: argparse.Namespace) -> int:
    """Print the table and write the JSON."""
    result: dict[str, Any] = {}
    for item in args.inputs:
        fmt, _, path = item.partition("=")
        try:
            data = json.loads(Path(path).read_text())
        except (OSError, ValueError) as err:
            result[fmt] = {"error": str(err)}
            continue
        runs = data["runs"] if isinstance(data, dict) else data  # a .partial.json is the bare list
        result[fmt] = {"summary": summarize(runs), "env": data.get("env") if isinstance(data, dict) else None,
                       "runs": [{k: r.get(k) for k in ("config", "cap", "workload", "cls", "n", "tps", "al", "steps",
                                                        "lossless")} for r in runs]}
    print(f"{'format':8s} {'class':8s} {'none t/s':>9s} {'cap64 t/s':>9s} {'x':>6s} {'AL':>6s}   "
          f"{'step':>6s} {'fwd':>6s} {'verify':>6s} {'other':>6s} {'plain':>6s}  lossless")
    for fmt, r in result.items():
        s = r.get("summary")
        if not s:
            print(f"{fmt:8s} error: {r.get('error')}")
            continue
        st, pl = s.get("spec_step") or {}, s.get("plain_step") or {}
        for cls in ("full", "region"):
            c = s.get(cls)
            if not c:
                continue

            def f(x: Any, w: int = 9) -> str:
                return f"{x:{w}.1f}" if isinstance(x, (int, float)) else f"{'-':>{w}s}"

            def g(x: Any) -> str:
                return f"{x:6.2f}" if isinstance(x, (int, float)) else f"{'-':>6s}"

            print(f"{fmt:8s} {cls:8s} {f(c['none_tps'])} {f(c['spec_tps'])} {g(c['speedup'])} {g(c['al'])}   "
                  f"{g(st.get('total_ms'))} {g(st.get('forward_ms'))} {g(st.get('verify_ms'))} "
                  f"{g(st.get('other_ms'))} {g(pl.get('total_ms'))}  {s['lossless']}")
    if args.json:
        args.json.write_text(json.dumps(result, indent=1))
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("what", choices=["quant"])
    ap.add_argument("inputs", nargs="+", help="FORMAT=bench_copy.json")
    ap.add_argument("--json", type=Path)
    return quant(ap.parse_args())


if __name__ == "__main__":
    raise SystemExit(main())
