"""coder's own managed vLLM (``coder backend start`` … ``stop``) against what a REAL run recorded on a GPU.

``scripts/gpu/vllm_managed.sh`` wrote the recordings in tests/data/engines/real_vllm_managed/
(tests/data/engines/SOURCES.md names the command, versions and hardware): coder's start output, the
serve log, the pre-flight lines, an edit and a quick bench through the managed server, /metrics after
them, and the processes before and after ``coder backend stop``. Skipped only while that folder is absent.
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path
from typing import Any

import pytest

from coder.backends.engines import logscan
from coder.backends.engines.preflight import tensor_parallel_problem
from coder.backends.engines.vllm import VllmAdapter, _banner_check
from coder.config import Profile
from coder.telemetry.metrics import parse_metrics

REC = Path(__file__).parents[1] / "data" / "engines" / "real_vllm_managed"
pytestmark = pytest.mark.skipif(not REC.is_dir(), reason="no recording of a managed vLLM run yet")
PID_PREFIX = re.compile(r"^\((\w+) pid=(\d+)\)", re.M)


def rec(name: str) -> str:
    return (REC / name).read_text()


def rec_json(name: str) -> Any:
    return json.loads(rec(name))


@pytest.fixture
def summary() -> dict[str, Any]:
    data: dict[str, Any] = rec_json("summary.json")
    return data


def test_coder_started_a_managed_verified_server(summary: dict[str, Any]) -> None:
    start = rec_json("start.json")
    assert start["engine"] == "vllm" and start["managed"] is True and start["verified"] is True, start["verdict"]
    assert start["verdict"].startswith("speculator verified: SpeculativeConfig(method=ngram, num_spec_tokens=5)")
    assert "probe drafted" in start["verdict"]
    assert summary["steps"]["start"]["rc"] == 0
    # the launched process is vLLM's API server: the wrapper exec'd it, so the pid coder recorded is its pid
    assert summary["logged_pids"]["APIServer"] == start["pid"]


def test_the_argv_is_the_one_coder_builds(summary: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    start = rec_json("start.json")
    argv = start["argv"]
    tp = summary["tensor_parallel_size"]
    monkeypatch.setattr("coder.hardware.gpus", lambda: list(summary["gpus"]))
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
    profile = Profile(name="vllm-gpu", engine="vllm", model=start["model"], binary=argv[0], spec_type="ngram",
                      k=5, ctx=8192, gpu_memory_utilization=0.4, extra_args=["--enforce-eager"],
                      tensor_parallel_size=tp if tp > 1 else None)
    port = int(argv[argv.index("--port") + 1])
    assert VllmAdapter().build_argv(profile, port, "<redacted>") == argv


def test_the_serve_log_proves_the_speculator(summary: dict[str, Any]) -> None:
    log = rec("serve.log")
    assert logscan.known_failures("vllm", log) == []
    assert _banner_check(log, "ngram", 5).ok is True
    assert f"tensor_parallel_size={summary['tensor_parallel_size']}," in log
    assert logscan.vllm_spec_lines(log), "no SpecDecoding metrics line in the log"


def test_metrics_show_drafting_after_the_edit_and_bench() -> None:
    stats = parse_metrics(rec("metrics.txt"))
    assert stats.engine == "vllm" and stats.has_spec_metrics
    assert stats.drafts > 0 and stats.draft_tokens == 5 * stats.drafts and stats.accepted > 0


class RenameBack(ast.NodeTransformer):
    """Undo a rename (``new`` -> ``old``) in names, definitions and string constants, inside ``scope`` only
    when one is given: an edit that did exactly the rename then parses to the original's tree."""

    def __init__(self, old: str, new: str, scope: str | None) -> None:
        self.old, self.new, self.scope = old, new, scope

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.FunctionDef:
        if self.scope is None or node.name == self.scope:
            for sub in ast.walk(node):
                self._undo(sub)
        return node

    def visit_Module(self, node: ast.Module) -> ast.Module:
        if self.scope is None:
            for sub in ast.walk(node):
                self._undo(sub)
            return node
        self.generic_visit(node)
        return node

    def _undo(self, sub: ast.AST) -> None:
        if isinstance(sub, ast.Name) and sub.id == self.new:
            sub.id = self.old
        elif isinstance(sub, ast.FunctionDef) and sub.name == self.new:
            sub.name = self.old
        elif isinstance(sub, ast.Constant) and sub.value == self.new:
            sub.value = self.old


