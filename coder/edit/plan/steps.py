"""A plan's data: the steps (regions of files and what happens to each) and the plan that holds them.

Plain data, shared by the planners (:mod:`coder.edit.plan.derive` and the modules beside it).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from coder.edit.intent.spec import ChangeSpec

WINDOW_MIN_LINES = 200  # a whole-file rewrite of a longer Python file goes in windows
RENAMED_BY_SCOPE = "renamed mechanically (scope analysis)"
ASKED_MODEL = "asked the model"
_DONE = {"delete": "cut mechanically", "move": "cut and pasted mechanically"}  # else "done mechanically"


@dataclass(frozen=True)
class Step:
    """One region of one file and what happens to it."""

    rel: str
    start: int  # lines of the original file, 1-based, inclusive (an insertion: end == start - 1)
    end: int
    label: str  # "function split", "lines 10-14"
    why: str  # "uses tokenize", "calls fetch", "window 2 of 4"
    how: str = "model"  # "model" | "mechanical"
    symbol: str | None = None  # the qualified def/class name when the region is exactly one
    text: str | None = None  # a mechanical step's replacement text
    note: str = ""  # added to the instruction for this region (what to keep, where it sits)
    ask: str = ""  # when set, this region's whole instruction instead of the user's (a rename's region)
    # the ask is part of the user's words (an add-parameter def's, without the calls coder writes): the plan's
    # reading holds for it, not one of the ask alone
    ask_read: bool = False

    @property
    def lines(self) -> str:
        """``A-B`` for ``--lines``."""
        return f"{self.start}-{self.end}"

    def done_by(self, kind: str) -> str:
        """How this step of a ``kind`` plan is carried out, in words (the review, ``--json``, the TUI)."""
        if self.how == "model":
            return ASKED_MODEL
        return RENAMED_BY_SCOPE if kind == "rename" else "done mechanically"


@dataclass(frozen=True)
class Plan:
    """The regions an instruction touches, over one file or several."""

    # "rename", "delete", "move", "add_param", "add_method", "hints", "comment", "docstrings", "default", "extract",
    # "windows"
    kind: str
    instruction: str
    steps: tuple[Step, ...]
    reason: str
    renames: tuple[tuple[str, str], ...] = ()
    notes: tuple[str, ...] = field(default=())
    adds: tuple[str, str] | None = None  # add_method: (the class, the new method's name or "")
    spec: ChangeSpec | None = None  # the instruction as read (shown in the notes and ``--json``)

    @property
    def how(self) -> str:
        """How the plan carries the change out, in words: ``cut mechanically``, ``2 region(s) to the model``."""
        asks = f"{self.requests} region(s) to the model"
        if self.kind == "rename":
            return RENAMED_BY_SCOPE if self.requests == 0 else asks
        if self.kind in ("hints", "comment") or (self.kind == "docstrings" and not self.requests):
            return f"the {'types' if self.kind == 'hints' else 'words'} named by the model, written mechanically"
        if self.kind in ("delete", "move", "default", "extract"):
            done = _DONE.get(self.kind, "done mechanically")
            return f"{done}, {asks}" if self.requests else done
        mechanical = len(self.steps) - self.requests  # an add-parameter plan's callers, when the calls are spelled
        return f"{asks}, {mechanical} done mechanically" if mechanical else asks

    @property
    def read(self) -> str:
        """The spec in words with how the plan carries it out: ``delete method C.m (cut mechanically)``."""
        if self.spec is None:
            return ""
        from coder.edit.intent.describe import describe

        return describe(self.spec, self.how)

    @property
    def files(self) -> list[str]:
        """The files the plan touches, in order."""
        return list(dict.fromkeys(s.rel for s in self.steps))

    @property
    def requests(self) -> int:
        """Model requests the plan sends (mechanical steps send none)."""
        return sum(1 for s in self.steps if s.how == "model")

    def to_json(self) -> dict[str, object]:
        """The ``--json`` form."""
        return {"kind": self.kind, "reason": self.reason, "requests": self.requests, "files": self.files,
                "notes": list(self.notes), "read": self.read,
                "read_by": self.spec.read_by if self.spec is not None else None,
                "steps": [{"path": s.rel, "lines": [s.start, s.end], "label": s.label, "why": s.why,
                           "how": s.how, "done_by": s.done_by(self.kind)} for s in self.steps]}
