"""Bench prompt inputs: text regular files only, bounded, shallow JSON, files confined."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest
from cli_helpers import error_lines, run_coder

from coder.bench import inputs
from coder.bench.workloads import load_prompts
from coder.errors import CoderError


@pytest.fixture
def prompts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)  # no repository around: the prompts directory is the only root
    d = tmp_path / "prompts"
    d.mkdir()
    return d


def test_nul_text_is_refused(prompts: Path) -> None:
    (prompts / "zeros.txt").write_bytes(b"\0" * 4096)
    with pytest.raises(CoderError, match=r"zeros.txt:1: contains NUL bytes"):
        load_prompts(prompts)
    (prompts / "zeros.txt").write_bytes(b"fine line\n\xff\xfe binary\n")
    with pytest.raises(CoderError, match=r"zeros.txt:2: not UTF-8 text"):
        load_prompts(prompts / "zeros.txt")


def test_fifo_is_refused_without_hanging(prompts: Path) -> None:
    os.mkfifo(prompts / "pipe.txt")
    t0 = time.monotonic()
    with pytest.raises(CoderError, match=r"pipe.txt: is a FIFO, not a regular file"):
        load_prompts(prompts / "pipe.txt")
    with pytest.raises(CoderError, match="is a FIFO"):
        load_prompts(prompts)  # listed in a directory too
    assert time.monotonic() - t0 < 2


def test_fifo_through_the_cli(prompts: Path, tmp_path: Path) -> None:
    os.mkfifo(prompts / "pipe.txt")
    out = run_coder("bench", str(prompts / "pipe.txt"), cwd=tmp_path, home=tmp_path / "home", timeout=60)
    assert out.returncode == 1 and error_lines(out) == [f"coder: error: {prompts / 'pipe.txt'}: is a FIFO, "
                                                         "not a regular file"]


def test_deep_json_is_one_line(prompts: Path) -> None:
    (prompts / "deep.jsonl").write_text("[" * 100_000 + "]" * 100_000 + "\n")
    with pytest.raises(CoderError, match=r"deep.jsonl:1: JSON nested deeper than 32 levels"):
        load_prompts(prompts / "deep.jsonl")
    # brackets inside strings are text, not depth
    line = {"name": "b", "prompt": "[[[[" * 100 + '{"x"' * 50}
    (prompts / "ok.jsonl").write_text(json.dumps(line) + "\n")
    assert load_prompts(prompts / "ok.jsonl")[0].name == "b"


@pytest.mark.parametrize("file", ["/etc/passwd", "../outside.py", "link.py"])
def test_file_entries_stay_inside_the_prompts_dir_or_repo(prompts: Path, tmp_path: Path, file: str) -> None:
    (tmp_path / "outside.py").write_text("secret = 1\n")
    (prompts / "link.py").symlink_to(tmp_path / "outside.py")
    record = {"name": "p", "prompt": "tidy", "class": "full", "file": file}
    (prompts / "p.jsonl").write_text(json.dumps(record) + "\n")
    with pytest.raises(CoderError, match=r"p.jsonl:1: .* is outside the prompts directory and the repository"):
        load_prompts(prompts / "p.jsonl")


def test_file_entry_inside_the_repository_is_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from cli_helpers import make_repo

    root = tmp_path / "repo"
    make_repo(root, {"src/app.py": "def f():\n    return 1\n"})
    (root / "bench").mkdir()
    (root / "bench" / "p.jsonl").write_text(json.dumps(
        {"name": "p", "prompt": "add a docstring", "class": "full", "file": "../src/app.py"}) + "\n")
    monkeypatch.chdir(root)
    (w,) = load_prompts(root / "bench" / "p.jsonl")
    assert "return 1" in w.messages[-1]["content"]


def test_symlinked_prompt_out_of_the_directory_is_refused(prompts: Path, tmp_path: Path) -> None:
    (tmp_path / "id_rsa.txt").write_text("PRIVATE KEY\n")
    (prompts / "innocent.txt").symlink_to(tmp_path / "id_rsa.txt")
    with pytest.raises(CoderError, match="is outside the prompts directory"):
        load_prompts(prompts)


def test_size_is_checked_before_reading(prompts: Path) -> None:
    big = prompts / "big.txt"
    with big.open("wb") as fh:  # sparse: 17 MB on paper, nothing to read if the check works
        fh.truncate(inputs.MAX_PROMPT_BYTES + 1)
    t0 = time.monotonic()
    with pytest.raises(CoderError, match=r"big.txt: 16777217 bytes is more than the 16777216-byte limit"):
        load_prompts(big)
    assert time.monotonic() - t0 < 1


@pytest.mark.server
def test_etc_passwd_never_reaches_server_or_results(tmp_path: Path, demo_server: object) -> None:
    url, key = demo_server.url, demo_server.api_key  # type: ignore[attr-defined]
    prompts = tmp_path / "p.jsonl"
    prompts.write_text(json.dumps({"name": "x", "prompt": "summarise", "class": "full", "file": "/etc/passwd"}) + "\n")
    out_dir = tmp_path / "out"
    proc = run_coder("bench", str(prompts), "--attach", url, "--out", str(out_dir), "--no-plots", cwd=tmp_path,
                     home=tmp_path / "home", env={"CODER_API_KEY": key})
    lines = error_lines(proc)
    assert proc.returncode == 1 and len(lines) == 1 and "/etc/passwd is outside the prompts directory" in lines[0]
    assert not out_dir.exists()
