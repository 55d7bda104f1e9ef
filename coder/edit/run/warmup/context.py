"""Keeping the server's prompt cache warm for the files in the context (no UI).

:class:`ContextWarmer` turns "these files are in the context" into background warm-ups of
each file's edit-prompt prefix (:mod:`coder.edit.run.warmup`), built with the edit engine's own
repository context so the prefix is byte-identical to what the edit will send. It follows
the backend (a new server starts cold; an attached one is warmed only when the user asked)
and reports the cache state through ``on_state`` ("cache: warming … / warm (N tokens)").
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from coder.edit.run.warmup.cache import CacheWarmer, PromptCacheModel, WarmPrefix, WarmState, edit_prefix
from coder.errors import CoderError

if TYPE_CHECKING:
    from coder.backends.runtime.server import ServerInfo
    from coder.edit.source.regions import Region

WARM_UP_SETTINGS = ("managed", "always", "off")  # config `warm_up`: which servers get warmed
MAX_WARM_BYTES = 256 * 1024  # larger files are not worth a background prefill


class ContextWarmer:
    """One warmer per server; rebuilt when the backend changes."""

    def __init__(self, repo_root: Path, repo_context: Callable[[], str], cache: Callable[[], PromptCacheModel],
                 on_state: Callable[[WarmState], None], *, setting: str = "managed") -> None:
        self.repo_root = repo_root
        self._repo_context = repo_context  # the engine's frozen repository context
        self._cache = cache  # the engine's prompt-cache model (auto mode reads what was warmed)
        self._on_state = on_state
        self.setting = setting if setting in WARM_UP_SETTINGS else "managed"
        self._lock = threading.Lock()
        self._warmer: CacheWarmer | None = None
        self._for: ServerInfo | None = None
        self._files: list[str] = []

    def follow(self, info: ServerInfo | None) -> None:
        """A new (or no) backend: its cache is cold, so warm the context again."""
        from coder.backends.engines.registry import adapter_for

        with self._lock:
            if info is self._for:
                return
            self._for = info
            if info is None:
                self._warmer = None
                self._on_state(WarmState("off", detail="no backend"))
                return
            # someone else's server is warmed only when the user asked: do not spend its compute unasked
            wanted = self.setting != "off" and (info.managed or self.setting == "always")
            sender = adapter_for(info.engine).warm_sender(info) if wanted else None
            why = ("warm_up = off" if self.setting == "off"
                   else "attached server; set warm_up = \"always\" to warm it")
            self._warmer = CacheWarmer(sender, enabled=sender is not None, reason_off=why,
                                       on_state=self._on_state, cache=self._cache())
            self._on_state(self._warmer.state)
            files = list(self._files)
        self.context_changed(files)

    def context_changed(self, files: Sequence[str]) -> None:
        """The context is now ``files`` (added, dropped, edited or resumed): warm each, first first."""
        with self._lock:
            self._files = list(files)
            warmer = self._warmer
        if warmer is None or not warmer.enabled:
            return
        prefixes = [full for rel in files if (full := self._prefixes(rel)[0]) is not None]
        if prefixes:
            warmer.warm_all(prefixes)

    def instruction_typed(self, instruction: str, mode: str) -> None:
        """The user is typing ``instruction``: if it names a region, warm that region's prompt too.

        A region prompt shares only the system prompt and repository context with the
        full-file one, so the file's warm-up does not cover it; the instruction names the
        region (auto mode's own finder), so its prefix is known before Enter. The server
        keeps both (llama.cpp's ``--cache-ram``), and the region one goes first: it is
        what Enter will send. Full mode, or no region named: nothing to add.
        """
        if mode == "full" or not instruction.strip():
            return
        with self._lock:
            files = list(self._files)
            warmer = self._warmer
        if warmer is None or not warmer.enabled:
            return
        pairs = [self._prefixes(rel, instruction, mode) for rel in files]
        regional = [region for _, region in pairs if region is not None]
        if regional:
            warmer.warm_all([*regional, *(full for full, _ in pairs if full is not None)])

    def _prefixes(self, rel: str, instruction: str | None = None,
                  mode: str = "auto") -> tuple[WarmPrefix | None, WarmPrefix | None]:
        """The full-file edit prompt's prefix for ``rel`` and, with ``instruction``, the named region's.

        The file is read once, exactly as an edit reads it; either is None when there is none.
        """
        from coder.edit.apply.files import read_snapshot

        try:
            if (self.repo_root / rel).stat().st_size > MAX_WARM_BYTES:
                return None, None
            snap = read_snapshot(self.repo_root, self.repo_root / rel)
        except (OSError, CoderError):
            return None, None  # the edit itself will say what is wrong with the file
        context = self._repo_context()
        full = edit_prefix(snap.rel, snap.text, context)
        region = None if instruction is None else _named_region(snap.rel, snap.text, instruction, mode)
        return full, None if region is None else edit_prefix(snap.rel, snap.text, context, region)

    def before_edit(self, messages: list[dict[str, str]]) -> None:
        """An edit is about to stream: never compete with it (see CacheWarmer.before_edit)."""
        warmer = self._warmer
        if warmer is not None:
            warmer.before_edit(messages)

    def after_edit(self, messages: list[dict[str, str]]) -> None:
        """The edit ended: deferred warm-ups may run again."""
        warmer = self._warmer
        if warmer is not None:
            warmer.after_edit(messages)


def _named_region(rel: str, text: str, instruction: str, mode: str) -> Region | None:
    """The region an edit of ``rel`` would use for ``instruction`` in ``mode`` (auto or region)."""
    from coder.edit.intent.read import read_instruction, target_of
    from coder.edit.plan import auto
    from coder.edit.source.regions import find_symbol

    if mode == "region":  # the session's /mode region: the symbol the message mentions
        symbol = target_of(rel, text, instruction)
        return find_symbol(rel, text, symbol.qualname) if symbol is not None else None
    try:
        return auto.find_target(rel, text, read_instruction(instruction, {rel: text}, home=rel)).region
    except CoderError:  # a missing or ambiguous name: the edit itself says so
        return None
