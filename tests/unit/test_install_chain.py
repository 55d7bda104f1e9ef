"""The CPU configuration chain, fed recorded smoke outcomes: what is built, in which order, what is recorded.

The CPU is read from a /proc/cpuinfo-format file with the flags of the Intel Xeon VM that lists
and permits AMX yet dies in ggml's AMX kernel (``tests/data/cpu``), or from this machine's own
/proc/cpuinfo. Only the build and smoke steps are replaced, by
:class:`coder.testing.recorded_build.RecordedBuildDouble`; keys, records, the atomic install and
the pointer the runtime reads are the real ones.
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import signal
from pathlib import Path

import pytest

from coder.backends import cpu_features
from coder.backends.cpu_features import CpuProbe
from coder.backends.installed import AMX_VERDICT, InstalledBuild, current, describe_attempt, refusals
from coder.backends.toolchain import cache as build_cache
from coder.backends.toolchain import install as llamacpp_install
from coder.backends.toolchain.crash_site import crash_function
from coder.backends.toolchain.smoke import SmokeResult, smoke_test
from coder.errors import CoderError
from coder.testing.crash_double import FUNCTION, build_sigill_server
from coder.testing.recorded_build import AMX_KERNEL, PASSED, SIGILL_AT_LOAD, RecordedBuildDouble
from tests.cli_helpers import run_coder

XEON_AMX_VM = Path(__file__).resolve().parents[1] / "data" / "cpu" / "xeon-amx-vm.cpuinfo"
GRANTED = (True, "ARCH_REQ_XCOMP_PERM(XTILEDATA) granted")  # what the VM's kernel answered
REFUSED = (False, "ARCH_REQ_XCOMP_PERM(XTILEDATA) refused (errno 22)")
MODEL = Path("demo.gguf")  # never opened: the smoke step is the double
SIGILL_IN_AMX = dataclasses.replace(SIGILL_AT_LOAD, function=AMX_KERNEL)


@pytest.fixture
def dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("CODER_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("CODER_ARTIFACTS", str(tmp_path / "artifacts"))
    return tmp_path


def _double(monkeypatch: pytest.MonkeyPatch, outcomes: dict[str, SmokeResult],
            interrupt: str = "") -> RecordedBuildDouble:
    double = RecordedBuildDouble(outcomes, interrupt)
    monkeypatch.setattr(llamacpp_install, "_compile", double.compile)
    monkeypatch.setattr(llamacpp_install, "smoke_test", double.smoke_test)
    return double


def _amx_vm(permission: tuple[bool, str] = GRANTED) -> CpuProbe:
    probe = cpu_features.probe(XEON_AMX_VM, permission=permission)
    assert probe.model == "Intel(R) Xeon(R) Processor" and {"amx_tile", "avx512_vnni"} <= probe.listed
    return probe


def _run(probe: CpuProbe, amx: bool = False, portable: bool = False) -> InstalledBuild:
    steps = cpu_features.chain(probe, portable=portable, amx=amx)
    return llamacpp_install.run_chain("cpu", probe, MODEL, steps, lambda phase, frac, line: None)


def _records(root: Path) -> list[str]:
    return sorted(p.parent.name for p in root.glob("artifacts/llama.cpp/*/build.json"))


@pytest.mark.parametrize("permission", [GRANTED, REFUSED], ids=["amx-permitted", "amx-refused"])
def test_amx_listing_cpu_builds_once_without_amx(dirs: Path, monkeypatch: pytest.MonkeyPatch,
                                                 permission: tuple[bool, str]) -> None:
    # the AMX build would die (recorded), but by default it is never built
    double = _double(monkeypatch, {"portable, AMX on": SIGILL_IN_AMX, "portable, AMX off": PASSED})
    probe = _amx_vm(permission)
    record = _run(probe)
    assert double.built == ["portable, AMX off"]
    cmake = set(record.cmake_args)
    assert {"-DGGML_NATIVE=OFF", "-DGGML_AMX_TILE=OFF", "-DGGML_AMX_INT8=OFF", "-DGGML_AMX_BF16=OFF"} <= cmake
    assert {"-DGGML_AVX512=ON", "-DGGML_AVX512_VNNI=ON", "-DGGML_AVX512_BF16=ON", "-DGGML_AVX2=ON"} <= cmake
    assert record.proven and record.cpu["amx_on"] is False and record.attempts == []
    found = current("cpu", probe)  # what the runtime reads
    assert found is not None and found.binary == record.binary
    assert llamacpp_install.installed("cpu", probe=probe) == record


def test_sigill_native_then_sigill_amx_then_no_amx_is_installed(dirs: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    probe = _amx_vm()
    # the VM of the report: an earlier coder built native there and it died by SIGILL (recorded here)
    double = _double(monkeypatch, {"native": SIGILL_AT_LOAD, "portable, AMX on": SIGILL_AT_LOAD,
                                   "portable, AMX off": PASSED})
    native = llamacpp_install._build_once("cpu", cpu_features.native_config(probe), probe, MODEL,
                                          lambda *a: None, [])
    assert not native.proven and native.smoke["signal"] == signal.SIGILL
    assert native.verdict == "the build uses an instruction this CPU cannot run"  # nothing proves more yet
    steps = [s.config.name for s in cpu_features.chain(probe, amx=True)]
    assert steps == ["native", "portable, AMX on", "portable, AMX off", "portable, no AVX-512"]

    record = _run(probe, amx=True)
    assert double.built == ["native", "portable, AMX on", "portable, AMX off"]  # native was not built again
    assert record.proven and record.cpu["label"] == "portable, AMX off"
    assert [a["label"] for a in record.attempts] == ["native", "portable, AMX on"]
    assert [a["recorded"] for a in record.attempts] == [True, False]
    # no backtrace named a function, but the build without AMX passed: the AMX kernel is to blame
    assert [a["verdict"] for a in record.attempts] == [AMX_VERDICT, AMX_VERDICT]
    on_disk = json.loads((Path(record.binary).parents[1] / "build.json").read_text())
    assert on_disk["attempts"][1]["smoke"]["signal"] == signal.SIGILL
    assert describe_attempt(on_disk["attempts"][1]) == f"portable, AMX on: refused: SIGILL: {AMX_VERDICT}"
    # each refusal stays in its own key's record, so the next install skips it
    assert len(refusals(probe)) == 2
    double.built.clear()
    assert _run(probe, amx=True).binary == record.binary and double.built == []


def test_amx_is_built_only_when_asked_and_reused_once_it_passed(dirs: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    probe = _amx_vm()
    double = _double(monkeypatch, {"portable, AMX off": PASSED, "portable, AMX on": PASSED})
    without = _run(probe)
    assert double.built == ["portable, AMX off"]
    # asking for AMX is not answered by the proven build without it
    assert llamacpp_install.installed("cpu", probe=probe, amx=True) is None
    with_amx = _run(probe, amx=True)
    assert double.built == ["portable, AMX off", "portable, AMX on"] and with_amx.cpu["amx_on"] is True
    assert {"-DGGML_AMX_TILE=ON", "-DGGML_AMX_INT8=ON", "-DGGML_AMX_BF16=ON"} <= set(with_amx.cmake_args)
    # once a build with AMX passed here, the default reuses it; where AMX is refused, it never is
    assert llamacpp_install.installed("cpu", probe=probe) == with_amx
    # --portable, the advice after a SIGILL at run time, means AMX off
    assert llamacpp_install.installed("cpu", portable=True, probe=probe) == without
    refused = _amx_vm(REFUSED)
    assert [s.config.name for s in cpu_features.chain(refused, amx=True)] == ["portable, AMX off",
                                                                             "portable, no AVX-512"]
    assert llamacpp_install.installed("cpu", probe=refused) == without


def test_a_named_amx_function_gives_the_verdict_without_a_passing_build(
    dirs: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    double = _double(monkeypatch, {"portable, AMX on": SIGILL_IN_AMX, "portable, AMX off": SIGILL_AT_LOAD,
                                   "portable, no AVX-512": PASSED})
    probe = _amx_vm()
    record = _run(probe, amx=True)
    assert double.built == ["portable, AMX on", "portable, AMX off", "portable, no AVX-512"]
    amx, no_amx = record.attempts
    assert amx["verdict"] == AMX_VERDICT and amx["smoke"]["function"] == AMX_KERNEL  # type: ignore[index]
    # a SIGILL without AMX is not the AMX kernel's fault
    assert no_amx["verdict"] == "the build uses an instruction this CPU cannot run"
    assert describe_attempt(amx) == f"portable, AMX on: refused: SIGILL in {AMX_KERNEL}: {AMX_VERDICT}"
    # the last resort: AVX-512 and AMX off, AVX2 still on
    assert {"-DGGML_AVX512=OFF", "-DGGML_AMX_TILE=OFF", "-DGGML_AVX2=ON"} <= set(record.cmake_args)


def test_refusal_is_reused_and_an_interrupted_build_leaves_no_record(dirs: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    probe = _amx_vm()
    outcomes = {"portable, AMX on": SIGILL_AT_LOAD, "portable, AMX off": PASSED}
    first = _double(monkeypatch, outcomes, interrupt="portable, AMX off")
    with pytest.raises(KeyboardInterrupt):
        _run(probe, amx=True)
    assert first.built == ["portable, AMX on", "portable, AMX off"]
    amx_key = llamacpp_install._key("cpu", cpu_features.first_choice(probe, amx=True), probe)
    assert _records(dirs) == [amx_key]  # the refusal only: the interrupted build left nothing
    assert not (dirs / "artifacts" / "llama.cpp" / "current-cpu.json").exists()
    second = _double(monkeypatch, outcomes)
    record = _run(probe, amx=True)
    assert second.built == ["portable, AMX off"]  # the refused AMX build was not repeated
    assert record.proven and record.attempts[0]["recorded"] is True


@pytest.mark.parametrize("where", ["build", "smoke test"])
def test_an_interrupt_leaves_the_cache_as_it_was(dirs: Path, monkeypatch: pytest.MonkeyPatch, where: str) -> None:
    probe = _amx_vm()
    interrupt = "portable, AMX off" + (": smoke" if where == "smoke test" else "")
    double = _double(monkeypatch, {"portable, AMX off": PASSED}, interrupt=interrupt)
    with pytest.raises(KeyboardInterrupt):
        _run(probe)
    assert double.built == ["portable, AMX off"]
    root = dirs / "artifacts" / "llama.cpp"
    assert _records(dirs) == [] and not list(root.glob(".*")) and not (root / "current-cpu.json").exists()
    key = llamacpp_install._key("cpu", cpu_features.first_choice(probe), probe)
    # the half-built tree is marked, and the next build of this key starts clean
    assert (build_cache.build_dir(key) / build_cache.INCOMPLETE).exists()
    (build_cache.build_dir(key) / "half-written.o").write_text("junk")
    assert not (build_cache.fresh_build_dir(key) / "half-written.o").exists()
    assert llamacpp_install.installed("cpu", probe=probe) is None


def test_every_configuration_refused_says_what_was_tried(dirs: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _double(monkeypatch, {"portable, AMX off": SIGILL_AT_LOAD, "portable, no AVX-512": SIGILL_AT_LOAD})
    with pytest.raises(CoderError, match=r"cannot run on this machine: .*tried: portable, AMX off: refused: SIGILL"):
        _run(_amx_vm())
    assert not (dirs / "artifacts" / "llama.cpp" / "current-cpu.json").exists()


def test_this_cpu_builds_native_first_and_at_most_twice(dirs: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    probe = cpu_features.probe()
    if probe.listed & cpu_features.AMX_FLAGS or probe.machine not in ("x86_64", "AMD64"):
        pytest.skip("this test is about an x86-64 CPU that lists no AMX")
    double = _double(monkeypatch, {"native": PASSED})
    assert _run(probe).cpu["mode"] == "native" and double.built == ["native"]
    shutil.rmtree(dirs / "artifacts")
    double = _double(monkeypatch, {"native": SIGILL_AT_LOAD, "portable": PASSED})
    record = _run(probe)
    assert double.built == ["native", "portable"] and record.cpu["reason"] == "native build failed its smoke test"


def test_the_keys_of_existing_builds_are_unchanged() -> None:
    # a changed key means a rebuild (17 minutes on a 2-core box) for everyone: these literals are the
    # keys the code before the configuration chain gave (no patches, so patch edits do not move them)
    flags = frozenset({"sse4_2", "avx", "avx2", "fma", "f16c", "bmi2", "avx512f", "avx_vnni"})
    probe = CpuProbe(machine="x86_64", model="m", listed=flags, amx_usable=False, amx_detail="not listed")
    native, portable = cpu_features.native_config(probe), cpu_features.portable_config(probe, "any reason")
    assert cpu_features.first_choice(probe) == native
    assert build_cache.build_key("v", "cpu", llamacpp_install.cmake_args("cpu", native), native, probe, []) \
        == "v-cpu-native-ce6c3e02fdfd"
    assert build_cache.build_key("v", "cpu", llamacpp_install.cmake_args("cpu", portable), portable, probe, []) \
        == "v-cpu-portable-3377b42c09fd"


# -- where it died --------------------------------------------------------------------------------


def test_crash_function_from_recorded_backtraces() -> None:
    gdb = ["[New LWP 4242]", "Thread 5 \"llama-server\" received signal SIGILL, Illegal instruction.",
           f"#0  0x00005555556c1d2e in {AMX_KERNEL}::apply (tile=...) at ggml/src/ggml-cpu/amx/mmq.cpp:1530",
           "#1  0x00005555556c2f10 in ggml_backend_amx_mul_mat (params=..., dst=...) at mmq.cpp:2410"]
    assert crash_function(gdb) == f"{AMX_KERNEL}::apply"
    abort = ["#0  __pthread_kill_implementation (no_tid=0) at ./nptl/pthread_kill.c:44",
             "#1  0x00007ffff7a4527e in raise (sig=6) at ../sysdeps/posix/raise.c:26",
             "#2  0x0000555555580a1b in ggml_abort (file=0x5 \"x\", line=1) at ggml.c:270",
             "#3  0x00005555555b1234 in ggml_compute_forward_mul_mat (params=...) at ggml-cpu.c:1200"]
    assert crash_function(abort) == "ggml_compute_forward_mul_mat"
    glibc = ["./llama-server(ggml_print_backtrace+0x1d) [0x5555555801ad]",
             "./llama-server(_ZL24ggml_backend_amx_mul_matP11ggml_tensor+0x2a) [0x5555556c2f10]"]
    assert "ggml_backend_amx_mul_mat" in crash_function(glibc)
    assert crash_function(["0: 0x5555555801ad ggml_print_backtrace", "1: 0x55555558aaaa ggml_graph_compute"]) \
        == "ggml_graph_compute"
    assert crash_function(["main: loading model", "llama_model_load: done"]) == ""


def test_a_real_sigill_core_names_the_function(tmp_path: Path) -> None:
    core_pattern = Path("/proc/sys/kernel/core_pattern")
    pattern = core_pattern.read_text().strip() if core_pattern.exists() else ""
    if not pattern.startswith("core") or shutil.which("gdb") is None or shutil.which("cc") is None:
        pytest.skip("needs cores written to the working directory, gdb and a C compiler")
    binary = build_sigill_server(tmp_path / "llama-server")
    assert binary is not None
    result = smoke_test(binary, tmp_path / "model.gguf", log_dir=tmp_path, timeout=60)
    assert not result.ok and result.signal == signal.SIGILL and result.stage == "load"
    assert result.function.startswith(FUNCTION)
    assert not [p for p in tmp_path.rglob("core*") if p.is_file()]  # read, then deleted
    assert os.access(binary, os.X_OK)


# -- what coder doctor says -----------------------------------------------------------------------


def _doctor_lines(dirs: Path) -> list[str]:
    env = {"CODER_CACHE": str(dirs / "cache"), "CODER_ARTIFACTS": str(dirs / "artifacts")}
    proc = run_coder("doctor", "demo", "--json", cwd=dirs, home=dirs / "home", env=env)
    assert "Traceback" not in proc.stderr, proc.stderr
    return [c["detail"] for c in json.loads(proc.stdout) if c["name"] == "cpu build tried"]


def test_doctor_shows_each_tried_configuration_in_one_line(dirs: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    probe = cpu_features.probe()  # doctor probes this machine's CPU
    if probe.listed & cpu_features.AMX_FLAGS or probe.machine not in ("x86_64", "AMD64"):
        pytest.skip("this test is about an x86-64 CPU that lists no AMX")
    _double(monkeypatch, {"native": SIGILL_AT_LOAD, "portable": SIGILL_AT_LOAD, "portable, no AVX-512": SIGILL_AT_LOAD})
    with pytest.raises(CoderError):
        _run(probe)
    # nothing installed: doctor lists the refusals recorded for this CPU
    lines = _doctor_lines(dirs)
    # three configurations where the CPU lists AVX-512; on one without it, "portable, no AVX-512" is "portable"
    tried = len(cpu_features.chain(probe))
    assert tried == (3 if probe.listed & cpu_features.AVX512_FLAGS else 2)
    assert len(lines) == tried and all(": refused: SIGILL: " in line for line in lines)
    assert any(line.startswith("native: refused") for line in lines)
    shutil.rmtree(dirs / "artifacts")
    _double(monkeypatch, {"native": SIGILL_AT_LOAD, "portable": PASSED})
    _run(probe)
    # installed: doctor lists what was tried before it
    assert _doctor_lines(dirs) == ["native: refused: SIGILL: the build uses an instruction this CPU cannot run"]


def test_other_architectures_try_native_then_the_generic_baseline() -> None:
    arm = CpuProbe(machine="aarch64", model="", listed=frozenset({"asimd"}), amx_usable=False, amx_detail="")
    assert [s.config.cmake for s in cpu_features.chain(arm)] == [("-DGGML_NATIVE=ON",), ("-DGGML_NATIVE=OFF",)]
    assert [s.config.cmake for s in cpu_features.chain(arm, portable=True)] == [("-DGGML_NATIVE=OFF",)]
