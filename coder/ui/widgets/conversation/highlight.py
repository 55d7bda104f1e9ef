"""Per-line syntax highlighting with pygments, cheap enough to run on a streaming line."""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

from rich.style import Style
from rich.text import Text

if TYPE_CHECKING:  # pygments loads on the first code block (a warm-up worker), not before the first paint
    from pygments.lexer import Lexer
    from pygments.token import _TokenType
    from rich.syntax import PygmentsSyntaxTheme


@lru_cache(maxsize=64)
def lexer_for(lang: str | None) -> Lexer | None:
    """A lexer for a fence language or a file name; None when unknown (plain text)."""
    if not lang:
        return None
    from pygments.lexers import get_lexer_by_name, get_lexer_for_filename
    from pygments.util import ClassNotFound

    try:
        return get_lexer_by_name(lang, stripnl=False, ensurenl=False)
    except ClassNotFound:
        pass
    try:
        return get_lexer_for_filename(lang, stripnl=False, ensurenl=False)
    except ClassNotFound:
        return None


@lru_cache(maxsize=4)
def _theme(dark: bool) -> PygmentsSyntaxTheme:
    from rich.syntax import PygmentsSyntaxTheme

    return PygmentsSyntaxTheme("monokai" if dark else "friendly")


@lru_cache(maxsize=512)
def token_style(token: _TokenType, dark: bool) -> Style:
    """The Pygments colour of ``token`` (foreground only: the widget's background shows through)."""
    style = _theme(dark).get_style_for_token(token)
    return Style(color=style.color, bold=style.bold, italic=style.italic)


def styled_text(text: str, style: Style) -> Text:
    """Text whose style is a span: ``Text.render`` ignores ``Text.style`` when there are no spans."""
    out = Text(text, no_wrap=True, end="")
    out.stylize(style)
    return out


def highlight_line(line: str, lexer: Lexer | None, dark: bool, base: Style) -> Text:
    """One line of code as styled Text; multi-line constructs are lexed line by line."""
    text = styled_text(line, base)
    if lexer is None or not line:
        return text
    pos = 0
    for token, value in lexer.get_tokens(line):
        end = pos + len(value)
        if value.strip():
            text.stylize(token_style(token, dark), pos, min(end, len(line)))
        pos = end
    return text


def highlight_block(lines: list[str], lexer: Lexer | None, dark: bool, base: Style) -> list[Text]:
    """A whole finished block lexed at once (fixes strings/comments spanning lines)."""
    if lexer is None:
        return [styled_text(line, base) for line in lines]
    joined = "\n".join(lines)
    full = styled_text(joined, base)
    pos = 0
    for token, value in lexer.get_tokens(joined):
        end = pos + len(value)
        if value.strip():
            full.stylize(token_style(token, dark), pos, min(end, len(joined)))
        pos = end
    return list(full.split("\n", allow_blank=True)) if lines else []
