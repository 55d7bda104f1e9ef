"""The installer proves its binary: CPU probing, portable fallback, build keys, the lock, crash lines.

Where a failing binary is needed, the tests use a *stand-in executable* (a test double) that kills
itself with SIGILL, as a native build does on a VM that lists AMX but cannot execute it. The build
step itself (cmake) is replaced in those tests only; the binary that then passes the smoke test is
the real llama-server, so the proof is real.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from coder.backends import cpu_features
from coder.backends.cpu_features import CpuProbe
from coder.backends.runtime.crash import describe_exit
from coder.backends.toolchain import cache as build_cache
from coder.backends.toolchain import draft_cap_patch
from coder.backends.toolchain import install as llamacpp_install
from coder.backends.toolchain.anchored import AnchoredEdit
from coder.backends.toolchain.smoke import check_version, smoke_test
from coder.errors import CoderError

REPO = Path(__file__).resolve().parents[2]
AMX_VM_FLAGS = frozenset(
    ["sse4_2", "avx", "avx2", "fma", "f16c", "bmi2", "avx512f", "avx512vbmi", "avx512_vnni", "avx512_bf16",
     "avx_vnni", "amx_tile", "amx_int8", "amx_bf16"]
)


def _cpu(flags: frozenset[str], amx_usable: bool = False) -> CpuProbe:
    return CpuProbe(machine="x86_64", model="test CPU", listed=flags, amx_usable=amx_usable,
                    amx_detail="granted" if amx_usable else "refused")


# -- CPU probing ----------------------------------------------------------------------------------


def test_reads_flags_from_cpuinfo(tmp_path: Path) -> None:
    info = tmp_path / "cpuinfo"
    info.write_text("processor\t: 0\nmodel name\t: Some Xeon\nflags\t\t: fpu avx avx2 amx_tile\n\n"
                    "processor\t: 1\nflags\t\t: fpu\n")
    model, flags = cpu_features.read_flags(info)
    assert model == "Some Xeon" and flags == {"fpu", "avx", "avx2", "amx_tile"}


def test_amx_listed_but_not_executable_goes_portable_with_amx_off() -> None:
    cpu = _cpu(AMX_VM_FLAGS, amx_usable=False)
    config = cpu_features.first_choice(cpu)
    assert config.mode == "portable"
    assert "amx_tile" in config.reason and "cannot execute" in config.reason
    assert "-DGGML_NATIVE=OFF" in config.cmake
    assert {"-DGGML_AMX_TILE=OFF", "-DGGML_AMX_INT8=OFF", "-DGGML_AMX_BF16=OFF"} <= set(config.cmake)
    assert {"-DGGML_AVX512=ON", "-DGGML_AVX512_VNNI=ON", "-DGGML_AVX512_BF16=ON", "-DGGML_AVX2=ON"} <= set(config.cmake)


def test_permitted_amx_is_still_off_first_and_plain_cpus_build_native() -> None:
    # a granted AMX permission does not prove ggml's AMX kernels run: the first build leaves AMX out
    first = cpu_features.first_choice(_cpu(AMX_VM_FLAGS, amx_usable=True))
    assert first.mode == "portable" and not first.amx and "-DGGML_AMX_TILE=OFF" in first.cmake
    assert "-DGGML_AVX512=ON" in first.cmake
    asked = cpu_features.first_choice(_cpu(AMX_VM_FLAGS, amx_usable=True), amx=True)
    assert asked.amx and "-DGGML_AMX_TILE=ON" in asked.cmake
    assert cpu_features.first_choice(_cpu(frozenset({"avx", "avx2", "fma"}))).mode == "native"
    # a CPU without AVX-512 gets it switched off explicitly in the portable configuration
    portable = cpu_features.portable_config(_cpu(frozenset({"avx", "avx2", "fma", "f16c"})), "asked")
    assert "-DGGML_AVX512=OFF" in portable.cmake and portable.features == ("avx", "avx2", "fma", "f16c")


def test_the_kernel_is_asked_about_amx_on_this_machine() -> None:
    usable, detail = cpu_features.probe_amx()
    listed = cpu_features.read_flags()[1]
    if "amx_tile" not in listed:
        assert usable is False  # nothing to grant: the kernel must not claim otherwise
    assert detail


def test_can_execute_checks_recorded_features() -> None:
    cpu = _cpu(frozenset({"avx", "avx2"}))
    ok, why = cpu_features.can_execute({"mode": "portable", "features": ["avx"]}, cpu)
    assert ok and why == "all features execute here"
    ok, why = cpu_features.can_execute({"mode": "portable", "features": ["avx", "avx512f"]}, cpu)
    assert not ok and "avx512f" in why
    assert cpu_features.can_execute({"mode": "native", "fingerprint": cpu.fingerprint()}, cpu)[0]
    assert not cpu_features.can_execute({"mode": "native", "fingerprint": "other"}, cpu)[0]


# -- build keys -----------------------------------------------------------------------------------


class _Patch:
    def __init__(self, name: str, edits: tuple[AnchoredEdit, ...]) -> None:
        self.PATCH_NAME = name
        self.EDITS = edits

    def apply(self, llama_root: Path) -> None:
        raise AssertionError("not applied in key tests")


def test_key_changes_with_patch_edits_cmake_args_and_cpu() -> None:
    cpu = _cpu(frozenset({"avx", "avx2"}))
    native = cpu_features.native_config(cpu)
    base = build_cache.build_key("1", "cpu", ["-DX=1"], native, cpu, [draft_cap_patch])
    assert base == build_cache.build_key("1", "cpu", ["-DX=1"], native, cpu, [draft_cap_patch])
    edited = _Patch(draft_cap_patch.PATCH_NAME,
                    (*draft_cap_patch.EDITS[:-1], AnchoredEdit("a.cpp", "anchor", "changed text\n")))
    assert build_cache.build_key("1", "cpu", ["-DX=1"], native, cpu, [edited]) != base
    second = _Patch("prediction-v1", (AnchoredEdit("b.cpp", "x", "y"),))
    assert build_cache.build_key("1", "cpu", ["-DX=1"], native, cpu, [draft_cap_patch, second]) != base
    assert build_cache.build_key("1", "cpu", ["-DX=2"], native, cpu, [draft_cap_patch]) != base
    assert build_cache.build_key("1", "cuda", ["-DX=1"], native, cpu, [draft_cap_patch]) != base
    portable = cpu_features.portable_config(cpu, "asked")
    assert build_cache.build_key("1", "cpu", ["-DX=1"], portable, cpu, [draft_cap_patch]) != base
    # a native build is keyed by the feature set it was built on
    other = _cpu(frozenset({"avx"}))
    assert build_cache.build_key("1", "cpu", ["-DX=1"], native, other, [draft_cap_patch]) != base


def test_the_real_patch_set_is_in_the_key_and_the_record() -> None:
    assert draft_cap_patch in llamacpp_install.PATCHES
    assert llamacpp_install.cmake_args("cpu", cpu_features.native_config(_cpu(frozenset())))[-1] == "-DGGML_NATIVE=ON"


# -- lock, interrupted builds, atomic install -----------------------------------------------------


@pytest.fixture
def isolated_dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("CODER_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("CODER_ARTIFACTS", str(tmp_path / "artifacts"))
    return tmp_path


def test_concurrent_installs_wait_for_the_lock(isolated_dirs: Path) -> None:
    order: list[str] = []
    waited = threading.Event()
    inside = threading.Event()

    def second() -> None:
        with build_cache.install_lock(waiting=waited.set):
            order.append("second")

    with build_cache.install_lock():
        order.append("first")
        worker = threading.Thread(target=second)
        worker.start()
        assert waited.wait(5), "the second install did not notice the held lock"
        time.sleep(0.2)
        assert order == ["first"]  # still blocked while the first holds the lock
        inside.set()
    worker.join(5)
    assert order == ["first", "second"]


def test_an_interrupted_build_starts_clean(isolated_dirs: Path) -> None:
    build = build_cache.fresh_build_dir("k1")
    (build / "half-written.o").write_text("junk")
    again = build_cache.fresh_build_dir("k1")  # the first never finished
    assert not (again / "half-written.o").exists()
    (again / "kept.o").write_text("ok")
    build_cache.finish_build_dir(again)
    assert (build_cache.fresh_build_dir("k1") / "kept.o").exists()


def test_a_failed_proof_or_copy_installs_nothing(isolated_dirs: Path) -> None:
    binary = isolated_dirs / "llama-server"
    binary.write_text("#!/bin/sh\n")

    def refuse(path: Path) -> None:
        raise RuntimeError("smoke failed")

    with pytest.raises(RuntimeError):
        build_cache.install_atomically("k2", binary, lambda dest: None, refuse)
    assert not build_cache.install_dir("k2").exists()
    assert not list(build_cache.install_root().glob(".*partial"))
    with pytest.raises(CoderError, match="could not install llama-server"):
        build_cache.install_atomically("k3", isolated_dirs / "missing", lambda dest: None, lambda p: None)
    assert not build_cache.install_dir("k3").exists()


# -- binaries that cannot run ---------------------------------------------------------------------


def _stand_in(path: Path, body: str) -> Path:
    """A stand-in executable (test double) for a broken llama-server build."""
    path.write_text("#!/bin/sh\n" + body + "\n")
    path.chmod(0o755)
    return path


def test_sigill_binary_is_reported_as_such(tmp_path: Path) -> None:
    result = check_version(_stand_in(tmp_path / "llama-server", "kill -ILL $$"))
    assert result is not None and result.signal == signal.SIGILL and result.crashed_by_signal
    assert "SIGILL (illegal instruction)" in result.detail and "--portable" in result.detail


def test_wrong_architecture_and_missing_library(tmp_path: Path) -> None:
    junk = tmp_path / "junk"
    junk.write_bytes(b"\x7fELF\x02\x01\x01" + bytes(64))
    junk.chmod(0o755)
    result = check_version(junk)
    assert result is not None and not result.ok and "cannot execute" in result.detail
    lib = _stand_in(tmp_path / "nolib", "echo 'error while loading shared libraries: libcuda.so.1' >&2; exit 127")
    result = check_version(lib)
    assert result is not None and "a shared library is missing" in result.detail and "libcuda" in result.detail


def test_signal_lines() -> None:
    assert "OOM killer" in describe_exit("llama-server", -signal.SIGKILL, "loading the model")
    segv = describe_exit("llama-server", -signal.SIGSEGV, "generating", ["boom at x"])
    assert segv.startswith("llama-server crashed with SIGSEGV") and "boom at x" in segv
    assert "status 3" in describe_exit("llama-server", 3, "starting")


@pytest.mark.server
def test_smoke_test_passes_on_the_real_installed_binary(llama_server_binary: Path, demo_model: Path) -> None:
    result = smoke_test(llama_server_binary, demo_model)
    assert result.ok, result.detail
    assert result.tokens > 0 and result.stage == "done"


@pytest.mark.server
def test_a_native_build_that_dies_by_sigill_is_rebuilt_portable(
    isolated_dirs: Path, llama_server_binary: Path, demo_model: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    models = isolated_dirs / "artifacts" / "models"
    models.mkdir(parents=True)
    shutil.copy2(demo_model, models / demo_model.name)
    monkeypatch.setattr(cpu_features, "probe", lambda cpuinfo=None: _cpu(frozenset({"avx", "avx2", "fma"})))
    configured: dict[str, list[str]] = {}
    builds: list[str] = []

    def fake_cmake(cmd: list[str], log: Path, phase: str, progress: object) -> None:
        # stands in for cmake only: records the configuration and puts a binary where the build would
        if "-S" in cmd:
            configured[cmd[cmd.index("-B") + 1]] = cmd
            return
        build = Path(cmd[cmd.index("--build") + 1])
        (build / "bin").mkdir(parents=True, exist_ok=True)
        target = build / "bin" / "llama-server"
        if "-DGGML_NATIVE=ON" in configured[str(build)]:
            builds.append("native")
            _stand_in(target, "kill -ILL $$")
        else:
            builds.append("portable")
            shutil.copy2(llama_server_binary, target)

    monkeypatch.setattr(llamacpp_install, "_run_logged", fake_cmake)
    monkeypatch.setattr(build_cache, "source_tree", lambda sdist, version, patches: isolated_dirs / "src")
    record = llamacpp_install.install(cuda=False)
    assert builds == ["native", "portable"]
    assert record.proven and record.cpu["mode"] == "portable"
    assert "native build failed" in str(record.cpu["reason"])
    assert record.attempts[0]["smoke"]["signal"] == signal.SIGILL  # type: ignore[index]
    on_disk = json.loads((Path(record.binary).parent.parent / "build.json").read_text())
    assert on_disk["smoke"]["ok"] is True and on_disk["cpu"]["features"] == ["avx", "avx2", "fma"]
    # the next install reuses the proven portable build and never retries the native one
    assert llamacpp_install.install(cuda=False).binary == record.binary
    from coder.backends.installed import find_installed

    found = find_installed()  # what the runtime reads: the pointer the install wrote
    assert found is not None and found.binary == record.binary
    assert builds == ["native", "portable"]


@pytest.mark.server
def test_a_server_that_dies_by_sigill_says_so(tmp_path: Path, llama_server_binary: Path, demo_model: Path) -> None:
    from coder.backends.runtime import manager
    from coder.config import builtin_profiles

    # stand-in (test double): answers --help like the real binary, then dies as a native AMX build does
    binary = _stand_in(tmp_path / "llama-server",
                       f'case "$1" in --help|--version) exec {llama_server_binary} "$@";; esac\nkill -ILL $$')
    profile = builtin_profiles()["demo"].with_overrides(name=f"sigill-{os.getpid()}", binary=str(binary))
    with pytest.raises(CoderError) as err:
        manager.start(profile)
    line = str(err.value)
    assert "llama-server crashed with SIGILL (illegal instruction)" in line
    assert "run: coder backend install llama.cpp --portable" in line
    assert manager.current(profile.name) is None


# -- scripts/setup --------------------------------------------------------------------------------


def test_setup_names_each_missing_tool_before_doing_anything(tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in ("dirname", "git", "g++", "c++", "make", "ninja"):
        if found := shutil.which(tool):
            (bin_dir / tool).symlink_to(found)
    (bin_dir / "python3").symlink_to(sys.executable)
    project = tmp_path / "project"
    (project / "scripts").mkdir(parents=True)
    shutil.copy2(REPO / "scripts" / "setup", project / "scripts" / "setup")
    proc = subprocess.run([shutil.which("bash") or "/bin/bash", str(project / "scripts" / "setup")],
                          capture_output=True, text=True, env={"PATH": str(bin_dir), "HOME": str(tmp_path)},
                          timeout=60)
    assert proc.returncode == 1
    assert "setup: missing cmake (install: apt-get install cmake)" in proc.stderr
    assert "nothing was downloaded or built" in proc.stderr
    assert not (project / ".venv").exists()
