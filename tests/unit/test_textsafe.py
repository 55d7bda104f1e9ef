"""One sanitiser for everything coder prints: controls, bidi marks and invisible code points are shown."""

from __future__ import annotations

import re
import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest
from cli_helpers import error_lines, make_repo, run_coder

from coder.testing.hostile_server import hostile_server
from coder.textsafe import added_hidden, has_controls, visible

INVISIBLE = ["\u200b", "\u200c", "\u200d", "\u200e", "\u200f", "\u061c", "\u2060", "\u2066", "\u202e",
             "\U000e0041", "\U000e007f", "\U000e0001", "\u3164", "\u115f", "\u1160", "\uffa0", "\ufeff",
             "\u00ad", "\u034f", "\ufe0f", "\U000e0100", "\u2028", "\u2029", "\ue000", "\U000f0000"]
# what must never reach a terminal raw: C0/C1, DEL and the code points of INVISIBLE
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f" + "".join(INVISIBLE) + "]")


def test_every_format_control_and_invisible_code_point_is_shown() -> None:
    categories = {"Cc", "Cf", "Co", "Cs", "Zl", "Zp"}
    missed = [f"U+{c:04X}" for c in range(sys.maxunicode + 1)
              if unicodedata.category(chr(c)) in categories and c not in (9, 10) and not has_controls(chr(c))]
    assert missed == []
    for char in INVISIBLE:
        shown = visible(f"a{char}b")
        assert shown == f"a<U+{ord(char):04X}>b", (hex(ord(char)), shown)
    assert visible('return user == "admin\u200b"') == 'return user == "admin<U+200B>"'
    assert visible("tab\tand\nnewline stay, é and 日本 too") == "tab\tand\nnewline stay, é and 日本 too"


def test_added_hidden_names_only_what_the_new_text_adds() -> None:
    assert added_hidden("x = 1\n", "x = 1\n") == []
    assert added_hidden("a\u200bb", "a\u200bb") == []  # already in the file: not the reply's doing
    assert added_hidden("a", "a\u200b\u200b\U000e0073") == ["U+200B ZERO WIDTH SPACE x2",
                                                           "U+E0073 TAG LATIN SMALL LETTER S x1"]


ORIGINAL = 'def check(user):\n    return user == "admin"\n'
HIDDEN_REPLY = ('```python\ndef check(user):\n    # \U000e006f\U000e0073\U000e002e\U000e0073\U000e0079\n'
                '    return user == "admin\u200b"\n```\n')


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    make_repo(root, {"auth.py": ORIGINAL})
    return root


def test_yes_refuses_a_reply_that_adds_invisible_code_points(repo: Path, tmp_path: Path) -> None:
    with hostile_server("custom") as server:
        server.reply = HIDDEN_REPLY
        proc = run_coder("edit", "auth.py", "-m", "compare the user", "--mode", "full", "--yes",
                         "--attach", server.url, cwd=repo, home=tmp_path / "home", timeout=120)
        assert proc.returncode == 2, proc.stderr
        assert (repo / "auth.py").read_text() == ORIGINAL
        line = error_lines(proc)[-1]
        assert "not applied under --yes" in line and "U+200B ZERO WIDTH SPACE" in line and "U+E006F" in line
        assert '"admin<U+200B>"' in proc.stdout and "<U+E006F>" in proc.stdout  # the diff shows them
        assert not RAW.search(proc.stdout + proc.stderr)
        forced = run_coder("edit", "auth.py", "-m", "compare the user", "--mode", "full", "--yes",
                           "--allow-unexplained", "--attach", server.url, cwd=repo, home=tmp_path / "home",
                           timeout=120)
    assert forced.returncode == 0, forced.stderr
    assert "warning: the reply adds invisible" in forced.stderr
    assert (repo / "auth.py").read_text() == HIDDEN_REPLY.split("\n", 1)[1].rsplit("```", 1)[0]


def test_a_hostile_file_name_reaches_the_terminal_visible(tmp_path: Path) -> None:
    name = "\x1b]0;PWNED\x07\x1b[2J\u202e ev.py"
    root = tmp_path / "repo"
    make_repo(root, {name: "def greet(name):\n    return name\n"})
    home = tmp_path / "home"
    with hostile_server("custom") as server:
        server.reply = "```python\ndef greet(name):\n    return name.upper()\n```\n"
        edit = run_coder("edit", name, "-m", "make `greet` return the name in upper case", "--mode", "full", "--yes",
                         "--attach", server.url, cwd=root, home=home, timeout=120)
    assert edit.returncode == 0, edit.stderr
    assert (root / name).read_text().endswith("name.upper()\n")
    undo = run_coder("undo", cwd=root, home=home)
    assert undo.returncode == 0, undo.stderr
    assert "restored ^[]0;PWNED^G^[[2J<U+202E> ev.py" in undo.stdout
    for proc in (edit, undo):
        assert not RAW.search(proc.stdout + proc.stderr), repr(proc.stdout + proc.stderr)
    assert "^[]0;PWNED^G" in edit.stderr
    log = subprocess.run(["git", "log", "--format=%s"], cwd=root, capture_output=True, text=True).stdout
    assert log.splitlines()[0] == "initial"  # undone: HEAD is the commit the repository started with


def test_trust_show_makes_profile_names_visible(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    make_repo(root, {".coder.toml": '[profiles."a\\u202eb"]\nhost = "127.0.0.1"\n'})
    proc = run_coder("trust", "--show", cwd=root, home=tmp_path / "home")
    assert not RAW.search(proc.stdout + proc.stderr), repr(proc.stdout + proc.stderr)
