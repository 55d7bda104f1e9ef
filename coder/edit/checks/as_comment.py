"""A comment asked for, and a short docstring written instead: that docstring made the comment.

Seen on the H200 (Qwen2.5-Coder-1.5B, run 6 of 2026-12-03): asked "add a one-line comment at the start of
_v explaining that the hue gets wrapped into [0, 1)", the model wrote the docstring "Wraps the hue into the
range [0, 1)." as the first line of ``_v``; asked "explain with a comment in repr1 why the type name is split",
it wrote a one-line docstring. The scope check flags a docstring where only comments are asked, the retry
wrote the docstring again, and four pairs were refused for it. The words are the comment asked for, in the
wrong syntax, so they are written as ``#`` lines where the docstring stood, at its indentation. Then the
proposal goes through every check as any reply does (the scope check, the placement of the comment).

Only a new docstring of a function or method (it had none) of at most :data:`MAX_LINES` lines is turned, only when
the reading allows comments alone, and only when the reply adds no comment of its own: beside a comment
the docstring is an extra, which :mod:`coder.edit.checks.trim` gives back. A docstring that was there and
changed, or that quotes coder's own retry note back, is left for the checks to flag.
"""

from __future__ import annotations

import ast
import inspect
import io
import tokenize

from coder.edit.checks.signature import Def, defs
from coder.edit.intent.spec import ChangeSpec
from coder.edit.source.trees import if_parses, parsed

MAX_LINES = 3  # a docstring of more lines is documentation, not a misspelt comment
_NOTE = "A first reply was refused"  # coder's retry note (checks.result.retry_note), copied back by the model


def docstrings_as_comments(old: str, new: str, spec: ChangeSpec) -> str:
    """``new`` with each docstring it adds to a def turned into ``#`` comment lines, when ``spec`` asks for comments
    only (the defs of :func:`coder.edit.checks.signature.defs`: functions and methods)."""
    if spec.only != frozenset({"comments"}) or old == new or _comments(new) > _comments(old):
        return new
    try:
        before, after = parsed(old), parsed(new)
    except (SyntaxError, ValueError, RecursionError):
        return new
    had = {name for name, (node, _) in defs(before).items() if ast.get_docstring(node, clean=False) is not None}
    lines = new.splitlines(keepends=True)
    turned = False
    for name, (node, _) in sorted(defs(after).items(), key=lambda item: -item[1][0].lineno):  # bottom up: rows stay
        doc = _docstring(node)
        if name in had or doc is None or len(node.body) < 2:  # a body of the docstring alone needs it
            continue
        assert isinstance(doc.value, ast.Constant) and isinstance(doc.value.value, str)  # as _docstring found it
        text = inspect.cleandoc(doc.value.value).strip()
        rows = [row.strip() for row in text.splitlines() if row.strip()]
        if not rows or len(rows) > MAX_LINES or _NOTE in text or doc.end_lineno is None:
            continue
        first = lines[doc.lineno - 1]
        if first[:doc.col_offset].strip() or lines[doc.end_lineno - 1][doc.end_col_offset:].strip():
            continue  # the docstring shares a line with other code: no line of its own to turn
        indent = first[:doc.col_offset]
        lines[doc.lineno - 1:doc.end_lineno] = [f"{indent}# {row}\n" for row in rows]
        turned = True
    if not turned:
        return new
    return if_parses("".join(lines), new)


def _comments(text: str) -> int:
    """How many ``#`` comments ``text`` holds (-1 when it does not tokenize: then nothing is turned)."""
    try:
        return sum(t.type == tokenize.COMMENT for t in tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError):
        return -1


def _docstring(node: Def) -> ast.Expr | None:
    first = node.body[0] if node.body else None
    if (isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
            and isinstance(first.value.value, str)):
        return first
    return None
