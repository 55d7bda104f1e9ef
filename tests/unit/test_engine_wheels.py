"""scripts/gpu/engine_wheels.py and scripts/gpu/vllm_device.py: the metadata logic that decides whether vLLM /
SGLang install on the GPU device, on the real METADATA files of the PyPI wheels (tests/data/engines/
wheels, SOURCES.md). Nothing here touches the network."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import sys
import tarfile
import zipfile
from pathlib import Path
from types import ModuleType

import pytest

REPO = Path(__file__).resolve().parents[2]
WHEELS = REPO / "tests" / "data" / "engines" / "wheels"


def _load(name: str) -> ModuleType:
    sys.path.insert(0, str(REPO / "scripts" / "gpu"))
    try:
        spec = importlib.util.spec_from_file_location(name, REPO / "scripts" / "gpu" / f"{name}.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(REPO / "scripts" / "gpu"))


ew = _load("engine_wheels")
vd = _load("vllm_device")


def real(filename: str) -> object:
    """The Dist of a stored real METADATA file."""
    return ew.parse_metadata((WHEELS / f"{filename}.METADATA").read_text())


VLLM_033 = "vllm-0.33.0-cp38-abi3-manylinux_2_28_x86_64.whl"
VLLM_026 = "vllm-0.26.0-cp38-abi3-manylinux_2_28_x86_64.whl"
SGL_0523 = "sglang-0.5.23-cp312-cp312-manylinux_2_34_x86_64.whl"
SGL_0517 = "sglang-0.5.17-cp312-cp312-manylinux_2_34_x86_64.whl"


def only_root(filename: str) -> tuple[object, object]:
    """metadata/wheels callables that know the root wheel alone (every dependency has no wheel)."""
    dist = real(filename)
    wheel = ew.WheelFile(filename, "https://example.invalid/" + filename, 1, "", "")
    return (lambda w: dist), (lambda name: [wheel] if ew.canonicalize_name(name) == dist.name.lower() else [])


@pytest.mark.parametrize(("filename", "torch", "vision"), [(VLLM_033, "==2.14.0", "==0.29.0"),
                                                          (VLLM_026, "==2.11.0", "==0.26.0"),
                                                          (SGL_0523, "==2.14.1", "(any)"),
                                                          (SGL_0517, "==2.11.0", "(any)")])
def test_real_pins(filename: str, torch: str, vision: str) -> None:
    dist = real(filename)
    assert dist.pin("torch") == torch and dist.pin("torchvision") == vision
    assert dist.pin("torchaudio") == "==2.11.0"


def test_asked_versions_do_not_fit_the_device_torch_and_say_which_pin() -> None:
    for filename, want in ((VLLM_033, ["torch==2.14.0", "torchvision==0.29.0"]), (SGL_0523, ["torch==2.14.1"])):
        metadata, wheels = only_root(filename)
        res = ew.resolve(real(filename).name + "==" + real(filename).version, metadata, wheels)
        assert not res.feasible
        bound = [c for c in res.conflicts if "ABI-bound" in c]
        assert [w for w in want if any(f"requires {w};" in c for c in bound)] == want, bound
        assert all("the device has torch" in c or "the device has torchvision" in c for c in bound)


def test_fitting_releases_meet_every_abi_bound_pin() -> None:
    for filename in (VLLM_026, SGL_0517):
        metadata, wheels = only_root(filename)
        res = ew.resolve(real(filename).name + "==" + real(filename).version, metadata, wheels)
        assert not [c for c in res.conflicts if "ABI-bound" in c]
        assert res.present["torch"] == "2.11.0"
        assert res.no_wheel  # this stub index has no dependency wheels: reported, not ignored


def test_fits_device_and_newest_fitting() -> None:
    pins = [(r.version, {n: r.pin(n) for n in ew.ABI_BOUND}) for r in map(real, (VLLM_033, VLLM_026))]
    assert [vd.fits_device(p) for _, p in pins] == [False, True]
    assert vd.newest_fitting(pins) == "0.26.0"
    assert vd.fits_device({"torch": None, "triton": "(any)"})


def test_markers_and_extras_on_the_device() -> None:
    env = ew.device_environment()
    names = {r.name for r in real(VLLM_033).requirements((), env)}
    assert {"llguidance", "xgrammar", "six", "setuptools", "torch"} <= names  # x86_64 / python > 3.11 markers
    assert "vllm-gguf-plugin" not in names and "zentorch" not in names  # extras only when asked
    protobuf = [str(r.specifier) for r in real(VLLM_033).requirements((), env) if r.name == "protobuf"]
    assert protobuf and all("7.36.1" not in s for s in protobuf)  # the s390x-only pin is dropped
    assert "vllm-gguf-plugin" in {r.name for r in real(VLLM_033).requirements(("extra-quant",), env)}


def test_index_wheels_keeps_device_wheels_newest_first() -> None:
    page = json.loads((WHEELS / "index-vllm-trimmed.json").read_text())
    files = ew.index_wheels(page, ew.device_tags())
    assert [w.filename for w in files] == [
        "vllm-0.33.0-cp38-abi3-manylinux_2_28_x86_64.whl", "vllm-0.26.0-cp38-abi3-manylinux_2_28_x86_64.whl",
        "vllm-0.25.1-cp38-abi3-manylinux_2_28_x86_64.whl", "vllm-0.10.0-cp38-abi3-manylinux1_x86_64.whl"]
    assert files[0].size == 336361138 and files[0].sha256.startswith("4b6bdec4")


def test_range_reader_reads_metadata_without_the_whole_wheel(tmp_path: Path) -> None:
    wheel = tmp_path / "big-1.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as zf:
        zf.writestr("big/blob.bin", bytes(range(256)) * 40_000, compress_type=zipfile.ZIP_STORED)  # 10 MB
        zf.writestr("big-1.0.dist-info/METADATA", "Metadata-Version: 2.1\nName: big\nVersion: 1.0\n"
                                                  "Requires-Dist: torch==2.11.0\n")
    data = wheel.read_bytes()
    calls: list[tuple[int, int]] = []

    def get(url: str, start: int, end: int) -> bytes:
        calls.append((start, end))
        return data[start:end + 1]

    reader = ew.RangeReader(get, "file://big", len(data))
    dist = ew.parse_metadata(ew.metadata_from_zip(reader))
    assert (dist.name, dist.version, dist.pin("torch")) == ("big", "1.0", "==2.11.0")
    assert reader.fetched < len(data) // 20, reader.fetched  # only the tail and the member were read


def test_backtracks_to_an_older_release_that_agrees() -> None:
    """Test double index: the newest 'child' wants ffi>=2 while the root pins ffi==1; child 1 accepts it."""
    dists = {
        ("root", "1"): ("root", "1", ("child", "ffi==1")),
        ("child", "2"): ("child", "2", ("ffi>=2",)),
        ("child", "1"): ("child", "1", ("ffi>=1",)),
        ("ffi", "2"): ("ffi", "2", ()), ("ffi", "1"): ("ffi", "1", ()),
    }

    def wheels(name: str) -> list[object]:
        return [ew.WheelFile(f"{n}-{v}-py3-none-any.whl", "", 10, "", "") for (n, v) in sorted(dists, reverse=True)
                if n == name]

    def metadata(w: object) -> object:
        n, v, reqs = dists[(w.filename.split("-")[0], w.filename.split("-")[1])]
        return ew.Dist(n, v, "", reqs)

    res = ew.resolve("root==1", metadata, wheels, device={})
    assert res.feasible, res.conflicts
    assert {n: str(w.version) for n, w in res.carry.items()} == {"root": "1", "child": "1", "ffi": "1"}
    assert res.banned == ["child 2"]


def test_pack_splits_and_reassembles(tmp_path: Path) -> None:
    files = []
    for i in range(3):
        f = tmp_path / f"w{i}-1.0-py3-none-any.whl"
        f.write_bytes(bytes([i]) * 2500)
        files.append(f)
    names, sha = vd.pack(files, tmp_path / "set.tar", tmp_path / "out", "p", piece=4000)
    assert names == [f"p{i:02d}" for i in range(len(names))] and len(names) >= 2
    joined = b"".join((tmp_path / "out" / n / "piece").read_bytes() for n in names)
    assert all((tmp_path / "out" / n / "piece").stat().st_size <= 4000 for n in names)
    assert hashlib.sha256(joined).hexdigest() == sha
    (tmp_path / "again.tar").write_bytes(joined)
    with tarfile.open(tmp_path / "again.tar") as tar:
        assert sorted(tar.getnames()) == sorted(f.name for f in files)


def test_device_commands_fit_the_device_limits() -> None:
    plan = vd.Plan([f"p{i:02d}" for i in range(10)], "ab" * 32, ["x.whl"], [], None)
    calls = vd.device_commands(plan, ".carry/vllm", "/root/models/qwen 1.5b.gguf")
    assert len(calls) == 1 + 10 + 2
    assert calls[0][0] == [".carry/vllm/boot"] and "'/root/models/qwen 1.5b.gguf'" in calls[0][1]
    assert [c[0] for c in calls[1:11]] == [[f".carry/vllm/p{i:02d}"] for i in range(10)]
    assert "ab" * 32 + "  set.tar" in calls[11][1] and "pip install" in calls[11][1]
    serve = calls[12][1]
    assert '"method":"ngram"' in serve and "--enforce-eager" in serve and "vllm_record.py" in serve
    assert all(len(cmd) <= 2000 and len(carry) <= 8 for carry, cmd in calls)


def test_gguf_eos_id_of_the_demo_model(demo_model: Path) -> None:
    """scripts/gpu/gguf_to_hf.py stops the converted chat model on the GGUF's EOS: SmolLM2-Instruct's is
    <|im_end|>, id 2 (its tokenizer.ggml.eos_token_id)."""
    to_hf = _load("gguf_to_hf")
    assert to_hf.gguf_eos_id(demo_model) == 2
    assert to_hf.main(["/nonexistent.gguf", "/tmp/out"]) == 1
