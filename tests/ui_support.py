"""Shared by the TUI tests and ``tests/data/ui/record.py``: the scenario repositories and instructions.

The recordings in ``tests/data/ui/`` were made by running exactly these scenarios against the
real llama-server and demo model; the replay test double checks that coder sends the same
prompts again, so the repository built here must match the recording byte for byte.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import git

DATA = Path(__file__).parent / "data" / "ui"

GREET = '''import sys


def greet(name):
    return "Hello, " + name + "!"


def main():
    print(greet(sys.argv[1] if len(sys.argv) > 1 else "world"))
'''

GREET_DOCSTRING = "Add a docstring to the function main"

SHAPES = '''import math


def area(radius):
    return math.pi * radius * radius


def label(name):
    return name.strip().title()


def circumference(radius):
    return 2 * math.pi * radius


def describe(name, radius):
    return label(name) + ": " + str(area(radius))
'''

SHAPES_INSTRUCTION = "Add a one-line docstring to the functions area and describe"

CHAT_QUESTION = "?How do I read a text file in Python? Answer in one short code block."


@dataclass(frozen=True)
class Scenario:
    """One recording: which file gets the instruction, and with what."""

    name: str  # the recording's file stem
    file: str | None
    instruction: str
    max_tokens: int | None = None  # forced by the recording proxy (a real truncated reply)


SCENARIOS = {
    "chat_reply": Scenario("chat_reply", None, CHAT_QUESTION),
    "edit_greet": Scenario("edit_greet", "greet.py", GREET_DOCSTRING),
    "edit_shapes": Scenario("edit_shapes", "shapes.py", SHAPES_INSTRUCTION),
    "edit_truncated": Scenario("edit_truncated", "greet.py", GREET_DOCSTRING, max_tokens=24),
}


def make_repo(parent: Path) -> Path:
    """A real git repository ``parent/repo`` with hello.py, greet.py, shapes.py and a binary file."""
    root = parent / "repo"
    root.mkdir()
    repo = git.Repo.init(root)
    with repo.config_writer() as cfg:
        cfg.set_value("user", "name", "Test User")
        cfg.set_value("user", "email", "test@example.com")
    (root / "hello.py").write_text('def greet(name):\n    return f"hello {name}"\n')
    (root / "greet.py").write_text(GREET)
    (root / "shapes.py").write_text(SHAPES)
    (root / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\0\0\0binary")
    repo.index.add(["hello.py", "greet.py", "shapes.py", "logo.png"])
    repo.index.commit("initial")
    return root
