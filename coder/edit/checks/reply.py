"""Checks a model reply must pass before anything is written.

Every refusal carries a stable ``code`` (for ``--json`` and tests) and a one-line
``reason`` for people.
"""

from __future__ import annotations

import ast
import re
import textwrap
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

from coder.edit.checks.code_rules import extraction
from coder.edit.source.layout import keep_layout
from coder.edit.source.trees import parsed
from coder.textsafe import first_surrogate

if TYPE_CHECKING:
    from coder.edit.intent.spec import ChangeSpec


class EditRefused(Exception):
    """The reply cannot be applied; the file stays untouched."""

    def __init__(self, code: str, reason: str) -> None:
        super().__init__(reason)
        self.code = code
        self.reason = reason


@dataclass(frozen=True)
class FencedReply:
    """The first fenced block of a reply: its body, whether it was closed, how many blocks followed."""

    body: str  # text between the fences, newline-terminated (or empty)
    closed: bool
    extra_blocks: int  # further fenced blocks after the first


def _fence_run(line: str) -> int:
    """Length of a leading backtick run when ``line`` is a fence line, else 0."""
    stripped = line.strip()
    run = len(stripped) - len(stripped.lstrip("`"))
    return run if run >= 3 else 0


def parse_fenced(reply: str, fence: str) -> FencedReply | None:
    """The first fenced block of ``reply``; None when no opening fence at all.

    The closing line is a bare backtick run at least as long as ``fence`` (CommonMark).
    """
    lines = reply.splitlines(keepends=True)
    opened = None
    for i, line in enumerate(lines):
        if _fence_run(line) >= len(fence):
            opened = i
            break
    if opened is None:
        return None
    body: list[str] = []
    closed_at = None
    for j in range(opened + 1, len(lines)):
        stripped = lines[j].strip()
        if stripped and set(stripped) == {"`"} and len(stripped) >= len(fence):
            closed_at = j
            break
        body.append(lines[j])
    if closed_at is None:
        return FencedReply("".join(body), False, 0)
    extra = sum(1 for line in lines[closed_at + 1 :] if _fence_run(line) >= 3) // 2
    text = "".join(body)
    return FencedReply(text, True, extra)


def closing_fence_seen(reply: str, fence: str) -> bool:
    """True once the first block of a streaming reply is closed (used to stop early)."""
    parsed = parse_fenced(reply, fence)
    return bool(parsed and parsed.closed)


# Phrases models use when they skip code instead of copying it. Matched only inside
# comment-like or ellipsis lines, and only when the original file lacks that line.
_ELISION_STRONG = re.compile(
    r"rest of (the )?(code|file|function|class|method|module|implementation)"
    r"|(existing|previous|original|other|remaining) (code|methods|functions|implementation|content|lines)"
    r"|omitted for brevity|for brevity",
    re.IGNORECASE,
)
# Weaker phrases that a genuine comment may contain: only with an ellipsis or in a short line.
_ELISION_WEAK = re.compile(
    r"\b(unchanged|remains? the same|same as (before|above)|as before|code here|implementation here"
    r"|no changes?)\b",
    re.IGNORECASE,
)
_COMMENT_STARTS = ("#", "//", "/*", "*", "--", ";", "<!--", "%", "...", "…")


def elided_line(reply_body: str, original: str) -> str | None:
    """The first line that elides code (a placeholder comment), or None."""
    known = {line.strip() for line in original.splitlines()}
    for line in reply_body.splitlines():
        stripped = line.strip()
        if not stripped or stripped in known:
            continue
        if stripped.strip("#/*.…- ") == "" and ("..." in stripped or "…" in stripped):
            return stripped  # a bare "...", "# ...", "// ..." line
        if not stripped.startswith(_COMMENT_STARTS):
            continue
        if _ELISION_STRONG.search(stripped):
            return stripped
        short = len(stripped.split()) <= 6
        if _ELISION_WEAK.search(stripped) and (short or "..." in stripped or "…" in stripped):
            return stripped
    return None


