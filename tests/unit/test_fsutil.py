"""atomic_write (mode bits, no leftovers, one-line errors) and LogFollower (growth, partial lines,
rotation, a file that appears later, stop) on real files."""

from __future__ import annotations

import os
import stat
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from coder.errors import CoderError
from coder.fsutil import LogFollower, atomic_write


def test_atomic_write_keeps_mode_bits_and_leaves_no_temp(tmp_path: Path) -> None:
    target = tmp_path / "run.sh"
    target.write_text("old\n")
    os.chmod(target, 0o750)
    atomic_write(target, "new\n")
    assert target.read_text() == "new\n" and stat.S_IMODE(target.stat().st_mode) == 0o750
    atomic_write(tmp_path / "fresh.json", b"{}")
    assert stat.S_IMODE((tmp_path / "fresh.json").stat().st_mode) == 0o644
    atomic_write(tmp_path / "key.json", "{}", mode=0o600)
    assert stat.S_IMODE((tmp_path / "key.json").stat().st_mode) == 0o600
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fresh.json", "key.json", "run.sh"]


def test_atomic_write_failure_is_one_line_and_keeps_the_old_file(tmp_path: Path) -> None:
    target = tmp_path / "dir-in-the-way"
    target.mkdir()
    (target / "x").write_text("keep")
    with pytest.raises(CoderError, match="write failed"):
        atomic_write(target, "data")  # cannot replace a non-empty directory
    assert (target / "x").read_text() == "keep"
    assert [p.name for p in tmp_path.iterdir()] == ["dir-in-the-way"]
    with pytest.raises(CoderError, match="cannot write in"):
        atomic_write(tmp_path / "missing" / "f.txt", "data")


def _collect(path: Path, from_start: bool = True) -> tuple[LogFollower, list[str], threading.Event]:
    lines: list[str] = []
    got = threading.Event()

    def on_lines(new: list[str]) -> None:
        lines.extend(new)
        got.set()

    return LogFollower(path, on_lines, interval=0.02, from_start=from_start).start(), lines, got


def _wait(pred: Callable[[], bool], timeout: float = 5.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if pred():
            return True
        time.sleep(0.02)
    return False


def test_log_follower_reads_growth_partial_lines_and_rotation(tmp_path: Path) -> None:
    log = tmp_path / "server.log"
    follower, lines, _ = _collect(log)  # the file does not exist yet
    try:
        time.sleep(0.1)
        log.write_text("one\ntw")
        assert _wait(lambda: lines == ["one"])
        with log.open("a") as fh:
            fh.write("o\nthree\n")
        assert _wait(lambda: lines == ["one", "two", "three"])
        rotated = tmp_path / "server.log.new"
        rotated.write_text("after restart\n")
        rotated.replace(log)  # a relaunch replaces the log: read the new file from its start
        assert _wait(lambda: lines[-1:] == ["after restart"])
    finally:
        follower.stop()
    assert follower.stopped


def test_log_follower_from_end_skips_existing_text(tmp_path: Path) -> None:
    log = tmp_path / "server.log"
    log.write_text("old line\n")
    follower, lines, _ = _collect(log, from_start=False)
    try:
        time.sleep(0.1)
        with log.open("a") as fh:
            fh.write("new line\n")
        assert _wait(lambda: lines == ["new line"])
    finally:
        follower.stop()
