"""One line at the bottom: which backend answers, with what model and drafter, and whether it is verified."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from rich.text import Text
from textual.widgets import Static

if TYPE_CHECKING:
    from coder.backends.runtime.server import ServerInfo


def describe(info: ServerInfo | None, state: str = "") -> Text:
    """One line: engine, model, drafter and k, verification, managed or attached."""
    text = Text(no_wrap=True, overflow="ellipsis")
    if info is None:
        text.append(" no backend ", style="reverse")
        text.append(f"  {state or 'type /backend or press ctrl+b to start or attach one'}")
        return text
    text.append(f" {info.engine} ", style="reverse")
    text.append(f"  model {_short(info.model)}")
    if info.spec_type and info.spec_type != "none":
        drafter = _short(info.drafter) if info.drafter else info.spec_type
        if "," in info.spec_type:  # a chain: every speculator, in the order they are asked
            text.append(f" · spec {info.spec_type.replace(',', ' → ')}")
        text.append(f" · drafter {drafter} · k {info.k if info.k is not None else '?'}")
        if info.draft_cap:
            text.append(" (per-request cap)")
    else:
        text.append(" · no speculation")
    text.append(" · verified ")
    if info.verified:
        text.append("yes", style="bold green")
    elif info.verified is None:
        text.append("not checked", style="yellow")
    else:
        text.append("NO", style="bold red")
    text.append(" · managed" if info.managed else " · attached")
    if state:
        text.append(f" · {state}")
    return text


def _short(path: str | None) -> str:
    return Path(path).name if path else "?"


class BackendBar(Static):
    """The footer line describing the live backend (updated by the main screen's watch on app.server)."""

    DEFAULT_CSS = """
    BackendBar { height: 1; background: $panel; color: $foreground; }
    """

    def show(self, info: ServerInfo | None, state: str = "") -> None:
        """Describe ``info``."""
        self.update(describe(info, state))