@lru_cache(maxsize=16)  # the result check asks it of the same two texts from several rules
def syntax_error(text: str) -> str | None:
    """Why ``text`` does not parse as Python (``line 3: invalid syntax``), None when it does."""
    try:
        parsed(text)  # the tree the result check's rules read next
    except SyntaxError as exc:
        return f"line {exc.lineno}: {exc.msg}"
    except (ValueError, RecursionError) as exc:
        return str(exc) or type(exc).__name__
    return None


def _indent_of(text: str) -> str:
    for line in text.splitlines():
        if line.strip():
            return line[: len(line) - len(line.lstrip())]
    return ""


def reindent_region(body: str, region_text: str) -> str:
    """Restore the region's indentation when the model returned it dedented, or shifted right as a whole (every
    line indented by more than the region's first line is: a sampled reply to a method's region came back 4 spaces
    deeper, its ``__repr__`` right)."""
    want, got = _indent_of(region_text), _indent_of(body)
    if want and not got:
        return textwrap.indent(body, want)
    if len(got) > len(want) and got.startswith(want) and all(
            line.startswith(got) for line in body.splitlines() if line.strip()):
        return textwrap.indent(textwrap.dedent(body), want)
    return body


def _match_ending(new: str, old: str) -> str:
    """Give ``new`` the same trailing blank lines and final newline as ``old``.

    Models often add or drop a blank line before the closing fence; an edit never
    means to change that, and a region must not grow a blank line at each splice.
    """
    def tail(text: str) -> str:
        stripped = text.rstrip(" \t\n")
        if stripped == text:
            return ""
        rest = text[len(stripped):]
        return rest[rest.index("\n"):] if "\n" in rest else ""

    if not new.strip():
        return new
    body = new.rstrip(" \t\n")
    # keep trailing spaces on the last code line; only whole blank lines are normalised
    last_line_end = new[len(body):]
    spaces = last_line_end.split("\n", 1)[0] if "\n" in last_line_end else last_line_end
    return body + spaces + tail(old)


def check_reply(
    reply: str,
    finish_reason: str | None,
    *,
    fence: str,
    target: str,
    before: str = "",
    after: str = "",
    python: bool = False,
    region_kind: str | None = None,
    region_name: str | None = None,
    stopped_at_fence: bool = False,
    spec: ChangeSpec | None = None,
) -> str:
    """Validate ``reply`` and return the complete new file text; raise :class:`EditRefused`.

    ``target`` is the original whole file (``before``/``after`` empty) or the region; ``spec`` the
    change asked for (the names it may introduce, whether it may remove code).
    """
    if finish_reason == "length" and not stopped_at_fence:
        raise EditRefused("length", "the reply hit the token limit (finish_reason=length): it is truncated")
    if not reply.strip():
        raise EditRefused("empty", "the model returned an empty reply")
    if (bad := first_surrogate(reply)) is not None:  # JSON can carry a lone surrogate; a file cannot
        raise EditRefused("not_text", f"the reply holds U+{ord(bad):04X}, which no UTF-8 file can hold")
    parsed = parse_fenced(reply, fence)
    if parsed is None:
        raise EditRefused("no_fence", "the reply has no fenced code block")
    if not parsed.closed:
        raise EditRefused("unclosed_fence", "the reply's code block is never closed (truncated reply)")
    if parsed.extra_blocks:
        raise EditRefused("multiple_blocks", "the reply has more than one code block")
    body = parsed.body
    if not body.strip() and target.strip():
        raise EditRefused("empty", "the reply's code block is empty")
    original = before + target + after
    if (hit := elided_line(body, original)) is not None:
        raise EditRefused("elision", f"the reply elides code instead of copying it: {hit[:80]!r}")
    region = bool(before or after) or region_kind is not None
    if region:
        _check_no_context_copy(body, target, before, after)
        body = reindent_region(body, target)
    body = _own_layout(_match_ending(body, target), target, python, spec)
    new_text = before + body + after
    if python and region_kind is not None:
        _check_single_region(body, region_kind, region_name, spec)
    if python and syntax_error(original) is None and (error := syntax_error(new_text)) is not None:
        raise EditRefused("syntax", f"the edited file no longer parses as Python ({error})")
    _check_not_shrunk(body, target, spec)
    return new_text


