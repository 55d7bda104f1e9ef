"""coder bench against the real llama-server and the demo model (short outputs: 2 shared CPU cores)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from coder.backends.runtime import manager
from coder.backends.runtime.server import ServerInfo
from coder.bench import stats, workloads
from coder.bench.runner import NullProgress, Runner, Settings
from coder.bench.sweep import Plan, Target, run_target
from coder.cli.main import main
from coder.config import builtin_profiles

pytestmark = pytest.mark.server
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
SYNTH_RATES = [0.9, 0.8, 0.5, 0.3]  # llama-server: unconditional (survival) per-position rates


def _suite(names: tuple[str, ...] = ("code", "refactor")) -> list[workloads.Workload]:
    return [w for w in workloads.builtin_suite() if w.name in names or w.cls in names]


def test_quick_cli_run_writes_a_complete_result(demo_server: ServerInfo, tmp_path: Path) -> None:
    code = main(["bench", "--quick", "--max-tokens", "32", "--out", str(tmp_path)])
    assert code == 0
    (path,) = tmp_path.glob("bench-*.json")
    doc = json.loads(path.read_text())
    assert doc["schema"] == 1 and doc["tool"] == "coder bench"
    host = doc["environment"]["host"]
    assert host["cpu"] and host["cores"] >= 1 and "gpus" in host
    assert {"TTFT", "TPOT", "acceptance length (AL)", "output throughput"} <= set(doc["definitions"])
    assert doc["settings"]["reps"] == 1 and doc["settings"]["max_tokens"] == 32
    assert {w["class"] for w in doc["workloads"]} == {"fresh", "full", "region"}
    (target,) = doc["targets"]
    kinds = [r["kind"] for r in target["runs"]]
    assert kinds == ["prefill", "single"]
    single = target["runs"][1]
    assert single["server"]["engine"] == "llama.cpp" and single["server"]["build"].get("build_info")
    assert single["server"]["argv"] and single["k"] == demo_server.k and single["k_applied"] == "launch"
    # one untimed priming request per server, before the first measured run
    assert len(target["runs"][0]["priming"]) == 1 and single["priming"] == []
    assert len(single["requests"]) == len(doc["workloads"])
    for req in single["requests"]:
        assert req["error"] is None, req["error"]
        assert 0 < req["completion_tokens"] <= 32
        assert 0 < req["ttft"] < req["wall"]
        # one definition (coder.telemetry.figures): the first token is prefill's, N − 1 were decoded
        assert req["decode_tps"] == pytest.approx((req["completion_tokens"] - 1) / (req["wall"] - req["ttft"]))
        assert req["timings"]["predicted_n"] == req["completion_tokens"]
        assert req["spec"] is not None and "drafts" in req["spec"]
    assert single["counters_settled"] is True
    assert single["spec"]["drafts"] > 0 and single["spec"]["acceptance_length"] > 1.0
    summary = single["summary"]
    assert summary["decode_tps"] > 0 and set(summary["decode_tps_by_class"]) == {"fresh", "full", "region"}
    prefill = target["runs"][0]["summary"]
    assert prefill["cold"]["prompt_tps_server"] > 0 and prefill["cold"]["cached_tokens"] == 0
    assert prefill["warm"]["cached_tokens"] > 0  # reuse measured separately from cold prompts
    result = doc["results"][0]
    assert result["single"][0]["acceptance_length"] == single["spec"]["acceptance_length"]
    png = tmp_path / f"{path.stem}-acceptance.png"
    assert png.read_bytes()[:8] == PNG_MAGIC

    assert main(["bench", "compare", str(path), str(path)]) == 0
    assert manager.current("demo") is not None  # a server bench did not start is left running


def test_acceptance_length_equals_raw_metrics_delta(demo_server: ServerInfo) -> None:
    suite = _suite(("code", "refactor", "full"))
    runner = Runner(demo_server, Settings(reps=1, max_tokens=48, priming=False))
    with demo_server.api() as api:
        before = api.metrics()
        run = runner.single(suite, label="al-check", k=demo_server.k)
        after = api.metrics()
    runner.close()
    delta = after - before
    assert delta.drafts > 0
    expected = 1.0 + delta.accepted / delta.drafts
    assert run.spec["acceptance_length"] == pytest.approx(expected, rel=1e-12)
    # The per-request windows tile the run: their sums are the run's counters, and they agree
    # with what each response's own timings reported.
    assert sum(r.spec["drafts"] for r in run.requests if r.spec) == delta.drafts
    assert sum(r.spec["accepted"] for r in run.requests if r.spec) == delta.accepted
    assert sum(r.draft_n_accepted or 0 for r in run.requests) == delta.accepted
    assert sum(r.draft_n or 0 for r in run.requests) == delta.draft_tokens


def test_per_position_acceptance_matches_synthetic_rates(server_factory: Any) -> None:
    server = server_factory(spec_type="draft-simple", drafter="demo", k=len(SYNTH_RATES),
                            extra_args=["--spec-synth-rates", ",".join(map(str, SYNTH_RATES))])
    runner = Runner(server, Settings(reps=1, max_tokens=64, priming=False))
    run = runner.single(_suite(("fresh",)), label="synth", k=len(SYNTH_RATES))
    runner.close()
    spec = run.spec
    drafts = spec["drafts"]
    assert drafts > 50
    # Steps drafted shorter than k (near max_tokens) cannot count at deep positions:
    # at most deficit/drafts of bias, on top of binomial sampling error.
    bias = spec["draft_slot_deficit"] / drafts
    for i, (got, want) in enumerate(zip(spec["survival"], SYNTH_RATES, strict=True)):
        tol = stats.binomial_tolerance(want, drafts) + bias
        assert abs(got - want) <= tol, f"position {i + 1}: survival {got:.3f} vs {want} ± {tol:.3f}"
    expected_al = 1.0 + sum(SYNTH_RATES)
    al_tol = sum(stats.binomial_tolerance(r, drafts) for r in SYNTH_RATES) / 2 + len(SYNTH_RATES) * bias
    assert abs(spec["acceptance_length"] - expected_al) <= al_tol
    # conditional = survival ratios; at the last position 0.3/0.5 = 0.6, far from the survival 0.3
    assert spec["conditional"] == pytest.approx(stats.conditional_from_survival(spec["survival"]))


def test_k_sweep_by_request_cap_on_a_patched_server(demo_server: ServerInfo) -> None:
    assert demo_server.draft_cap, "coder's own build carries draft-cap-v1; the probe must find it"
    plan = Plan(workloads=_suite(("code",)), settings=Settings(reps=1, max_tokens=32),
                targets=[], ks=[2, demo_server.k or 8], prefill=False)
    section = run_target(plan, Target("demo", server=demo_server), NullProgress())
    runs = section["runs"]
    assert [(r["k"], r["k_applied"]) for r in runs] == [(2, "request-cap"), (demo_server.k, "launch")]
    assert all(req["k_cap"] == 2 for req in runs[0]["requests"])
    assert runs[0]["spec"]["mean_draft_len"] is None or runs[0]["spec"]["mean_draft_len"] <= 2.0
    assert runs[0]["server"]["argv"] == runs[1]["server"]["argv"]  # no restart


def test_forced_restart_sweep_relaunches_per_k_and_stops_what_it_started(
        llama_server_binary: Path, demo_model: Path, tmp_path: Path) -> None:
    profile = builtin_profiles()["demo"].with_overrides(
        name="bench-restart-test", binary=str(llama_server_binary), ctx=4096, threads=2)
    plan = Plan(workloads=_suite(("code",)), settings=Settings(reps=1, max_tokens=24),
                targets=[], ks=[2, 4], prefill=False, force_restart=True, baseline=True)
    try:
        section = run_target(plan, Target(profile.name, profile=profile), NullProgress())
    finally:
        manager.stop(profile.name)
        manager.stop(profile.name + "-baseline")
    runs = section["runs"]
    assert [(r["k"], r["k_applied"]) for r in runs] == [(2, "restart"), (4, "restart")]
    for run in runs:
        argv = run["server"]["argv"]
        assert argv[argv.index("--spec-draft-n-max") + 1] == str(run["k"])
        assert run["server"]["k_launch"] == run["k"]
    (base,) = section["baseline_runs"]
    assert "--spec-type" not in base["server"]["argv"] and "-md" not in base["server"]["argv"]
    assert base["summary"]["decode_tps"] > 0
    assert manager.current(profile.name) is None and manager.current(profile.name + "-baseline") is None
    from coder.bench.report import analyse

    result = analyse(section)
    assert all(row["speedup"] is not None for row in result["single"] if not row.get("baseline"))
    # the TUI's 'fraction of ideal' reads the baseline from such a report (it once looked for keys
    # no report has, so the panel never showed it)
    from coder.ui.widgets.speculation.panel import baseline_from_bench

    report_path = tmp_path / "bench-report.json"
    report_path.write_text(json.dumps({"results": [result]}))
    assert baseline_from_bench([report_path]) == pytest.approx(base["summary"]["decode_tps"])
    assert result["lossless"]["items"] and result["lossless"]["exact_share"] is not None


def test_concurrency_sweep_flags_slots_and_balances_prompts(demo_server: ServerInfo) -> None:
    plan = Plan(workloads=_suite(("code", "prose")), settings=Settings(reps=1, max_tokens=16),
                targets=[], concurrency=[1, 2], prefill=False)
    section = run_target(plan, Target("demo", server=demo_server), NullProgress())
    conc = [r for r in section["runs"] if r["kind"] == "concurrency"]
    assert [r["concurrency"] for r in conc] == [1, 2]
    for run in conc:
        summ = run["summary"]
        assert summ["failed"] == 0 and summ["output_throughput"] > 0
        assert set(summ["prompt_counts"].values()) == {1}  # each prompt exactly once per point
        tokens = sum(r["completion_tokens"] for r in run["requests"])
        span = max(r["end"] for r in run["requests"]) - min(r["start"] for r in run["requests"])
        assert summ["output_throughput"] == pytest.approx(tokens / span)
    # the demo server has one slot: c=2 queues in the server, and an attached server is not relaunched
    assert any("slot" in n for n in conc[1]["notes"])
    assert any("slot(s)" in n for n in section["notes"])


def test_verify_lossless_explains_every_prompt_against_a_plain_server(
        llama_server_binary: Path, demo_model: Path) -> None:
    """A drafting demo server (demo-hybrid: ngram-mod, then the model drafting for itself) against its
    spec-none baseline, two short prompts."""
    from rich.console import Console

    from coder.bench.report import build_report, render

    profile = builtin_profiles()["demo-hybrid"].with_overrides(
        name="bench-lossless-test", binary=str(llama_server_binary), ctx=4096, threads=2)
    plan = Plan(workloads=_suite(("code", "refactor")), settings=Settings(reps=1, max_tokens=32),
                targets=[], prefill=False, verify_lossless=True)
    try:
        section = run_target(plan, Target(profile.name, profile=profile), NullProgress())
    finally:
        manager.stop(profile.name)
        manager.stop(profile.name + "-baseline")
    assert manager.current(profile.name) is None and manager.current(profile.name + "-baseline") is None
    (run,) = section["runs"]
    assert run["spec"]["drafts"] > 0, "the speculating server must have drafted, or nothing was checked"
    check = section["lossless_check"]
    assert check is not None, section["notes"]
    assert check["k"] == 8 and check["spec_type"] == "ngram-mod,draft-simple"
    assert [i["workload"] for i in check["items"]] == [w.name for w in plan.workloads]
    for item in check["items"]:
        assert item["verdict"] in ("identical", "length", "within floor"), item
        if item["verdict"] == "within floor":  # a divergence: where, which tokens, by how much
            assert item["index"] is not None and item["ref_token"] != item["cand_token"]
            assert item["ref_piece"] is not None and item["cand_piece"] is not None
            assert item["margin"] is not None and item["detail"]["margins"]
    assert check["real"] == 0
    doc = build_report([section], settings={"cold": True, "reps": 1, "max_tokens": 32, "temperature": 0.0},
                       workloads=[w.to_json() for w in plan.workloads], argv=["test"])
    assert doc["results"][0]["lossless"]["real_differences"] == 0
    console = Console(record=True, width=160)
    render(doc, console, definitions=False)
    out = console.export_text()
    assert "real differences: 0" in out and all(w.name in out for w in plan.workloads)
