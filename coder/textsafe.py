"""Text from a model, a server or a file is data, never terminal control: coder's one sanitiser.

Everything coder shows that it did not write itself (a diff, a streamed reply, a
server's error body, a log tail, a file name, a path, a profile name) goes through
:func:`visible` first. C0 controls (except tab and newline), DEL and C1 controls become
caret/hex notation, so an ``ESC ]52;`` clipboard write or an ``ESC [8m`` that hides the
following lines is shown as ``^[]52;`` / ``^[[8m``: the user sees exactly what would be
written, and the terminal interprets none of it. Every other code point that changes
how text reads without being seen is shown as ``<U+XXXX>``: bidirectional marks and
overrides ("Trojan Source"), zero-width characters, tag characters (U+E0000-E007F),
variation selectors, Hangul fillers, the BOM, private-use and unassigned-format code
points (the Unicode categories Cc, Cf, Co, Cs, Zl and Zp, plus the known invisible
letters). ``return user == "admin\u200b"`` therefore never looks like the old line.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter

from coder import lazy

# (first, last) code point ranges: every code point of the categories Cc, Cf, Co, Cs, Zl, Zp
# (Unicode 14, Python 3.11's tables; tests/unit/test_textsafe.py checks the running Python's)
# except tab and newline, plus invisible ones of other categories: the soft hyphen, the
# combining grapheme joiner, Khmer's invisible vowels, Mongolian selectors, the Hangul fillers
# (U+115F, U+1160, U+3164, U+FFA0), the braille blank, and the variation selectors (which can
# carry hidden bytes: U+FE00-FE0F, U+E0100-E01EF)
HIDDEN_RANGES = (
    (0x00, 0x08), (0x0B, 0x1F), (0x7F, 0x9F), (0xAD, 0xAD), (0x34F, 0x34F), (0x600, 0x605), (0x61C, 0x61C),
    (0x6DD, 0x6DD), (0x70F, 0x70F), (0x890, 0x891), (0x8E2, 0x8E2), (0x115F, 0x1160), (0x17B4, 0x17B5),
    (0x180B, 0x180F), (0x200B, 0x200F), (0x2028, 0x202E), (0x2060, 0x2064), (0x2066, 0x206F), (0x2800, 0x2800),
    (0x3164, 0x3164), (0xD800, 0xF8FF), (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF), (0xFFA0, 0xFFA0), (0xFFF9, 0xFFFB),
    (0x110BD, 0x110BD), (0x110CD, 0x110CD), (0x13430, 0x13438), (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A),
    (0xE0001, 0xE0001), (0xE0020, 0xE007F), (0xE0100, 0xE01EF), (0xF0000, 0xFFFFD), (0x100000, 0x10FFFD),
)
# bidi marks, embeddings, overrides and isolates: they reorder what a review displays
BIDI = frozenset([0x61C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A)])


def _class(ranges: tuple[tuple[int, int], ...]) -> str:
    # chr(): a surrogate as a literal would make this file's own AST unencodable
    return "".join(re.escape(chr(a)) if a == b else f"{re.escape(chr(a))}-{re.escape(chr(b))}" for a, b in ranges)


_UNSAFE = lazy.regex(f"[{_class(HIDDEN_RANGES)}]")
_SURROGATE = lazy.regex(f"[{_class(((0xD800, 0xDFFF),))}]")


def _show(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code < 0x20:
        return "^" + chr(code + 0x40)  # ESC -> ^[, CR -> ^M, NUL -> ^@ (cat -v notation)
    if code == 0x7F:
        return "^?"
    if code <= 0x9F:
        return f"<{code:#04x}>"  # C1 (0x9b is a one-byte CSI on some terminals)
    return f"<U+{code:04X}>"


def visible(text: str) -> str:
    """``text`` with every terminal control shown as printable notation (tab and newline kept)."""
    return _UNSAFE.sub(_show, text) if _UNSAFE.search(text) else text


def has_controls(text: str) -> bool:
    """True when :func:`visible` would change ``text``."""
    return _UNSAFE.search(text) is not None


_C0_NAMES = {0x00: "NULL", 0x07: "BELL", 0x08: "BACKSPACE", 0x0D: "CARRIAGE RETURN (a CRLF line end)",
             0x1B: "ESCAPE", 0x7F: "DELETE"}


def name_of(char: str) -> str:
    """``U+200B ZERO WIDTH SPACE``: how a hidden code point is named in a review or a refusal."""
    code = ord(char)
    name = unicodedata.name(char, "") or _C0_NAMES.get(code, "")
    if not name:
        kind = {"Co": "PRIVATE USE", "Cs": "SURROGATE", "Cc": "CONTROL"}.get(unicodedata.category(char), "")
        name = kind or ("TAG" if 0xE0000 <= code <= 0xE007F else "FORMAT")
    return f"U+{code:04X} {name}"


def added_hidden(old: str, new: str) -> list[str]:
    """The hidden code points (see :func:`visible`) ``new`` has more of than ``old``, named, with counts.

    ``["U+200B ZERO WIDTH SPACE x1", "U+202E RIGHT-TO-LEFT OVERRIDE x2"]``: what an
    unattended apply refuses and a review names. Empty when the edit adds none.
    """
    if not _UNSAFE.search(new):
        return []
    before = Counter(_UNSAFE.findall(old))
    after = Counter(_UNSAFE.findall(new))
    return [f"{name_of(c)} x{n - before[c]}" for c, n in sorted(after.items()) if n > before[c]]


def first_surrogate(text: str) -> str | None:
    """The first lone surrogate in ``text`` (no UTF-8 file can hold one), or None."""
    found = _SURROGATE.search(text)
    return found.group() if found else None


def one_line(text: str, limit: int = 160) -> str:
    """``text`` made visible, newlines as ``⏎``, cut to ``limit`` characters: for an error line."""
    flat = visible(text).replace("\n", "⏎").replace("\t", " ")
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def require_utf8(text: str, what: str) -> str:
    """``text`` when it can be sent as UTF-8; else one CoderError line naming the bad byte.

    Command-line arguments and file names carry undecodable bytes as lone surrogates
    (Python's surrogateescape); JSON bodies and commit messages cannot hold them.
    """
    from coder.errors import CoderError

    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        code = ord(text[exc.start])
        byte = f"byte 0x{code - 0xDC00:02x}" if 0xDC80 <= code <= 0xDCFF else f"U+{code:04X}"
        raise CoderError(f"{what} is not valid UTF-8 ({byte} at character {exc.start}); "
                         "coder sends text as UTF-8") from None
    return text
