"""The Textual behaviour coder's widgets lean on, pinned so a Textual upgrade that changes it fails here.

No private Textual API is used anywhere in coder.ui (checked below); these tests pin the public
behaviour the code relies on where the obvious public call would be too slow or does not exist.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from textual.app import App, ComposeResult
from textual.widgets import Input

from coder.ui import themes
from coder.ui.widgets.conversation.prompt import PromptInput
from coder.ui.widgets.conversation.transcript import Transcript

UI = Path(__file__).resolve().parents[2] / "coder" / "ui"


def test_no_private_textual_names_in_coder_ui() -> None:
    """No ``obj._name`` access on anything but ``self``/``cls`` and our own module-level helpers."""
    offenders: list[str] = []
    for path in UI.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        own = {node.name for node in ast.walk(tree) if isinstance(node, ast.FunctionDef | ast.ClassDef)}
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__"):
                base = node.value
                if isinstance(base, ast.Name) and base.id in ("self", "cls"):
                    owner_defines = node.attr in own or any(
                        isinstance(t, ast.Attribute) and t.attr == node.attr for t in _assigned(tree))
                    if not owner_defines:
                        offenders.append(f"{path.name}:{node.lineno} self.{node.attr}")
                elif not (isinstance(base, ast.Name) and base.id[:1].isupper()):
                    offenders.append(f"{path.name}:{node.lineno} .{node.attr}")
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("textual"):
                private = [a.name for a in node.names if a.name.startswith("_")]
                if "._" in node.module or private:
                    offenders.append(f"{path.name}:{node.lineno} from {node.module} import {private}")
    assert offenders == []


def _assigned(tree: ast.AST) -> list[ast.expr]:
    targets: list[ast.expr] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            targets.extend(node.targets)
        elif isinstance(node, ast.AnnAssign | ast.AugAssign):
            targets.append(node.target)
    return targets


class _TranscriptApp(App[None]):
    def get_theme_variable_defaults(self) -> dict[str, str]:
        return {**super().get_theme_variable_defaults(), **themes.VARIABLE_DEFAULTS}

    def compose(self) -> ComposeResult:
        yield Transcript(id="t")


@pytest.mark.asyncio
async def test_transcript_growth_updates_the_scrollbar_without_layout() -> None:
    """Transcript sets virtual_size without its layout watcher and updates the scrollbar itself.

    If Textual stops deriving the scroll range from ``virtual_size`` or the scrollbar from
    ``window_virtual_size``/``window_size``, streamed text would stop being reachable: this fails.
    """
    app = _TranscriptApp()
    async with app.run_test(size=(60, 20)) as pilot:
        t = app.query_one(Transcript)
        t.begin_stream()
        for i in range(100):
            t.append(f"line {i}\n")
            await pilot.pause()
        t.end_stream()
        await pilot.pause()
        rows = t.virtual_size.height
        assert rows >= 100
        bar = t.vertical_scrollbar
        assert bar.window_virtual_size == rows
        assert bar.window_size == t.scrollable_content_region.height
        assert t.max_scroll_y == rows - t.scrollable_content_region.height
        assert t.is_vertical_scroll_end  # the view followed the stream
        t.scroll_home(animate=False, immediate=True)
        await pilot.pause()
        assert t.scroll_offset.y == 0
        t.scroll_end(animate=False, immediate=True)
        await pilot.pause()
        assert t.scroll_offset.y == t.max_scroll_y > 0


class _PromptApp(App[None]):
    def compose(self) -> ComposeResult:
        yield PromptInput(id="p")

    def on_mount(self) -> None:
        self.seen: list[PromptInput.Matches] = []

    def on_prompt_input_matches(self, message: PromptInput.Matches) -> None:
        self.seen.append(message)


@pytest.mark.asyncio
async def test_prompt_reacts_to_its_own_changed_message() -> None:
    """PromptInput handles the Input.Changed it posts itself (instead of overriding Input's watcher)."""
    app = _PromptApp()
    async with app.run_test() as pilot:
        prompt = app.query_one(PromptInput)
        prompt.files = ["greet.py", "shapes.py"]
        prompt.focus()
        await pilot.press(*"fix @gr")
        await pilot.pause()
        assert app.seen and app.seen[-1].token == "gr" and app.seen[-1].matches[0] == "greet.py"
        await pilot.press("tab")
        assert prompt.value == "fix @greet.py "
        assert isinstance(prompt, Input) and prompt.cursor_position == len(prompt.value)
