"""The message input: @file completion (fuzzy over tracked files) and /command completion."""

from __future__ import annotations

import re
from typing import ClassVar

from textual.binding import Binding, BindingType
from textual.message import Message
from textual.suggester import Suggester
from textual.widgets import Input

from coder.ui.commands import COMMANDS
from coder.ui.context import fuzzy_rank

_LAST_MENTION = re.compile(r"(?:^|\s)@([^\s@]*)$")


class CommandSuggester(Suggester):
    """Inline (ghost text) completion for ``/commands`` and prefix-matching ``@paths``."""

    def __init__(self, prompt: PromptInput) -> None:
        super().__init__(use_cache=False, case_sensitive=True)
        self.prompt = prompt

    async def get_suggestion(self, value: str) -> str | None:
        if value.startswith("/") and " " not in value:
            for name in COMMANDS:
                if ("/" + name).startswith(value) and len(name) + 1 > len(value):
                    return "/" + name
            return None
        match = _LAST_MENTION.search(value)
        if match and match.group(1):
            token = match.group(1)
            for path in fuzzy_rank(token, self.prompt.files, limit=8):
                if path.startswith(token) and path != token:
                    return value + path[len(token):]
        return None


class PromptInput(Input):
    """Single-line prompt; tab completes the @mention under the cursor (repeat to cycle)."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("tab", "complete", "complete", show=False, priority=True)]

    class Matches(Message):
        """The fuzzy matches for the @mention being typed (empty: hide the menu)."""

        def __init__(self, prompt: PromptInput, token: str | None, matches: list[str]) -> None:
            super().__init__()
            self.prompt = prompt
            self.token = token
            self.matches = matches

        @property
        def control(self) -> PromptInput:
            return self.prompt

    def __init__(self, *, id: str | None = None, placeholder: str = "") -> None:
        super().__init__(id=id, placeholder=placeholder)
        self.suggester = CommandSuggester(self)
        self.files: list[str] = []
        self._cycle: tuple[str, list[str], int] | None = None  # (prefix, matches, index)

    def current_matches(self) -> tuple[str | None, list[str]]:
        match = _LAST_MENTION.search(self.value)
        if not match:
            return None, []
        token = match.group(1)
        return token, fuzzy_rank(token, self.files, limit=8)

    def _watch_value(self, value: str) -> None:
        super()._watch_value(value)
        if self._cycle is None or not value.startswith(self._cycle[0]):
            self._cycle = None
            token, matches = self.current_matches()
            self.post_message(self.Matches(self, token, matches if token is not None else []))

    def action_complete(self) -> None:
        if self._cycle is not None:
            prefix, matches, index = self._cycle
            index = (index + 1) % len(matches)
            self._cycle = (prefix, matches, index)
            self.value = prefix + matches[index] + " "
            self.cursor_position = len(self.value)
            return
        token, matches = self.current_matches()
        if token is not None and matches:
            prefix = self.value[: len(self.value) - len(token)]
            self._cycle = (prefix, matches, 0)
            self.value = prefix + matches[0] + " "
            self.cursor_position = len(self.value)
            return
        if self._suggestion:
            self.value = self._suggestion
            self.cursor_position = len(self.value)
            return
        self.screen.focus_next()
