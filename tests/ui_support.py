"""Shared by the TUI tests and ``tests/data/ui/record.py``: the scenario repositories and instructions.

The recordings in ``tests/data/ui/`` were made by running exactly these scenarios against the
real llama-server and demo model; the replay test double checks that coder sends the same
prompts again, so the repository built here must match the recording byte for byte.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from cli_helpers import HELLO
from cli_helpers import make_repo as build_repo

from coder.backends.runtime.server import ServerInfo
from coder.testing.replay import HttpRecording, ReplayServer

DATA = Path(__file__).parent / "data" / "ui"

# the 10-line file tests/server/test_edit_server.py pins: the demo model applies this docstring edit today
GREET = (
    "import sys\n"
    "\n"
    "\n"
    "def main():\n"
    "    name = sys.argv[1] if len(sys.argv) > 1 else \"world\"\n"
    "    print(f\"Hello, {name}!\")\n"
    "\n"
    "\n"
    "if __name__ == \"__main__\":\n"
    "    main()\n"
)

GREET_DOCSTRING = "Add a docstring to the function main"

SHAPES = '''import math


def area(radius):
    if radius < 0:
        raise ValueError("negative radius")
    squared = radius * radius
    result = math.pi * squared
    return result


def label(name):
    cleaned = name.strip()
    if not cleaned:
        return "unnamed"
    words = cleaned.split()
    titled = [w.title() for w in words]
    return " ".join(titled)


import os


def home(name):
    return os.path.join("/home", name)
'''

SHAPES_INSTRUCTION = "Add a docstring to the functions area and home"

# n-gram speculation drafts only where the reply repeats text: a copy task, so the recording has drafts
CHAT_QUESTION = ("?Repeat this list exactly, nothing else: "
                 + " ".join(["alpha beta gamma delta epsilon zeta eta theta iota kappa"] * 4))


@dataclass(frozen=True)
class Scenario:
    """One recording: which file gets the instruction, and with what."""

    name: str  # the recording's file stem
    file: str | None
    instruction: str
    max_tokens: int | None = None  # forced by the recording proxy (a real truncated reply)
    profile: str = "demo"  # the built-in profile the recording server ran

    @property
    def files(self) -> tuple[str, ...]:
        """The files of its repository besides hello.py (the prompt lists them)."""
        return (self.file,) if self.file else ()


SCENARIOS = {
    "chat_reply": Scenario("chat_reply", None, CHAT_QUESTION),
    "edit_greet": Scenario("edit_greet", "greet.py", GREET_DOCSTRING),
    "edit_shapes": Scenario("edit_shapes", "shapes.py", SHAPES_INSTRUCTION),
    "edit_truncated": Scenario("edit_truncated", "greet.py", GREET_DOCSTRING, max_tokens=24),
    # a chained pair (ngram-mod, then the model drafting for itself) on coder's build: the reply's
    # timings carry ``draft_by_type``, which speculator drafted how much
    "chat_hybrid": Scenario("chat_hybrid", None, CHAT_QUESTION, profile="demo-hybrid"),
}


CONTENT: dict[str, bytes] = {
    "greet.py": GREET.encode(),
    "shapes.py": SHAPES.encode(),
    "logo.png": b"\x89PNG\r\n\x1a\n\0\0\0binary",
}


def make_repo(parent: Path, *files: str) -> Path:
    """A real git repository ``parent/repo``: hello.py plus ``files`` (default: all of :data:`CONTENT`).

    A scenario's repository must be the recorded one (the prompt lists its files): use
    ``make_repo(tmp, *SCENARIOS[name].files)``.
    """
    root = parent / "repo"
    build_repo(root, {"hello.py": HELLO, **{name: CONTENT[name] for name in files or CONTENT}})
    return root


def load(name: str) -> HttpRecording:
    """A recording of ``tests/data/ui``."""
    return HttpRecording.load(DATA / f"{name}.json")


@contextlib.contextmanager
def replay(name: str, *, rate: float | None = 0.0, strict: bool = True) -> Iterator[tuple[ReplayServer, ServerInfo]]:
    """The ReplayServer test double serving recording ``name``, and a ServerInfo pointing at it."""
    recording = load(name)
    with ReplayServer(recording, rate=rate, strict=strict) as server:
        yield server, recording.server_info(server.url)
