"""Line endings are kept line by line: a mixed CRLF/LF file stays mixed, and a reply's own CR shows."""

from __future__ import annotations

import subprocess
from pathlib import Path

from cli_helpers import make_repo, run_coder

from coder.edit.apply.files import read_snapshot, write_edit
from coder.testing.hostile_server import hostile_server

MIXED = b"def a():\r\n    return 1\n\r\ndef b():\n    return 2\r\n\ndef c():\r\n    return 3\n"


def test_an_edit_keeps_every_untouched_lines_ending(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    path.write_bytes(MIXED)
    snap = read_snapshot(tmp_path, path)
    assert "\r" not in snap.text
    write_edit(snap, snap.text.replace("return 2", "return 20").replace("def c():\n", "def c():\n    pass\n"))
    assert path.read_bytes() == MIXED.replace(b"return 2", b"return 20").replace(
        b"def c():\r\n", b"def c():\r\n    pass\r\n")  # the new line takes its neighbour's ending
    snap = read_snapshot(tmp_path, path)
    write_edit(snap, snap.text)
    assert path.read_bytes() == MIXED.replace(b"return 2", b"return 20").replace(
        b"def c():\r\n", b"def c():\r\n    pass\r\n")


def test_the_commit_of_a_one_line_edit_to_a_mixed_file_is_one_line(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    make_repo(root, {"m.py": MIXED})
    with hostile_server("custom") as server:
        server.reply = "```python\n" + MIXED.decode().replace("\r\n", "\n").replace("return 2", "return 20") + "```\n"
        proc = run_coder("edit", "m.py", "-m", "make `b` return 20", "--mode", "full", "--yes",
                         "--attach", server.url, cwd=root, home=tmp_path / "home", timeout=120)
        assert proc.returncode == 0, proc.stderr
        assert "+1 -1 lines" in proc.stderr
        numstat = subprocess.run(["git", "diff", "--numstat", "HEAD~1", "HEAD"], cwd=root, capture_output=True,
                                 text=True).stdout
        assert numstat.split() == ["1", "1", "m.py"]
        assert (root / "m.py").read_bytes() == MIXED.replace(b"return 2", b"return 20")
        # a reply that itself writes CRLF where the file has LF: the diff shows the CR, --yes refuses it
        server.reply = "```python\n" + MIXED.decode().replace("\r\n", "\n").replace(
            "return 20", "return 2").replace("    return 1\n", "    return 1\r\n") + "```\n"
        changed = run_coder("edit", "m.py", "-m", "make `b` return 2", "--mode", "full", "--yes",
                            "--attach", server.url, cwd=root, home=tmp_path / "home", timeout=120)
    assert changed.returncode == 2
    assert "+    return 1^M" in changed.stdout and "U+000D CARRIAGE RETURN" in changed.stderr
    assert (root / "m.py").read_bytes() == MIXED.replace(b"return 2", b"return 20")
