"""``coder edit`` with a plan: the steps on stderr, ``--json``'s plan, one commit, ``coder undo``.

The deletion is mechanical (no model request), so the server is the
:class:`coder.testing.replay.ReplayServer` **test double** of a recorded session, which is asked
nothing but what the engine reads at start; everything else is the real path on a frozen CPython
3.11.7 ``shlex.py``.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterator
from pathlib import Path

import git
import pytest
from cli_helpers import make_repo
from ui_support import replay

from coder.cli import edit as edit_cli
from coder.edit.source.splice import rename_tokens

SHLEX = (Path(__file__).parents[1] / "data" / "real_edits" / "shlex.py.txt").read_text()
DELETE = "delete the function _print_tokens and its __main__ block"


def _run(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="coder")
    edit_cli.register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(argv)
    return int(args.func(args))


@pytest.fixture
def shlex_repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    root = tmp_path / "repo"
    make_repo(root, {"shlex.py": SHLEX})
    monkeypatch.chdir(root)
    with replay("edit_greet") as (_, info):
        monkeypatch.setattr(edit_cli, "_find_server", lambda args: info)
        yield root


def test_json_shows_the_plan_and_one_undo_reverts_it(shlex_repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    head = git.Repo(shlex_repo).head.commit.hexsha
    code = _run(["edit", "shlex.py", "-m", DELETE, "--yes", "--json"])
    captured = capsys.readouterr()
    doc = json.loads(captured.out)
    assert code == 0 and doc["ok"] and doc["applied"] and doc["mode"] == "plan"
    assert doc["plan"]["kind"] == "delete" and doc["plan"]["requests"] == 0
    assert [s["how"] for s in doc["steps"]] == ["mechanical"] and doc["retried"] == []
    # a mechanical step sent no request: it has the single edit's fields, each None (a model step's are measured)
    assert {k: doc["steps"][0][k] for k in ("request_class", "k", "ttft", "decode_tps", "acceptance_length")} == \
        dict.fromkeys(("request_class", "k", "ttft", "decode_tps", "acceptance_length"))
    assert "no model request" in captured.err
    # what coder understood, before the diff: in --json and on stderr
    read = "delete function _print_tokens and the __main__ block (cut mechanically)"
    assert (doc["read"], doc["read_by"]) == (read, "grammar")
    assert f"coder: plan: read: {read}\n" in captured.err
    assert "_print_tokens" not in (shlex_repo / "shlex.py").read_text()
    # no chat completion was open while the caller waited for the plan: the wait is the steps' own, not the model's
    phases = doc["timings"]["phases"]
    assert phases["steps"] > 0 and phases.get("request", 0.0) == 0.0
    repo = git.Repo(shlex_repo)
    assert repo.head.commit.parents[0].hexsha == head and doc["commit"] == repo.head.commit.hexsha
    assert _run(["undo"]) == 0
    assert (shlex_repo / "shlex.py").read_text() == SHLEX and repo.head.commit.hexsha == head


def test_dry_run_shows_the_diff_and_writes_nothing(shlex_repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = _run(["edit", "shlex.py", "-m", DELETE, "--dry-run"])
    out, err = capsys.readouterr()
    assert code == 0 and "-def _print_tokens(lexer):" in out and "dry run: nothing written" in err
    assert "shlex.py the __main__ block" in err or "_print_tokens and the __main__ block" in err
    assert (shlex_repo / "shlex.py").read_text() == SHLEX


def test_an_unambiguous_rename_says_it_was_renamed_by_scope_analysis(
        shlex_repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``read_token`` is a method of shlex used as ``self.read_token``: renamed with no model request."""
    code = _run(["edit", "shlex.py", "-m", "rename `read_token` to `next_token`", "--yes", "--json"])
    captured = capsys.readouterr()
    doc = json.loads(captured.out)
    assert code == 0 and doc["ok"] and doc["applied"] and doc["plan"]["requests"] == 0
    assert {s["done_by"] for s in doc["steps"]} == {"renamed mechanically (scope analysis)"}
    assert "(renamed mechanically (scope analysis))" in captured.err
    assert (shlex_repo / "shlex.py").read_text() == rename_tokens(SHLEX, [("read_token", "next_token")])


@pytest.mark.parametrize("wording", [
    "Delete the function _print_tokens and the `if __name__` block at the end of the file",
    "get rid of `_print_tokens` and its __main__ block",
])
def test_other_wordings_get_the_same_mechanical_plan(shlex_repo: Path, capsys: pytest.CaptureFixture[str],
                                                     wording: str) -> None:
    assert _run(["edit", "shlex.py", "-m", wording, "--yes", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["plan"]["kind"] == "delete" and doc["plan"]["requests"] == 0
    assert doc["read"] == "delete function _print_tokens and the __main__ block (cut mechanically)"
    text = (shlex_repo / "shlex.py").read_text()
    assert "_print_tokens" not in text and "__main__" not in text
