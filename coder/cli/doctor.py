"""``coder doctor``: print the checks as a table; exit 1 if any failed."""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict
from pathlib import Path

from rich.console import Console
from rich.table import Table

from coder.cli import Subparsers
from coder.cli.backend import load_profile
from coder.doctor import run_checks
from coder.repo import find_repo_root

MARK = {True: "[green]ok[/]", False: "[red]FAIL[/]", None: "[yellow]–[/]"}


def _doctor(args: argparse.Namespace) -> int:
    checks = run_checks(load_profile(args), find_repo_root(Path.cwd()))
    if args.json:
        print(json.dumps([asdict(c) for c in checks], indent=2))
    else:
        table = Table("check", "verdict", "detail", title="coder doctor")
        for check in checks:
            table.add_row(check.name, MARK[check.ok], check.detail)
        Console().print(table)
    return 1 if any(c.ok is False for c in checks) else 0


def register(sub: Subparsers) -> None:
    """Add this command group's parsers."""
    p = sub.add_parser("doctor", help="check binary, models, compatibility, port, GPU and config")
    p.add_argument("profile", nargs="?", help="profile to check (default: the default profile)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=_doctor)
