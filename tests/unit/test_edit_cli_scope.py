"""``coder edit --yes`` on a real recorded drift reply: refused with one line, file and history untouched.

The reply is real SmolLM2 output recorded from llama-server (tests/data/ui/edit_shapes.json),
served by the :class:`coder.session.replay.ReplayServer` **test double**. Asked only to add
docstrings to ``area`` and ``home``, the model deleted ``import os`` (still used on line 25) and
rewrote ``area``'s tail; the reply is complete, not elided and parses, but the new file uses ``os``
where nothing defines it, so the result check refuses it (even under ``--allow-unexplained``).

``--attach`` probes ``/slots``, which the recording does not hold, so the CLI is handed the
replay's ServerInfo directly (``_find_server`` replaced); everything after that is the real path.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import git
import pytest
from cli_helpers import run_edit_cli
from ui_support import SCENARIOS, SHAPES, SHAPES_INSTRUCTION, make_repo, replay

from coder.cli import edit as edit_cli


@pytest.fixture
def shapes_repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    root = make_repo(tmp_path, *SCENARIOS["edit_shapes"].files)  # the recorded repository (the prompt lists it)
    monkeypatch.chdir(root)
    with replay("edit_shapes") as (_, info):
        monkeypatch.setattr(edit_cli, "_find_server", lambda args: info)
        yield root


def test_yes_refuses_unexplained_changes(shapes_repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    head = git.Repo(shapes_repo).head.commit.hexsha
    code = run_edit_cli(["edit", "shapes.py", "-m", SHAPES_INSTRUCTION, "--mode", "full", "--yes"])
    err = capsys.readouterr().err
    assert code == 2
    (line,) = [x for x in err.splitlines() if x.startswith("coder: error:")]
    # os is still used on line 18 of the proposal: the deletion breaks the code, whatever the scope says
    assert line == ("coder: error: edit refused: the edited file uses names nothing defines: os (line 18); "
                    "shapes.py untouched")
    assert (shapes_repo / "shapes.py").read_text() == SHAPES
    assert git.Repo(shapes_repo).head.commit.hexsha == head


def test_json_lists_them(shapes_repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = run_edit_cli(["edit", "shapes.py", "-m", SHAPES_INSTRUCTION, "--mode", "full", "--yes", "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert code == 2 and doc["applied"] is False and doc["ok"] is False
    assert doc["refusal_code"] == "undefined" and "os (line 18)" in doc["refusal"]
    # what coder understood, before the diff (plain lowercase names, resolved against the file)
    assert (doc["read"], doc["read_by"]) == ("docstrings function area, function home (full rewrite)", "grammar")
    assert (shapes_repo / "shapes.py").read_text() == SHAPES


def test_allow_unexplained_does_not_apply_broken_code(shapes_repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = run_edit_cli(["edit", "shapes.py", "-m", SHAPES_INSTRUCTION, "--mode", "full", "--yes",
                         "--allow-unexplained"])
    assert code == 2 and "names nothing defines: os" in capsys.readouterr().err
    assert (shapes_repo / "shapes.py").read_text() == SHAPES