def _own_layout(body: str, target: str, python: bool, spec: ChangeSpec | None) -> str:
    """Hints, docstrings or comments only: lines the reply only re-spaced are the original's (source/layout.py)."""
    return keep_layout(target, body) if python and spec is not None and spec.only is not None else body


def _check_not_shrunk(body: str, target: str, spec: ChangeSpec | None, keep: float = 0.5, least: int = 10) -> None:
    """Refuse a reply that silently loses most of the code (a lazy or confused model).

    Applies when the original has at least ``least`` code lines, the reply keeps under
    ``keep`` of them, and the instruction never asks to remove or shorten anything.
    """
    old_n, new_n = len(_code_lines(target)), len(_code_lines(body))
    if old_n < least or new_n >= keep * old_n:
        return
    if spec is not None and (spec.facts.shrinks or spec.action in ("delete", "extract", "move")):
        return
    raise EditRefused("shrunk", f"the reply has {new_n} code lines where the original has {old_n}, "
                      "and the instruction does not ask to remove code")


def _code_lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip()]


def _check_no_context_copy(body: str, target: str, before: str, after: str, n: int = 2) -> None:
    """Refuse a region reply that also repeats the context shown around the region.

    Splicing it would duplicate those lines. Only the last/first ``n`` code lines next to
    the region are compared, and only when the region itself does not begin/end that way.
    """
    got, want = _code_lines(body), _code_lines(target)
    near_before, near_after = _code_lines(before)[-n:], _code_lines(after)[:n]
    if len(near_before) == n and got[:n] == near_before and want[:n] != near_before:
        raise EditRefused("context_repeated", "the region reply repeats the lines shown before the region")
    if len(near_after) == n and got[-n:] == near_after and want[-n:] != near_after:
        raise EditRefused("context_repeated", "the region reply repeats the lines shown after the region")


def _check_single_region(body: str, kind: str, name: str | None, spec: ChangeSpec | None) -> None:
    """A symbol reply must be exactly one def/class of that symbol (an extraction's or a new function's: and the new
    function).

    A different name is accepted only when the instruction mentions it (a rename);
    otherwise the model rewrote a neighbour it saw as context.
    """
    try:
        tree = parsed(textwrap.dedent(body))
    except SyntaxError:
        raise EditRefused("not_single_region", "the region reply does not parse on its own") from None
    new_fn = extraction(spec)[0] if spec is not None else None
    if new_fn is None and spec is not None and spec.action == "add_function" and spec.new_names:
        new_fn = spec.new_names[0]  # a new function written beside the def shown (coder.edit.plan.add_function)
    # an extraction may answer its region with the new function beside it (written into the file there)
    kept = [n for n in tree.body if not (isinstance(n, ast.FunctionDef) and n.name == new_fn and n.name != name)]
    defs = [n for n in kept if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)]
    if len(kept) != 1 or len(defs) != 1 or len(tree.body) - len(kept) > 1:
        what = ", ".join(_describe(n) for n in tree.body[:4]) or "nothing"
        raise EditRefused(
            "not_single_region", f"the reply should be one {kind}{' ' + name if name else ''}, got: {what}"
        )
    got_kind = "class" if isinstance(defs[0], ast.ClassDef) else "function"
    if got_kind != kind:
        raise EditRefused("not_single_region", f"the reply is a {got_kind}, the region was a {kind}")
    got = defs[0].name
    if name and got != name and got not in _spelled(spec):
        raise EditRefused("wrong_region", f"the reply is {got_kind} {got}, not {name} (the region asked for); "
                          "a rename must be in the instruction")


def _spelled(spec: ChangeSpec | None) -> set[str]:
    """The names a spec may give a region: its new names, renames and the names it spells as code."""
    if spec is None:
        return set()
    names = set(spec.new_names) | {b for _, b in spec.renames} | set(spec.facts.ticked)
    return names | {w.rsplit(".", 1)[-1] for w in spec.facts.code_words}


def _describe(node: ast.stmt) -> str:
    name = getattr(node, "name", None)
    return f"{type(node).__name__} {name}" if name else type(node).__name__
