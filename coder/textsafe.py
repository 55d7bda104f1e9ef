"""Text from a model, a server or a file is data, never terminal control.

Everything coder shows that it did not write itself (a diff, a streamed reply, a
server's error body, a log tail) goes through :func:`visible` first. C0 controls
(except tab and newline), DEL and C1 controls become caret/hex notation, so an
``ESC ]52;`` clipboard write or an ``ESC [8m`` that hides the following lines is
shown as ``^[]52;`` / ``^[[8m``: the user sees exactly what would be written, and the
terminal interprets none of it. Bidirectional overrides ("Trojan Source") are shown
as ``<U+202E>`` for the same reason: they reorder what the review displays.
"""

from __future__ import annotations

import re

# C0 minus tab and newline, DEL, C1, the Unicode bidi embedding/override/isolate marks, and
# lone surrogates (a JSON reply can carry them; printed, they become raw bytes such as 0x9b)
# (surrogates built with chr(): as literals they make this file's own AST unencodable)
_SURROGATES = f"{chr(0xD800)}-{chr(0xDFFF)}"
_UNSAFE = re.compile(f"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069{_SURROGATES}]")
_SURROGATE = re.compile(f"[{_SURROGATES}]")


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
