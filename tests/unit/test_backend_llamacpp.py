"""llama.cpp backend: argv from the real --help, start/verify/stop, counters, bad input."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from coder.backends.engines.llamacpp import LlamaCppAdapter, capabilities, k_flags, parse_help
from coder.backends.runtime import manager
from coder.config import Profile, builtin_profiles
from coder.errors import CoderError

_LISTING = "\n".join(f"item {i}: value {i * 7}" for i in range(12))
REPEATING = f"{_LISTING}\n{_LISTING}\n{_LISTING}\n"  # its continuation repeats: every speculator drafts
MEAN_LEN = re.compile(r"draft acceptance = [\d.]+ \(\s*(\d+) accepted /\s*(\d+) generated\), mean len =\s*([\d.]+)")


def _coder(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "coder", *args], capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, timeout=300)


def test_seed_profile_dry_run_prints_the_seed_flags(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / "config").mkdir(parents=True)
    (home / "config" / "config.toml").write_text(
        '[profiles.qwen]\nmodel = "/models/Qwen3.8-27B-Q4_K_M.gguf"\n'
        'drafter = "/models/Qwen3.8-27B-DFlash2-Q8_0.gguf"\nspec_type = "draft-dflash"\n'
        'k = 7\nctx = 65536\nngl = 999\nflash_attn = "on"\n'
    )
    out = _coder("backend", "start", "qwen", "--dry-run", env={"CODER_HOME": str(home)})
    assert out.returncode == 0, out.stderr
    assert ("--spec-type draft-dflash --spec-draft-n-max 7 -ngl 999 -c 65536 -np 1 -fa on "
            "--reasoning-budget 0") in out.stdout
    assert "-md /models/Qwen3.8-27B-DFlash2-Q8_0.gguf" in out.stdout
    assert "--host 127.0.0.1" in out.stdout and "--metrics" in out.stdout


def test_parse_help_reads_flags_and_spec_types() -> None:
    text = ("--spec-type [none|draft-simple|ngram-mod]   comma-separated list of types\n"
            "-np, --parallel N                            number of slots\n")
    caps = parse_help(text)
    assert caps.spec_types == ("none", "draft-simple", "ngram-mod")
    assert {"--spec-type", "-np", "--parallel"} <= caps.flags
    with pytest.raises(CoderError, match="--spec-draft-n-max"):
        caps.require_flag("--spec-draft-n-max")


def test_k_flags_always_set_draft_depth() -> None:
    assert k_flags("draft-dflash", 7) == ["--spec-draft-n-max", "7"]
    assert k_flags("ngram-mod", 8)[:4] == ["--spec-draft-n-max", "8", "--spec-ngram-mod-n-max", "8"]


def test_speculative_profile_without_k_is_refused() -> None:
    profile = Profile(name="x", model="/m.gguf", spec_type="draft-simple", drafter="/d.gguf", k=None)
    with pytest.raises(CoderError, match="k ≥ 1"):
        LlamaCppAdapter().build_argv(profile, 1, "key", dry_run=True)


@pytest.mark.server
def test_argv_flags_all_exist_in_real_help(llama_server_binary: Path, demo_model: Path) -> None:
    caps = capabilities(llama_server_binary)
    assert {"draft-dflash", "draft-mtp", "draft-dspark", "draft-eagle3", "draft-simple",
            "ngram-mod", "ngram-simple"} <= set(caps.spec_types)
    for spec, drafter in (("ngram-mod", None), ("draft-simple", "demo"), ("draft-dflash", "demo")):
        profile = builtin_profiles()["demo"].with_overrides(binary=str(llama_server_binary), spec_type=spec,
                                                            drafter=drafter, ngl=0, flash_attn="off")
        argv = LlamaCppAdapter().build_argv(profile, 9999, "k", key_file="/tmp/x.key")
        flags = [a for a in argv[1:] if a.startswith("-") and not a.lstrip("-").isdigit()]
        assert flags and all(f in caps.flags for f in flags)


@pytest.mark.server
def test_unsupported_spec_type_is_refused_before_launch(llama_server_binary: Path) -> None:
    profile = builtin_profiles()["demo"].with_overrides(binary=str(llama_server_binary), spec_type="draft-magic")
    with pytest.raises(CoderError, match="does not support --spec-type draft-magic"):
        manager.start(profile.with_overrides(name="bad-type"))
    assert manager.current("bad-type") is None


def _log_mean_lens(path: str) -> list[tuple[int, int, float]]:
    text = Path(path).read_text(errors="replace")
    return [(int(a), int(g), float(m)) for a, g, m in MEAN_LEN.findall(text)]


def _metrics_al_matches_log(info: object, prompt: str, n_predict: int = 96) -> float:
    from coder.backends.runtime.server import ServerInfo

    assert isinstance(info, ServerInfo) and info.log_path
    with info.api(timeout=600) as api:
        before = api.metrics()
        resp = api.post("/completion", {"prompt": prompt, "n_predict": n_predict, "temperature": 0,
                                        "cache_prompt": False})
        assert resp.status_code == 200
        after = api.metrics()
    delta = after - before
    assert delta.drafts > 0 and delta.draft_tokens > 0, "counters did not move"
    al = delta.acceptance_length
    assert al is not None
    time.sleep(0.2)  # the log line is flushed when the slot is released
    accepted, generated, mean_len = _log_mean_lens(info.log_path)[-1]
    assert accepted == delta.accepted and generated == delta.draft_tokens
    assert al == pytest.approx(mean_len, abs=0.005)  # the log prints two decimals
    return al


@pytest.mark.server
def test_ngram_server_starts_verifies_and_stops(server_factory) -> None:  # type: ignore[no-untyped-def]
    info = server_factory(spec_type="ngram-mod", k=8)
    assert info.verified is True, info.verdict
    assert info.draft_cap is True  # coder's own build carries the per-request cap
    with info.api() as api:
        slots = api.slots()
    assert slots and all(s["speculative"] for s in slots)
    prompt = REPEATING
    _metrics_al_matches_log(info, prompt)
    pid = info.pid
    assert manager.stop(str(info.profile))
    time.sleep(0.2)
    with pytest.raises(ProcessLookupError):
        os.kill(int(pid or 0), 0)


@pytest.mark.server
def test_self_drafting_server_counters_match_log(server_factory) -> None:  # type: ignore[no-untyped-def]
    info = server_factory(spec_type="draft-simple", drafter="demo", k=4)
    assert info.verified is True, info.verdict
    al = _metrics_al_matches_log(info, REPEATING, n_predict=64)
    assert 1.0 < al <= 5.0


@pytest.mark.server
def test_synthetic_acceptance_length_within_two_percent(server_factory) -> None:  # type: ignore[no-untyped-def]
    # survival P(A >= i), as llama.cpp defines --spec-synth-rates: A is 2 or 4, so the per-step spread is
    # small (sd 0.6) and ~500 steps put 2% at >3 standard errors; a bias would show at the 1.0 positions
    rates = [1.0, 1.0, 0.9, 0.9]
    info = server_factory(spec_type="draft-simple", drafter="demo", k=4,
                          extra_args=["--spec-synth-rates", ",".join(map(str, rates))])
    with info.api(timeout=600) as api:
        before = api.metrics()
        resp = api.post("/completion", {"prompt": "Count:", "n_predict": 2400, "temperature": 0,
                                        "ignore_eos": True, "cache_prompt": False})
        assert resp.status_code == 200
        delta = api.metrics() - before
    expected = 1 + sum(rates)
    assert delta.drafts > 300
    assert delta.acceptance_length == pytest.approx(expected, rel=0.02)
    assert delta.survival()[:2] == pytest.approx([1.0, 1.0], abs=0.01)


@pytest.mark.server
def test_attach_detects_llamacpp_and_verifies(demo_server) -> None:  # type: ignore[no-untyped-def]
    info = manager.attach(demo_server.url, demo_server.api_key, name="adopted")
    try:
        assert info.engine == "llama.cpp" and not info.managed
        assert info.verified is True and info.draft_cap is True
        assert manager.current("adopted") is not None
    finally:
        manager.stop("adopted")


@pytest.mark.server
def test_status_json_reports_the_verdict(demo_server) -> None:  # type: ignore[no-untyped-def]
    out = _coder("backend", "status", "demo", "--json")
    assert out.returncode == 0, out.stderr
    assert '"verified": true' in out.stdout and "<redacted>" in out.stdout


# ---- bad input: one line, non-zero exit, no stray process ----------------------------------------

def _fresh(tmp_path: Path) -> dict[str, str]:
    """A CODER_HOME of its own, so a session-wide demo server does not answer "already running"."""
    return {"CODER_HOME": str(tmp_path / "fresh-home")}


def _one_line_error(out: subprocess.CompletedProcess[str]) -> str:
    assert out.returncode != 0
    assert "Traceback" not in out.stderr
    lines = [line for line in out.stderr.splitlines() if line.startswith("coder: error:")]
    assert len(lines) == 1, out.stderr
    return lines[0]


def test_missing_binary_is_one_line(tmp_path: Path) -> None:
    out = _coder("backend", "start", "--binary", "/nonexistent/llama-server", env=_fresh(tmp_path))
    assert "binary not found" in _one_line_error(out)


@pytest.mark.server
def test_missing_and_non_gguf_models(tmp_path: Path, llama_server_binary: Path) -> None:
    out = _coder("backend", "start", "--binary", str(llama_server_binary), "--model", str(tmp_path / "nope.gguf"),
                 env=_fresh(tmp_path))
    assert "model not found" in _one_line_error(out)
    bogus = tmp_path / "bogus.gguf"
    bogus.write_text("not a model")
    out = _coder("backend", "start", "--binary", str(llama_server_binary), "--model", str(bogus), env=_fresh(tmp_path))
    assert "not a GGUF file" in _one_line_error(out)


@pytest.mark.server
def test_model_that_fails_to_load_leaves_no_process(tmp_path: Path, llama_server_binary: Path) -> None:
    from test_gguf_info import write_gguf

    # a well-formed header with a chat template (coder's own checks pass) but no model in it
    corrupt = write_gguf(tmp_path / "corrupt.gguf", "llama", {"tokenizer.chat_template": "{{ x }}"},
                         ["token_embd.weight"])
    out = _coder("backend", "start", "--binary", str(llama_server_binary), "--model", str(corrupt),
                 env=_fresh(tmp_path))
    line = _one_line_error(out)
    assert "exited with status" in line
    ps = subprocess.run(["pgrep", "-f", str(corrupt)], capture_output=True, text=True)
    assert ps.stdout.strip() == ""


@pytest.mark.server
def test_port_in_use_is_refused(tmp_path: Path, llama_server_binary: Path) -> None:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        port = sock.getsockname()[1]
        out = _coder("backend", "start", "--binary", str(llama_server_binary), "--port", str(port),
                     env=_fresh(tmp_path))
    assert f"port {port} is already in use" in _one_line_error(out)


def test_unreadable_config_is_one_line(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / "config").mkdir(parents=True)
    (home / "config" / "config.toml").write_text("[profiles.x\nbroken")
    out = _coder("backend", "start", "--dry-run", env={"CODER_HOME": str(home)})
    assert "not valid TOML" in _one_line_error(out)


def test_unknown_profile_key_is_one_line(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / "config").mkdir(parents=True)
    (home / "config" / "config.toml").write_text('[profiles.x]\nmodle = "typo"\n')
    out = _coder("backend", "start", "x", "--dry-run", env={"CODER_HOME": str(home)})
    assert "unknown key(s): modle" in _one_line_error(out)


def test_dflash_k_is_capped_by_the_drafter_block(tmp_path: Path) -> None:
    from test_gguf_info import write_gguf

    drafter = write_gguf(tmp_path / "d2.gguf", "dflash",
                         {"dflash.block_size": 8, "dflash.selector_top_k": 16, "dflash.target_layers": [1, 2]},
                         ["selector_hidden.weight"])
    profile = Profile(name="x", model="/t.gguf", drafter=str(drafter), spec_type="draft-dflash", k=15)
    argv = LlamaCppAdapter().build_argv(profile, 1, "key", dry_run=True)
    assert argv[argv.index("--spec-draft-n-max") + 1] == "7"


def test_cpu_runs_get_small_batches_so_prompt_progress_streams_often() -> None:
    """llama.cpp streams prompt progress once per batch (-b): 128 on CPU unless the profile sets it."""
    cpu = builtin_profiles()["demo"].with_overrides(binary="/x/11434.0.0-cpu/bin/llama-server", ngl=0)
    argv = LlamaCppAdapter().build_argv(cpu, 1, "key", dry_run=True)
    assert argv[argv.index("-b") + 1] == argv[argv.index("-ub") + 1] == "128"
    own = cpu.with_overrides(extra_args=["-b", "1024"])
    argv = LlamaCppAdapter().build_argv(own, 1, "key", dry_run=True)
    assert argv.count("-b") == 1 and argv[argv.index("-b") + 1] == "1024" and "-ub" not in argv
    gpu = cpu.with_overrides(binary="/x/11434.0.0-cuda/bin/llama-server", ngl=99)
    assert "-b" not in LlamaCppAdapter().build_argv(gpu, 1, "key", dry_run=True)


@pytest.mark.parametrize(("key", "record", "small"), [
    ("11434.0.0-cpu-native-d88702b2c861", {"variant": "cpu"}, True),  # today's build key, with its record
    ("11434.0.0-cpu-portable-cee971992e43", None, True),  # no record: the key says cpu
    ("11434.0.0-cuda-native-0123456789ab", {"variant": "cuda"}, False),
    ("custom-cpu-looking-name", {"variant": "cuda"}, False),  # the record wins over the name
])
def test_a_cpu_build_is_known_by_its_record_or_key(tmp_path: Path, key: str, record: dict[str, str] | None,
                                                   small: bool) -> None:
    """The demo profile offloads (ngl 999, harmless on CPU): the build, not ngl, says it runs on the CPU."""
    binary = tmp_path / key / "bin" / "llama-server"  # not there: a dry run does not ask it for --help
    binary.parent.mkdir(parents=True)
    if record is not None:  # the fields every build.json of coder's has
        full = {"binary": str(binary), "version": "11434.0.0", "build_number": 11434, **record}
        (tmp_path / key / "build.json").write_text(json.dumps(full))
    profile = builtin_profiles()["demo"].with_overrides(binary=str(binary))
    argv = LlamaCppAdapter().build_argv(profile, 1, "key", dry_run=True)
    assert ("-b" in argv) is small


@pytest.mark.server
def test_the_installed_cpu_build_launches_with_small_batches(demo_server: object) -> None:
    """coder's own installed CPU build, as the session fixture launched it: prompt progress every 128 tokens."""
    argv = demo_server.argv  # type: ignore[attr-defined]
    assert argv[argv.index("-b") + 1] == argv[argv.index("-ub") + 1] == "128", argv
