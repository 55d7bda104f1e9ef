"""A misbehaving server (the hostile_server TEST DOUBLE) gives one line, no traceback, and the file stays intact."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from cli_helpers import error_lines, run_coder

from coder.backends.runtime.server import ServerAPI
from coder.errors import CoderError
from coder.testing.hostile_server import ESCAPES, hostile_server

SOURCE = "def greet(name):\n    return name\n"
CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


pytestmark = pytest.mark.repo_files({"app.py": SOURCE})


@pytest.fixture
def repo(tmp_repo: Path) -> Path:
    """conftest's ``tmp_repo``, holding ``app.py`` committed."""
    return tmp_repo


def test_escape_sequences_in_a_reply_never_reach_the_terminal(repo: Path, tmp_path: Path) -> None:
    with hostile_server("escapes") as server:
        proc = run_coder("edit", "app.py", "-m", "x", "--mode", "full", "--dry-run", "--attach", server.url,
                         cwd=repo, home=tmp_path / "home", timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert not error_lines(proc)
    assert not CONTROL.search(proc.stdout.replace("\t", "")), repr(proc.stdout)
    assert not CONTROL.search(proc.stderr.replace("\t", "")), repr(proc.stderr)
    # the review shows what would be written: every escape visible, the hidden line there too
    assert "^[]52;c;ZWNobyBoaQ==^G" in proc.stdout and "^[[8m" in proc.stdout
    assert '+    import os; os.system("id")' in proc.stdout
    assert (repo / "app.py").read_text() == SOURCE


def test_coloured_diff_shows_controls_instead_of_sending_them() -> None:
    from coder.cli.edit import _colour_diff

    shown = _colour_diff(f"--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+{ESCAPES}b\n")
    # coder's own colours stay; everything the model sent is caret notation
    assert "\x1b]" not in shown and "\x07" not in shown and "\x1b[8m" not in shown
    assert "^[]0;pwned^G" in shown and "^[[8m" in shown


@pytest.mark.parametrize(("scenario", "call", "expected"), [
    ("slots_html", lambda api: api.slots(), r"/slots answered text/html instead of JSON: <html>"),
    ("slots_junk", lambda api: api.slots(), r"/slots answered a list whose entries are not all objects"),
    ("tokenize_empty", lambda api: api.tokenize("x"), r"/tokenize answered a JSON list where coder expects an"),
    ("props_list", lambda api: api.props(), r"/props answered a JSON list where coder expects an object"),
    ("models_html", lambda api: api.models(), r"/v1/models answered text/html instead of JSON"),
])
def test_each_bad_answer_is_one_line_naming_the_endpoint(scenario: str, call: object, expected: str) -> None:
    with hostile_server(scenario) as server, ServerAPI(server.url, None) as api, \
            pytest.raises(CoderError, match=expected) as err:
        call(api)  # type: ignore[operator]
    assert "\n" not in str(err.value)


def test_metrics_turning_into_html_is_one_line() -> None:
    with hostile_server("metrics_html") as server, ServerAPI(server.url, None) as api:
        assert api.metrics().engine == "llama.cpp"  # the first answer is real exposition text
        with pytest.raises(CoderError, match=r"/metrics answered text/html instead of text"):
            api.metrics()


@pytest.mark.parametrize("scenario", ["slots_html", "slots_junk"])
def test_attach_to_a_broken_server_is_one_line(scenario: str, repo: Path, tmp_path: Path) -> None:
    with hostile_server(scenario) as server:
        proc = run_coder("edit", "app.py", "-m", "x", "--mode", "full", "--dry-run", "--attach", server.url,
                         cwd=repo, home=tmp_path / "home", timeout=120)
    assert proc.returncode == 1
    lines = error_lines(proc)
    assert len(lines) == 1 and "/slots answered" in lines[0], proc.stderr
    assert (repo / "app.py").read_text() == SOURCE


@pytest.mark.parametrize("scenario", ["tokenize_empty", "props_list", "models_html", "metrics_html"])
def test_an_edit_survives_a_bad_side_endpoint(scenario: str, repo: Path, tmp_path: Path) -> None:
    """Token counts, context size and counters are optional: a bad answer there never stops the edit."""
    with hostile_server(scenario) as server:
        proc = run_coder("edit", "app.py", "-m", "x", "--mode", "full", "--dry-run", "--attach", server.url,
                         cwd=repo, home=tmp_path / "home", timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert not error_lines(proc)
    assert "dry run: nothing written" in proc.stderr
    assert (repo / "app.py").read_text() == SOURCE
