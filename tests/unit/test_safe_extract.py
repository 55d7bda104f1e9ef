"""The llama.cpp source is unpacked safely on every Python coder supports (3.11.0-3.11.3 have no tar filter)."""

from __future__ import annotations

import io
import tarfile
from pathlib import Path

import pytest

from coder.backends.toolchain.cache import safe_extract


def _tar(path: Path, members: list[tuple[str, bytes | None, str]]) -> Path:
    """A tar of ``(name, data, link)``: a file when ``data`` is given, else a symlink to ``link``."""
    with tarfile.open(path, "w") as tar:
        for name, data, link in members:
            info = tarfile.TarInfo(name)
            if data is None:
                info.type, info.linkname = tarfile.SYMTYPE, link
                tar.addfile(info)
            else:
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
    return path


@pytest.fixture(params=["filter", "checked"])
def python(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Both paths: Python's own ``filter="data"``, and the member checks of a Python without it (3.11.2)."""
    if request.param == "checked":
        monkeypatch.delattr(tarfile, "data_filter", raising=False)
    return str(request.param)


def test_a_source_tree_with_an_inner_link_unpacks(tmp_path: Path, python: str) -> None:
    archive = _tar(tmp_path / "ok.tar", [("src/a.c", b"int a;\n", ""), ("src/b.c", None, "a.c")])
    with tarfile.open(archive) as tar:
        safe_extract(tar, tmp_path / "out")
    assert (tmp_path / "out" / "src" / "a.c").read_text() == "int a;\n"
    assert (tmp_path / "out" / "src" / "b.c").read_text() == "int a;\n"


@pytest.mark.parametrize("name", ["../evil.c", "ABS", "src/../../evil.c"])
def test_a_file_outside_the_folder_is_never_written(tmp_path: Path, python: str, name: str) -> None:
    # Python's filter refuses ".." and writes an absolute name inside the folder; the checks refuse both
    name = str(tmp_path / "evil.c") if name == "ABS" else name
    archive = _tar(tmp_path / "bad.tar", [(name, b"x", "")])
    with tarfile.open(archive) as tar:
        try:
            safe_extract(tar, tmp_path / "out")
        except tarfile.TarError:
            pass
        else:
            assert python == "filter" and name.startswith("/")
    assert not (tmp_path / "evil.c").exists()


@pytest.mark.parametrize("link", ["../../evil", "/etc/passwd"])
def test_a_link_out_of_the_folder_is_refused(tmp_path: Path, python: str, link: str) -> None:
    archive = _tar(tmp_path / "bad.tar", [("src/out", None, link)])
    with tarfile.open(archive) as tar, pytest.raises(tarfile.TarError):
        safe_extract(tar, tmp_path / "out")
