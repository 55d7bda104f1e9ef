"""One task of ``coder bench --edits``: a request on one or more shipped files, and how it is judged."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources

from coder.bench.edits.checks import Check


def source(file: str) -> str:
    """The shipped original text of ``file`` (``tomllib/_re.py`` is shipped as ``files/tomllib/_re.py.txt``)."""
    node = resources.files("coder.bench.edits") / "files"
    for part in f"{file}.txt".split("/"):
        node = node / part
    return node.read_text(encoding="utf-8")


@dataclass(frozen=True)
class Task:
    """One edit request, with how a correct result is recognised.

    A cross-file task names its other files in ``also``, each with its own check; the request is
    made on ``file`` with the others as context, and every file is judged.

    ``wordings`` are the same request written the ways users write it: the first spells every name
    in backticks, the second in plain lowercase prose, the rest with another verb, word order or
    preposition. One check judges them all, so it must judge the result, never the wording.
    """

    name: str
    file: str  # a file under files/ (``shlex.py``; shipped as ``shlex.py.txt``; ``bugs/…``: a copy with a bug put in)
    kind: str  # rename, docstring, param, comment, constant, hints, delete, move, callers, ...
    wordings: tuple[str, ...]
    check: Check
    symbol: str | None = None  # the region for --mode region (None: the edit spans the file)
    lines: str | None = None  # or a line range for --mode region
    also: tuple[tuple[str, Check], ...] = ()  # the other files of a cross-file task, each checked

    @property
    def instruction(self) -> str:
        """The first wording (every name in backticks): the one Aider and the older tests send."""
        return self.wordings[0]

    @property
    def has_region(self) -> bool:
        """True when the task can run in region mode."""
        return bool(self.symbol or self.lines)

    @property
    def files(self) -> tuple[str, ...]:
        """Every file the task touches, the one the request names first."""
        return (self.file, *(f for f, _ in self.also))

    @property
    def cross_file(self) -> bool:
        """True when the edit spans more than one file."""
        return bool(self.also)

    def judge(self, old: Mapping[str, str], new: Mapping[str, str]) -> tuple[bool, str]:
        """Every file's check on its new text (a missing file is empty); the first failure's reason."""
        why = ""
        for rel, check in ((self.file, self.check), *self.also):
            ok, why = check(old[rel], new.get(rel, ""))
            if not ok:
                return False, f"{rel}: {why}" if self.also else why
        return True, "every file is right" if self.also else why

    def originals(self) -> dict[str, str]:
        """The shipped text of every file of the task."""
        return {rel: source(rel) for rel in self.files}
