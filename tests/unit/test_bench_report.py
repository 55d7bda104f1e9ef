"""Derived figures (speedup, fraction of ideal, k recommendation, lossless), compare and plots
on fixed per-request numbers fed through the real summary code."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from coder.bench import compare, plots, report
from coder.bench.records import RequestRecord, RunResult, summarize_concurrency, summarize_single
from coder.errors import CoderError
from coder.telemetry.stats import RequestStats

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def _rec(workload: str, cls: str, rep: int, tokens: int, decode_seconds: float,
         text: str = "") -> RequestRecord:
    ttft = 0.1
    # decode_seconds is the time for the tokens after the first, so decode tok/s = (tokens − 1) / it
    st = RequestStats(ttft=ttft, elapsed=ttft + decode_seconds, completion_tokens=tokens + 1, chunks=tokens // 2)
    return RequestRecord(workload, cls, rep, stats=st, answered=True, text=text or f"{workload} output",
                         start=rep * 2.0, end=rep * 2.0 + ttft + decode_seconds)


def _single(label: str, k: int | None, speeds: dict[str, tuple[str, list[float]]], al: float | None,
            texts: dict[str, str] | None = None) -> dict[str, Any]:
    recs = [_rec(name, cls, rep, 100, 100 / tps, (texts or {}).get(name, ""))
            for name, (cls, tpss) in speeds.items() for rep, tps in enumerate(tpss)]
    run = RunResult("single", label, {"model": "/m/demo.gguf"}, k=k, k_applied="request-cap" if k else "none",
                    requests=recs)
    run.summary = summarize_single(recs)
    if al is not None:
        drafts = 100.0
        run.spec = {"acceptance_length": al, "acceptance_rate": 0.5, "drafts": drafts,
                    "accepted": (al - 1) * drafts, "survival": [0.8, 0.5], "conditional": [0.8, 0.625]}
    return run.to_json()


def _target() -> dict[str, Any]:
    runs = [
        _single("demo k=2", 2, {"code": ("fresh", [20.0, 22.0, 21.0]),
                                "edit": ("full", [30.0, 30.0, 30.0])}, 2.0),
        _single("demo k=4", 4, {"code": ("fresh", [25.0, 24.0, 26.0]),
                                "edit": ("full", [40.0, 41.0, 39.0])}, 3.0,
                texts={"code": "same text", "edit": "edit output changed"}),
        _single("demo k=8", 8, {"code": ("fresh", [25.1, 25.0, 25.2]),
                                "edit": ("full", [50.0, 50.0, 50.0])}, 4.0),
    ]
    runs[1]["k_applied"] = "launch"
    base = _single("demo-baseline", None, {"code": ("fresh", [10.0, 10.0, 10.0]),
                                           "edit": ("full", [10.0, 10.0, 10.0])}, None,
                   texts={"code": "same text", "edit": "edit output"})
    conc = RunResult("concurrency", "demo c=2", {}, k=4, concurrency=2,
                     requests=[_rec("code", "fresh", 0, 100, 2.0), _rec("edit", "full", 0, 100, 1.0)])
    conc.summary = summarize_concurrency(conc.requests, 2)
    return {"name": "demo", "profile": None, "runs": [*runs, conc.to_json()], "baseline_runs": [base],
            "notes": []}


def test_analyse_speedup_fraction_recommendation_and_lossless() -> None:
    res = report.analyse(_target())
    rows = {r["label"]: r for r in res["single"]}
    k4 = rows["demo k=4"]
    # mean of per-prompt medians: (25 + 40) / 2
    assert k4["decode_tps"] == pytest.approx(32.5)
    assert k4["decode_tps_by_class"] == {"fresh": pytest.approx(25.0), "full": pytest.approx(40.0)}
    assert k4["speedup"] == pytest.approx(3.25)
    assert k4["fraction_of_ideal"] == pytest.approx(32.5 / (10.0 * 3.0))
    assert rows["demo-baseline"]["baseline"] is True
    # fresh: k=8 (25.1) is within 1% of k=4 (25.0) → tie → smaller k; full: k=8 clearly best
    assert res["recommendation"] == {"full": 8, "fresh": 4}
    ll = res["lossless"]
    assert ll["compared"] == "demo k=4"  # the launch-k run
    items = {i["workload"]: i for i in ll["items"]}
    assert items["code"]["exact"] is True
    assert items["edit"]["exact"] is False
    assert items["edit"]["prefix_fraction"] == pytest.approx(len("edit output") / len("edit output changed"))
    assert ll["exact_share"] == 0.5
    (conc,) = res["concurrency"]
    # 200 tokens over the span 0 → 2.1 s
    assert conc["output_throughput"] == pytest.approx(2 * 101 / 2.1)  # 101 tokens per request


def test_recommendation_needs_two_k_values() -> None:
    target = _target()
    target["runs"] = target["runs"][:1]
    assert report.analyse(target)["recommendation"] == {}


def test_json_roundtrip_compare_render_and_plots(tmp_path: Path) -> None:
    doc = report.build_report([_target()], settings={"reps": 3, "max_tokens": 512, "temperature": 0.0,
                                                     "cold": True}, workloads=[], argv=["coder", "bench"])
    assert doc["schema"] == report.SCHEMA and doc["environment"]["host"]["cores"]
    path = report.write_json(doc, tmp_path)
    loaded = report.load_json(path)
    assert loaded["results"][0]["recommendation"] == {"full": 8, "fresh": 4}

    faster = json.loads(json.dumps(loaded))
    for run in faster["targets"][0]["runs"]:
        if run["kind"] == "single":
            run["summary"]["decode_tps"] *= 2
    faster["results"] = [report.analyse(t) for t in faster["targets"]]
    rows = compare.compare(loaded, faster)
    k4 = next(r for r in rows if r["row"] == "single k=4" and r["metric"] == "decode tok/s")
    assert k4["ratio"] == pytest.approx(2.0)
    assert compare.prompt_mismatch(loaded, faster) is None
    other = json.loads(json.dumps(loaded))
    other["settings"]["max_tokens"] = 64
    assert compare.prompt_mismatch(loaded, other) == "A and B differ in method: max_tokens 512 vs 64"
    console = Console(record=True, width=160)
    compare.render_compare(rows, "a.json", "b.json", console)
    report.render(loaded, console)
    out = console.export_text()
    assert "2.000×" in out and "recommended k" in out and "fraction of ideal" in out

    pngs = plots.plot_all(loaded, tmp_path, path.stem)
    assert {p.name.rsplit("-", 1)[1] for p in pngs} == {"k.png", "acceptance.png", "concurrency.png"}
    for png in pngs:
        assert png.read_bytes()[:8] == PNG_MAGIC and png.stat().st_size > 2000


def test_load_json_rejects_other_files(tmp_path: Path) -> None:
    bad = tmp_path / "x.json"
    bad.write_text('{"tool": "other"}')
    with pytest.raises(CoderError, match="not a coder bench result"):
        report.load_json(bad)
    bad.write_text('{"tool": "coder bench", "schema": 99}')
    with pytest.raises(CoderError, match="schema 99"):
        report.load_json(bad)
    bad.write_text("{\n nope")
    with pytest.raises(CoderError, match=r"x.json:2: not valid JSON"):
        report.load_json(bad)


def test_apply_writes_k_by_class_into_the_user_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from coder import config

    # a home of its own: the session's shared user config must not gain k_by_class for later tests
    monkeypatch.setenv("CODER_HOME", str(tmp_path / "home"))
    from coder.bench.sweep import Target
    from coder.cli.bench import _apply

    doc = {"results": [report.analyse(_target())]}
    profile = config.builtin_profiles()["demo"]
    _apply(doc, [Target("demo", profile=profile)], Console(record=True))
    assert config.load().profile("demo").k_by_class == {"full": 8, "fresh": 4}
    no_sweep = {"results": [{"recommendation": {}}]}
    with pytest.raises(CoderError, match="needs a k sweep"):
        _apply(no_sweep, [Target("demo", profile=profile)], Console(record=True))


def test_spec_json_cuts_positions_past_the_cap() -> None:
    from coder.bench.records import spec_json
    from coder.telemetry.metrics import SpecDelta

    # 10 steps capped at k=2 on a server launched with 4 positions; 15 accepted drafts
    delta = SpecDelta(drafts=10, draft_tokens=18, accepted=15, accepted_per_pos=(10.0, 5.0, 0.0, 0.0))
    spec = spec_json(delta, k=2)
    assert spec["acceptance_length"] == 2.5
    assert spec["survival"] == [1.0, 0.5] and spec["conditional"] == [1.0, 0.5]
    assert spec["accepted_per_pos"] == [10.0, 5.0, 0.0, 0.0]  # raw counters kept whole
    assert spec["draft_slot_deficit"] == 2.0  # two of the 20 draft slots were never drafted