RENAMES = {  # the script's two instructions -> (old, new, scope)
    "In the function getline only, rename the local variable lines to file_lines.": ("lines", "file_lines", "getline"),
    "Rename the function getline to get_line, also in __all__.": ("getline", "get_line", None),
}


def test_the_edit_applied_exactly_the_rename(summary: dict[str, Any]) -> None:
    edit = rec_json("edit.json")
    assert edit["applied"] is True and edit["ok"] is True, edit.get("refusal")
    before, after = summary["edit_before"], summary["edit_after"]
    (old, new, scope), = [r for text, r in RENAMES.items() if summary["edit_instruction"].startswith(text)]
    assert after != before and new in after
    assert ast.dump(RenameBack(old, new, scope).visit(ast.parse(after))) == ast.dump(ast.parse(before))
    assert any("coder:" in line for line in summary["edit_git_log"])  # committed as coder's edit


def test_bench_quick_measured_the_managed_server() -> None:
    bench = rec_json("bench_quick.json")
    (result,) = bench["results"]
    (single,) = result["single"]
    assert single["failed"] == 0 and single["decode_tps"] > 0 and single["acceptance_length"] > 1
    (server,) = bench["environment"]["servers"]
    assert server["managed"] is True and server["engine"] == "vllm" and server["verified"] is True


def test_stop_ended_every_process(summary: dict[str, Any]) -> None:
    assert summary["stop"] == "stopped vllm-gpu" and summary["steps"]["stop"]["rc"] == 0
    logged = summary["logged_pids"]
    tp = summary["tensor_parallel_size"]
    assert {"APIServer"} | ({f"Worker_TP{r}" for r in range(tp)} if tp > 1 else set()) <= set(logged)
    assert any(name.startswith("EngineCore") for name in logged)
    assert set(logged.values()) <= set(summary["group_before_stop"])  # all in coder's session
    assert summary["alive_after_stop"] == []
    running, after = rec("procs.txt").split("## after stop", 1)
    leader = str(rec_json("start.json")["pid"])
    assert any(line.split()[:1] == [leader] for line in running.splitlines())
    ps_after, gpu_after = after.split("## nvidia-smi compute apps", 1)
    # a zombie (<defunct>) has ended: only its exit status waits for a parent that does not collect it
    left = [line for line in ps_after.splitlines()[2:] if line.split()[2:3] == [leader] and "<defunct>" not in line]
    assert left == []
    assert not any(re.search(rf"^{pid},", gpu_after, re.M) for pid in summary["group_before_stop"])
    used_before = [int(line.split(",")[2].split()[0]) for line in summary["gpus"]]  # MiB
    used_after = [int(m) for m in re.findall(r"^\d+, (\d+) MiB$", gpu_after, re.M)]
    assert len(used_after) == len(used_before)
    assert all(a <= b + 1024 for a, b in zip(used_after, used_before, strict=True)), (used_before, used_after)


def test_preflight_on_the_real_checkpoint(summary: dict[str, Any], tmp_path: Path) -> None:
    text = rec("preflight.txt")
    runs = dict(re.findall(r"--tensor-parallel-size (\d+)\n.*?\nrc=(\d+)", text, re.S))
    assert runs["3"] == "1" and "2 KV heads and 3 do not divide one by the other" in text
    assert runs[str(summary["tensor_parallel_size"])] == "0"
    ckpt = tmp_path / "hf"
    ckpt.mkdir()
    (ckpt / "config.json").write_text(json.dumps(summary["hf_config"]))
    two = ["NVIDIA H200, 143771 MiB, 580.159.04"] * 2
    assert tensor_parallel_problem(2, ckpt, {}, physical=two) is None
    assert "2 KV heads" in (tensor_parallel_problem(3, ckpt, {}, physical=two * 2) or "")


def test_the_recordings_hold_no_key() -> None:
    argv = rec_json("start.json")["argv"]
    assert argv[argv.index("--api-key") + 1] == "<redacted>"
    for f in REC.iterdir():  # vLLM logs its arguments ('api_key': [...]); ps shows the command line
        assert not re.search(r"'api_key': \['(?!<redacted>)|--api-key (?!'?<)", f.read_text()), f.name
