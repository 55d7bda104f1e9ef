"""Command-line entry points; each command group lives in its own module."""

from __future__ import annotations

import argparse
from typing import TypeAlias

# what ``add_subparsers`` returns; each command module's ``register`` adds its parsers to it
Subparsers: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"

# True when coder.cli.main.main runs: the command owns the whole process (no test calls it in-process),
# so what it imports lives until the exit: coder edit (coder.cli.edit_timing) and the TUI (at its first
# request) freeze it for the collector
WHOLE_PROCESS = False
