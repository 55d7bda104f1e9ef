"""Undo a reply's layout-only changes to lines it was not asked to change.

Asked for type hints on ``rgb_to_hsv``, the 1.5B on the H200 also re-spaced its body
(``maxc-minc`` became ``maxc - minc``) in two wordings of three, and the guard refused the whole edit:
those lines are not annotations. Where the instruction allows no code change (annotations, docstrings,
comments only), a line whose tokens are exactly the original line's, indentation included, is the
original line: the user gets the edit asked for and nothing else.
"""

from __future__ import annotations

import difflib
import io
import tokenize
from functools import lru_cache

_SKIP = frozenset({tokenize.NEWLINE, tokenize.NL, tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER})


@lru_cache(maxsize=4096)  # a reply's unchanged lines are the original's: each tokenized once
def _key(line: str) -> tuple[object, ...]:
    """The line's indentation and tokens; the line itself where it does not tokenize alone (part of a string)."""
    try:
        toks = [(t.type, t.string) for t in tokenize.generate_tokens(io.StringIO(line.strip() + "\n").readline)
                if t.type not in _SKIP]
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return (line,)
    if any(t == tokenize.ERRORTOKEN for t, _ in toks):
        return (line,)
    return (line[:len(line) - len(line.lstrip())], *toks)


def keep_layout(old: str, new: str) -> str:
    """``new`` with every line whose tokens equal an original line's, in the same place, given back as written."""
    old_lines, new_lines = old.splitlines(keepends=True), new.splitlines(keepends=True)
    matcher = difflib.SequenceMatcher(None, [_key(x) for x in old_lines], [_key(x) for x in new_lines],
                                      autojunk=False)
    out: list[str] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":  # the same tokens: the original's spacing (and line ending)
            out.extend(old_lines[i1:i2])
        else:
            out.extend(new_lines[j1:j2])
    return "".join(out)
