"""Property tests against hostile input: instructions (any bytes), replies (any text, escapes), deep configs.

The properties: never a traceback (only coder's one-line CoderError, as an exit status),
never a write outside the target, never a control character on stdout or stderr. The
server is the hostile_server TEST DOUBLE (coder/testing), the repository and git are real.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from cli_helpers import make_repo
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from coder import config
from coder.cli.main import main
from coder.errors import CoderError
from coder.testing.hostile_server import hostile_server

SETTINGS = settings(max_examples=30, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
TARGET = "def greet(name):\n    return name\n"
OTHER = {"other.py": "x = 1\n", "notes.txt": "keep me\n"}


@pytest.fixture(scope="module")
def server() -> Iterator[object]:
    with hostile_server("custom") as srv:
        yield srv


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("prop") / "repo"
    make_repo(root, {"app.py": TARGET, **OTHER})
    return root


def _files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*")
            if p.is_file() and ".git" not in p.relative_to(root).parts}


def _edit(repo: Path, server: object, instruction: str, capsys: pytest.CaptureFixture[str],
          *extra: str, target: str = "app.py") -> tuple[int, str, str]:
    old = Path.cwd()
    os.chdir(repo)
    try:
        code = main(["edit", target, "-m", instruction, "--mode", "full", "--attach",
                     server.url, *extra])  # type: ignore[attr-defined]
    except SystemExit as exc:  # argparse refuses a command line (`-m --`) as the process would: one line, exit 2
        code = exc.code if isinstance(exc.code, int) else 1
    finally:
        os.chdir(old)
    out, err = capsys.readouterr()
    return code, out, err


def _check_output(out: str, err: str) -> None:
    assert not CONTROL.search(out), repr(out[:300])
    assert not CONTROL.search(err), repr(err[:300])
    assert "Traceback" not in err


@SETTINGS
@given(raw=st.binary(min_size=0, max_size=300))
@example(raw=b"-\x00")  # found 2026-12-04: argparse took it for an option (coder.cli.main.dash_message)
@example(raw=b"--")  # still refused by argparse: the end of options, not an instruction
def test_any_instruction_bytes(repo: Path, server: object, capsys: pytest.CaptureFixture[str], raw: bytes) -> None:
    """``-m`` as the shell passes bytes: decoded with surrogateescape, exactly as Python's argv is."""
    server.reply = f"```python\n{TARGET}```\n"  # type: ignore[attr-defined]
    before = _files(repo)
    code, out, err = _edit(repo, server, os.fsdecode(raw), capsys, "--dry-run")
    assert code in (0, 1, 2), err
    _check_output(out, err)
    assert _files(repo) == before


code_text = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=200)
escapes = st.sampled_from(["\x1b]0;t\x07", "\x1b]52;c;YQ==\x07", "\x1b[8m", "\x9b2J", "\r", "\x00", "\x7f",
                           "\u202e", "\x1b[2K\x1b[1A", "```", "\n", "...", "# rest unchanged",
                           "\udc80"])  # a lone surrogate: JSON carries it, no file can hold it
# an escape inside a comment keeps Python parseable, so the reply reaches the diff and the write
in_comment = escapes.map(lambda e: f"\ndef f():\n    return 1  # {e.replace(chr(10), ' ')}\n")
replies = st.one_of(st.lists(st.one_of(code_text, escapes, in_comment), max_size=12).map("".join),
                    st.lists(in_comment, min_size=1, max_size=4).map("".join))  # parses: reaches the diff


@SETTINGS
@given(body=replies, fenced=st.booleans(), target=st.sampled_from(["app.py", "notes.txt"]))
def test_any_reply(repo: Path, server: object, capsys: pytest.CaptureFixture[str], body: str, fenced: bool,
                   target: str) -> None:
    """Whatever the model sends: the target gets it or stays as it was; nothing else is touched."""
    server.reply = f"```\n{body}\n```\n" if fenced else body  # type: ignore[attr-defined]
    for rel, text in {"app.py": TARGET, **OTHER}.items():
        (repo / rel).write_text(text)
    before = _files(repo)
    code, out, err = _edit(repo, server, "change it", capsys, "--yes", "--no-git", target=target)
    assert code in (0, 1, 2), err
    _check_output(out, err)
    after = _files(repo)
    assert {k: v for k, v in after.items() if k != target} == {k: v for k, v in before.items() if k != target}
    if code != 0:
        assert after[target] == before[target]


@settings(max_examples=40, deadline=None)
@given(depth=st.integers(min_value=1, max_value=3000), kind=st.sampled_from(["array", "table", "mixed"]),
       padding=st.integers(min_value=0, max_value=400_000))
def test_any_nesting_and_size_of_config(tmp_path_factory: pytest.TempPathFactory, depth: int, kind: str,
                                        padding: int) -> None:
    home = tmp_path_factory.mktemp("home")
    old = os.environ.get("CODER_HOME")
    os.environ["CODER_HOME"] = str(home)
    try:
        opens = {"array": "[" * depth, "table": "{a = " * depth, "mixed": "[{a = " * (depth // 2 + 1)}[kind]
        closes = {"array": "]" * depth, "table": "}" * depth, "mixed": "}]" * (depth // 2 + 1)}[kind]
        text = f"# {'x' * padding}\n[profiles.demo]\nk = 3\n\n[junk]\nv = {opens}1{closes}\n"
        path = config.user_config_path()
        path.parent.mkdir(parents=True)
        path.write_text(text)
        try:
            config.load(None)
        except CoderError as exc:
            assert "\n" not in str(exc)
    finally:
        if old is None:
            os.environ.pop("CODER_HOME", None)
        else:
            os.environ["CODER_HOME"] = old
