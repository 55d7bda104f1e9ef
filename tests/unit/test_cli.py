"""The coder command itself: --version, --help with examples, subcommand help, doctor."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from coder import __version__


def _coder(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "coder", *args], capture_output=True, text=True, timeout=300,
                          env=os.environ.copy())


def test_version() -> None:
    out = _coder("--version")
    assert out.returncode == 0 and out.stdout.strip() == f"coder {__version__}"


@pytest.mark.parametrize("args", [["--help"], ["backend", "--help"], ["edit", "--help"], ["bench", "--help"],
                                  ["model", "--help"], ["doctor", "--help"]])
def test_help_has_examples(args: list[str]) -> None:
    out = _coder(*args)
    assert out.returncode == 0, out.stderr
    assert "usage: coder" in out.stdout
    if args[0] in ("--help", "backend"):
        assert "examples:" in out.stdout


@pytest.mark.server
def test_doctor_reports_a_verdict_per_line(demo_server) -> None:  # type: ignore[no-untyped-def]
    out = _coder("doctor", "demo", "--json")
    checks = {c["name"]: c for c in json.loads(out.stdout)}
    assert checks["binary"]["ok"] is True and "draft-cap-v1" in checks["binary"]["detail"]
    assert checks["spec type"]["ok"] is True
    assert checks["target model"]["ok"] is True and "llama" in checks["target model"]["detail"]
    assert checks["server"]["ok"] is True
    assert out.returncode == 0
