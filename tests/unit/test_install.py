"""llama-server install: the draft-cap patch, variant choice, and pinned downloads."""

from __future__ import annotations

import hashlib
import http.server
import json
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from coder.backends.toolchain import draft_cap_patch
from coder.backends.toolchain.install import choose_variant, gpu_compute_capability
from coder.errors import CoderError
from coder.pypi import PinnedFile, fetch


@pytest.fixture
def server_sources(tmp_path: Path, llama_server_binary: Path) -> Path:
    """A copy of the three server files the patch touches, from the pinned source tree (pristine)."""
    from coder.backends.toolchain.cache import source_path
    from coder.backends.toolchain.install import VERSION

    src = source_path(VERSION)
    root = tmp_path / "llama.cpp"
    for edit in draft_cap_patch.EDITS:
        target = root / edit.path
        target.parent.mkdir(parents=True, exist_ok=True)
        text = (src / edit.path).read_text()
        target.write_text(text.replace(edit.text, ""))  # undo the patch the build applied
    return root


@pytest.mark.server
def test_patch_applies_once_and_is_idempotent(server_sources: Path) -> None:
    draft_cap_patch.apply(server_sources)
    first = {e.path: (server_sources / e.path).read_text() for e in draft_cap_patch.EDITS}
    draft_cap_patch.apply(server_sources)
    for edit in draft_cap_patch.EDITS:
        text = (server_sources / edit.path).read_text()
        assert text == first[edit.path]
        assert text.count(edit.text) == 1
    assert '"speculative.n_max", params.spec_n_max_cap' in first["tools/server/server-schema.cpp"]


@pytest.mark.server
def test_patch_fails_loudly_when_the_source_moved(server_sources: Path) -> None:
    ctx = server_sources / "tools/server/server-context.cpp"
    ctx.write_text(ctx.read_text().replace("n_remaining() - 1", "n_remaining() - 2"))
    with pytest.raises(CoderError, match=r"anchor found 0× in tools/server/server-context\.cpp"):
        draft_cap_patch.apply(server_sources)


def test_variant_needs_a_gpu_not_just_nvcc() -> None:
    # nvcc alone (a CUDA toolkit image without a GPU) must not pick a CUDA build
    expected = "cuda" if shutil.which("nvcc") and gpu_compute_capability() else "cpu"
    assert choose_variant(None) == expected
    assert choose_variant(False) == "cpu"
    assert choose_variant(True) == "cuda"


@pytest.fixture
def local_index(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[str, bytes]]:
    """A real HTTP server shaped like PyPI's JSON simple API, serving one file."""
    payload = b"pretend sdist bytes" * 100
    (tmp_path / "files").mkdir()
    (tmp_path / "files" / "pkg-1.0.tar.gz").write_bytes(payload)

    class Handler(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *a: object, **kw: object) -> None:
            super().__init__(*a, directory=str(tmp_path), **kw)  # type: ignore[arg-type]

        def log_message(self, *args: object) -> None:
            pass

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    base = f"http://127.0.0.1:{httpd.server_address[1]}"
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "index.html").write_text(json.dumps(
        {"files": [{"filename": "pkg-1.0.tar.gz", "url": f"{base}/files/pkg-1.0.tar.gz"}]}))
    monkeypatch.setattr("coder.pypi.INDEX", base)
    monkeypatch.setenv("CODER_CACHE", str(tmp_path / "cache"))
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield base, payload
    httpd.shutdown()


def test_fetch_verifies_sha256(local_index: tuple[str, bytes]) -> None:
    _, payload = local_index
    good = PinnedFile("pkg", "pkg-1.0.tar.gz", hashlib.sha256(payload).hexdigest())
    seen: list[int] = []
    path = fetch(good, lambda done, total: seen.append(done))
    assert path.read_bytes() == payload and seen[-1] == len(payload)
    assert fetch(good) == path  # cached: no second download needed
    bad = PinnedFile("pkg", "pkg-1.0.tar.gz", "0" * 64)
    path.unlink()
    with pytest.raises(CoderError, match="sha256 mismatch"):
        fetch(bad)
    assert not path.exists()


def test_fetch_reports_a_missing_file(local_index: tuple[str, bytes]) -> None:
    with pytest.raises(CoderError, match="not on the package index"):
        fetch(PinnedFile("pkg", "pkg-2.0.tar.gz", "0" * 64))
