"""The message input: @file completion (fuzzy over tracked files, ``textual.fuzzy.Matcher``) and /commands."""

from __future__ import annotations

import re
from typing import ClassVar

from textual import on
from textual.binding import Binding, BindingType
from textual.fuzzy import Matcher
from textual.message import Message
from textual.suggester import Suggester
from textual.widgets import Input

from coder.session.commands import COMMANDS

_LAST_MENTION = re.compile(r"(?:^|\s)@([^\s@]*)$")
MAX_MATCHES = 8


def rank_files(query: str, files: list[str], limit: int = MAX_MATCHES) -> list[str]:
    """Tracked files matching ``query`` best first (Textual's fuzzy matcher; ties: shorter path)."""
    if not query:
        return files[:limit]
    matcher = Matcher(query)
    scored = [(score, path) for path in files if (score := matcher.match(path)) > 0]
    scored.sort(key=lambda sp: (-sp[0], len(sp[1]), sp[1]))
    return [path for _, path in scored[:limit]]


def suggestion(value: str, files: list[str]) -> str | None:
    """Inline completion of ``value``: the ``/command`` it starts, or the @path it is a prefix of."""
    if value.startswith("/") and " " not in value:
        for name in COMMANDS:
            if ("/" + name).startswith(value) and len(name) + 1 > len(value):
                return "/" + name
        return None
    match = _LAST_MENTION.search(value)
    if match and match.group(1):
        token = match.group(1)
        for path in rank_files(token, files):
            if path.startswith(token) and path != token:
                return value + path[len(token):]
    return None


class CommandSuggester(Suggester):
    """Ghost-text completion for ``/commands`` and prefix-matching ``@paths``."""

    def __init__(self, prompt: PromptInput) -> None:
        super().__init__(use_cache=False, case_sensitive=True)
        self.prompt = prompt

    async def get_suggestion(self, value: str) -> str | None:
        """See :func:`suggestion`."""
        return suggestion(value, self.prompt.files)


class PromptInput(Input):
    """Single-line prompt; tab completes the @mention under the cursor (repeat to cycle)."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("tab", "complete", "complete", show=False, priority=True)]

    class Matches(Message):
        """The fuzzy matches for the @mention being typed (token None: hide the menu)."""

        def __init__(self, prompt: PromptInput, token: str | None, matches: list[str]) -> None:
            super().__init__()
            self.prompt = prompt
            self.token = token
            self.matches = matches

        @property
        def control(self) -> PromptInput:
            """The prompt that posted it (for ``@on`` selectors)."""
            return self.prompt

    def __init__(self, *, id: str | None = None, placeholder: str = "") -> None:
        super().__init__(id=id, placeholder=placeholder)
        self.suggester = CommandSuggester(self)
        self.files: list[str] = []
        self._cycle: tuple[str, list[str], int] | None = None  # (prefix, matches, index)

    def current_matches(self) -> tuple[str | None, list[str]]:
        """The @mention token at the end of the value and its matches (None: no mention there)."""
        match = _LAST_MENTION.search(self.value)
        if not match:
            return None, []
        token = match.group(1)
        return token, rank_files(token, self.files)

    @on(Input.Changed)
    def _value_changed(self, event: Input.Changed) -> None:
        # The Changed message this widget posts reaches its own handlers first; it still bubbles on.
        if event.input is not self:
            return
        if self._cycle is None or not event.value.startswith(self._cycle[0]):
            self._cycle = None
            token, matches = self.current_matches()
            self.post_message(self.Matches(self, token, matches if token is not None else []))

    def _set(self, value: str) -> None:
        self.value = value
        self.cursor_position = len(value)

    def action_complete(self) -> None:
        """tab: complete (or cycle) the @mention, accept the ghost suggestion, else move focus on."""
        if self._cycle is not None:
            prefix, matches, index = self._cycle
            index = (index + 1) % len(matches)
            self._cycle = (prefix, matches, index)
            self._set(prefix + matches[index] + " ")
            return
        token, matches = self.current_matches()
        if token is not None and matches:
            prefix = self.value[: len(self.value) - len(token)]
            self._cycle = (prefix, matches, 0)
            self._set(prefix + matches[0] + " ")
            return
        ghost = suggestion(self.value, self.files)
        if ghost:
            self._set(ghost)
            return
        self.screen.focus_next()
