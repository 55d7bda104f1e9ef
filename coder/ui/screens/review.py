"""Edit review: the proposed diff, hunk by hunk, with accept / reject (also used read-only for /diff)."""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

from coder.ui.widgets.review.diff_view import DiffView
from coder.ui.widgets.status.footer import KeyFooter


class ReviewScreen(ModalScreen[bool]):
    """Dismisses with True (accept) or False (reject / close)."""

    CSS_PATH = "review.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("a,y", "accept", "accept"),
        Binding("r,x", "reject", "reject"),
        Binding("escape", "reject", "close"),
    ]

    def __init__(self, diff: str, path: str, *, reviewing: bool = True, flagged: list[bool] | None = None,
                 unexplained: str = "", checked: str = "") -> None:
        super().__init__()
        self.diff = diff
        self.path = path
        self.reviewing = reviewing
        self.flagged = flagged  # per hunk: not explained by the instruction (coder.edit.checks.explained)
        self.unexplained = unexplained  # the one line naming them, shown above the diff
        self.checked = checked  # what the user's test/lint commands said of the proposal (checks.user_commands)

    def compose(self) -> ComposeResult:
        """The diff with its +/- counts as the title, and the key bar."""
        from coder.edit.apply.files import diff_stat  # the edit package pulls in openai: load it only here

        added, removed = diff_stat(self.diff)
        with Vertical(id="review") as box:
            box.border_title = (f"Review edit of {self.path}: +{added} −{removed}" if self.reviewing
                                else f"Uncommitted changes: +{added} −{removed}")
            if self.unexplained:
                yield Static(f"!! {self.unexplained}", id="review-unexplained")
            if self.checked:
                yield Static(f"✓ {self.checked}", id="review-checks", markup=False)
            yield DiffView(self.diff, self.path or "diff.txt", id="review-diff", flagged=self.flagged)
            yield Static("", id="review-bar")
        yield KeyFooter()

    def on_mount(self) -> None:
        """Focus the diff."""
        view = self.query_one(DiffView)
        view.focus()
        self._bar(view.hunk_label)

    def _bar(self, label: str) -> None:
        keys = "a accept · r reject" if self.reviewing else "escape close"
        flag = " !! not explained by the instruction" if self.query_one(DiffView).current_flagged else ""
        self.query_one("#review-bar", Static).update(f"{label}{flag} · n/p next/previous hunk · {keys}")

    @on(DiffView.HunkChanged)
    def _hunk(self, message: DiffView.HunkChanged) -> None:
        self._bar(message.label)

    def action_accept(self) -> None:
        """a: accept the edit."""
        if self.reviewing:
            self.dismiss(True)

    def action_reject(self) -> None:
        """r / escape: reject (or close the read-only view)."""
        self.dismiss(False)
