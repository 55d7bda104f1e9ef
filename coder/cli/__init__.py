"""Command-line entry points; each command group lives in its own module."""

from __future__ import annotations

import argparse
from typing import TypeAlias

# what ``add_subparsers`` returns; each command module's ``register`` adds its parsers to it
Subparsers: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"
