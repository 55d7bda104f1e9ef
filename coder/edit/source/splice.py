"""Exact text operations of a plan: splice region results back, cut and move blocks, rename tokens.

Everything here is mechanical and checked: :func:`splice` asserts that every byte outside
the replaced regions is the original's, and :func:`rename_matches` decides whether a
model's rewrite of a region is exactly the asked-for rename (Python tokens, not regexes).
"""

from __future__ import annotations

import ast
import io
import re
import textwrap
import tokenize
from collections.abc import Sequence
from dataclasses import dataclass

from coder import lazy


@dataclass(frozen=True)
class Replacement:
    """Lines ``start..end`` (1-based, inclusive) of the original become ``text``.

    An insertion before line ``start`` has ``end == start - 1``.
    """

    start: int
    end: int
    text: str


class SpliceError(AssertionError):
    """The splice would change bytes outside its regions, or its regions overlap (a bug, never input)."""


def splice(original: str, replacements: Sequence[Replacement]) -> str:
    """``original`` with each replacement's lines swapped for its text; bytes outside them stay identical."""
    lines = original.splitlines(keepends=True)
    ordered = sorted(replacements, key=lambda r: (r.start, r.end))
    out: list[str] = []
    pos = 0  # lines[:pos] are consumed
    gaps: list[str] = []
    for rep in ordered:
        if rep.start - 1 < pos or rep.end > len(lines) or rep.end < rep.start - 1:
            raise SpliceError(f"region {rep.start}-{rep.end} overlaps another or lies outside the file")
        gap = "".join(lines[pos:rep.start - 1])
        out += [gap, rep.text]
        gaps.append(gap)
        pos = rep.end
    tail = "".join(lines[pos:])
    out.append(tail)
    gaps.append(tail)
    new = "".join(out)
    _assert_outside_identical(original, new, ordered, gaps)
    return new


def _assert_outside_identical(original: str, new: str, ordered: Sequence[Replacement], gaps: list[str]) -> None:
    """Re-derive every kept gap from ``new`` and compare it with the original's bytes."""
    at = 0
    for gap, rep in zip(gaps, [*ordered, None], strict=True):
        if new[at:at + len(gap)] != gap:
            raise SpliceError("a splice changed bytes outside the plan's regions")
        at += len(gap) + (len(rep.text) if rep is not None else 0)
    if at != len(new) or sum(map(len, gaps)) + sum(len(r.text) for r in ordered) != len(new):
        raise SpliceError("a splice changed the file's length outside its regions")
    kept_original = sum(map(len, gaps))
    lines = original.splitlines(keepends=True)
    replaced = sum(len("".join(lines[r.start - 1:r.end])) for r in ordered)
    if kept_original + replaced != len(original):
        raise SpliceError("a splice lost bytes of the original")


def line_span(text: str, start: int, end: int) -> str:
    """Lines ``start..end`` (1-based, inclusive) of ``text``."""
    return "".join(text.splitlines(keepends=True)[start - 1:end])


# --- blocks: delete and move ------------------------------------------------------------------

def block_bounds(text: str, start: int, end: int) -> tuple[int, int]:
    """The lines to cut for a def spanning ``start..end``: its attached comments above, blank lines after.

    At the end of the file the blank lines before it go instead, so the file keeps one ending.
    """
    lines = text.splitlines()
    while start > 1 and lines[start - 2].lstrip().startswith("#"):
        start -= 1
    after = end
    while after < len(lines) and not lines[after].strip():
        after += 1
    if after == len(lines):  # the last block of the file: take the blank lines before it
        after = end
        while start > 1 and not lines[start - 2].strip():
            start -= 1
    return start, after


def cut(text: str, start: int, end: int) -> tuple[str, Replacement]:
    """The block of ``start..end`` (with :func:`block_bounds`) and the replacement that deletes it."""
    a, b = block_bounds(text, start, end)
    return line_span(text, a, b), Replacement(a, b, "")


def blank_run_after(text: str, end: int) -> int:
    """How many blank lines follow line ``end`` (at least 1, so blocks stay apart)."""
    lines = text.splitlines()
    n = 0
    while end + n < len(lines) and not lines[end + n].strip():
        n += 1
    return max(1, n)


_WORDS = lazy.regex(r"[A-Za-z_]\w*")


def use_span(text: str, start: int, end: int, names: set[str]) -> tuple[int, int]:
    """The rows from the first statement of ``start..end`` that uses ``names`` to the last.

    A string naming one as a word counts (a docstring mentioning it), so a retry may rename it too.
    Whole logical lines (a multi-line string or call is never cut), found by the tokenizer;
    ``(start, end)`` when nothing inside uses them.
    """
    spans: list[tuple[int, int]] = []
    first: int | None = None
    hit = False
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        row = tok.start[0]
        if row > end:
            break
        if tok.type in (tokenize.NL, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT):
            continue
        if tok.type == tokenize.NEWLINE:
            if hit and first is not None and first >= start:
                spans.append((first, tok.end[0]))
            first, hit = None, False
            continue
        first = row if first is None else first
        hit = hit or (tok.type == tokenize.NAME and tok.string in names) or (
            tok.type == tokenize.STRING and bool(names.intersection(_WORDS.findall(tok.string))))
    if not spans:
        return start, end
    return spans[0][0], min(end, spans[-1][1])


# --- rename ----------------------------------------------------------------------------------

def rename_tokens(text: str, pairs: Sequence[tuple[str, str]]) -> str:
    """``text`` with every NAME token ``old`` replaced by ``new``, and ``"old"`` entries of ``__all__``.

    Other strings and comments are untouched. Raises ``SyntaxError``/``tokenize.TokenError`` when
    ``text`` does not tokenize.
    """
    mapping = dict(pairs)
    lines = text.splitlines(keepends=True)
    edits: list[tuple[int, int, int, str]] = []
    in_all = False  # inside the statement that assigns ``__all__``: its strings name symbols
    first = True
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type == tokenize.NEWLINE:
            in_all, first = False, True
            continue
        if tok.type in (tokenize.NL, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT):
            continue
        if first:
            in_all, first = tok.string == "__all__", False
        if tok.type == tokenize.NAME and tok.string in mapping:
            edits.append((tok.start[0], tok.start[1], tok.end[1], mapping[tok.string]))
        elif in_all and tok.type == tokenize.STRING and tok.string[1:-1] in mapping and tok.string[0] in "'\"":
            quote = tok.string[0]
            edits.append((tok.start[0], tok.start[1], tok.end[1], quote + mapping[tok.string[1:-1]] + quote))
    for row, a, b, new in reversed(edits):  # right to left keeps earlier columns valid
        line = lines[row - 1]
        lines[row - 1] = line[:a] + new + line[b:]
    return "".join(lines)


def _word_renamed(text: str, pairs: Sequence[tuple[str, str]]) -> str:
    for old, new in pairs:
        text = re.sub(rf"(?<![\w]){re.escape(old)}(?![\w])", new, text)
    return text


_PROSE = (tokenize.STRING, tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT,
          tokenize.ENDMARKER)


def _code_tokens(text: str) -> list[tuple[int, str, int]]:
    """(type, text, row) of every token that is code: not a string, comment or layout token."""
    toks = tokenize.generate_tokens(io.StringIO(textwrap.dedent(text)).readline)
    return [(t.type, t.string, t.start[0]) for t in toks if t.type not in _PROSE]


@dataclass(frozen=True)
class RenameCheck:
    """A region reply held to the rename: why it fails (None when it passes), and the text to use."""

    problem: str | None
    text: str  # the region to splice: the reply's lines where they are the rename, the rename elsewhere
    kept: tuple[int, ...] = ()  # region lines (1-based) where the reply reworded a string or comment


def rename_matches(expected: str, got: str, pairs: Sequence[tuple[str, str]]) -> RenameCheck:
    """Hold a region reply ``got`` to the rename ``expected`` (:func:`rename_tokens` of the original).

    The code tokens (everything but strings, comments and layout) must be exactly the rename's,
    else the reply fails. Strings and comments are judgement: a line of the reply is used where it
    is the expected line, or that line with the old names renamed as words too (a docstring or an
    ``__all__`` entry naming the symbol); any other rewording gets the expected line back, since
    a rename asks for none.
    """
    try:
        want, have = _code_tokens(expected), _code_tokens(got)
    except (SyntaxError, tokenize.TokenError, IndentationError):
        return RenameCheck("the reply does not tokenize as Python", expected)
    for (_, w, row), (_, h, _) in zip(want, have, strict=False):
        if w != h:
            return RenameCheck(f"line {row} of the region should have {w!r} where the reply has {h!r}", expected)
    if len(want) != len(have):
        return RenameCheck("the reply gained or lost code", expected)
    want_lines, have_lines = expected.splitlines(keepends=True), got.splitlines(keepends=True)
    if len(want_lines) != len(have_lines):
        return RenameCheck(None, expected, (0,))
    out, kept = [], []
    for n, (w, h) in enumerate(zip(want_lines, have_lines, strict=True), 1):
        ok = h in (w, _word_renamed(w, pairs))
        out.append(h if ok else w)
        if not ok:
            kept.append(n)
    return RenameCheck(None, "".join(out), tuple(kept))


def _class_body(source: str, qual: str) -> list[ast.stmt] | None:
    node = class_node(ast.parse(source), qual)
    return node.body if node is not None else None


def class_node(tree: ast.Module, qual: str) -> ast.ClassDef | None:
    """The class ``qual`` ("Outer.Inner") of ``tree``, or None."""
    body: list[ast.stmt] = tree.body
    found: ast.ClassDef | None = None
    for part in qual.split("."):
        found = next((n for n in body if isinstance(n, ast.ClassDef) and n.name == part), None)
        if found is None:
            return None
        body = found.body
    return found


def method_added(old: str, new: str, qual: str, name: str) -> str | None:
    """None when class ``qual`` of ``new`` is its ``old`` self plus one new method (``name``, when given).

    Every member the class had must still be there, unchanged; that is what "add a method"
    leaves alone. Otherwise, what is wrong, for people.
    """
    try:
        before, after = _class_body(old, qual), _class_body(new, qual)
    except SyntaxError as exc:
        return f"the class no longer parses (line {exc.lineno})"
    if before is None or after is None:
        return f"class {qual} is gone"
    kept = [ast.dump(n) for n in before]
    now = [ast.dump(n) for n in after]
    if [d for d in now if d in kept] != kept:
        return f"the reply changes or drops existing members of {qual}"
    added = [n for n in after if ast.dump(n) not in kept]
    defs = [n for n in added if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]
    if len(added) != 1 or len(defs) != 1:
        return f"the reply adds {len(defs)} method(s) and {len(added) - len(defs)} other statement(s) to {qual}"
    if name and defs[0].name != name:
        return f"the new method is {defs[0].name}, not {name}"
    if any(isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and n.name == defs[0].name for n in before):
        return f"{qual} already has a method {defs[0].name}"
    return None


def as_insertion(original: str, start: int, end: int, reply: str, qual: str) -> str:
    """The region text for an add-method reply: ``reply`` as is, or the region kept with the reply after it.

    The plan shows the class's last member and asks for the new method right after it; a small model
    often answers with the new method alone (the H200's Qwen2.5-Coder-1.5B: queue's ``clear``, shlex's
    ``tokens``), which as the region's replacement drops that member. A reply that is exactly one def is
    read as what it is, an insertion after the region at the class's member indentation, unless it has the
    name of a member the region holds (then it is that member rewritten); anything else replaces the region,
    and :func:`method_added` judges either.
    """
    try:
        tree = ast.parse(textwrap.dedent(reply))
        body = _class_body(original, qual)
    except SyntaxError:
        return reply
    if body is None or len(tree.body) != 1 or not isinstance(tree.body[0], ast.FunctionDef | ast.AsyncFunctionDef):
        return reply
    shown = {n.name for n in body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and start <= n.lineno <= end}
    if tree.body[0].name in shown:
        return reply
    indent = " " * body[0].col_offset
    new = textwrap.indent(textwrap.dedent(reply).strip("\n") + "\n", indent, lambda line: bool(line.strip()))
    return line_span(original, start, end) + "\n" + new


def named_as_asked(original: str, start: int, end: int, text: str, qual: str, name: str) -> tuple[str, str]:
    """The region text with the one method it adds to ``qual`` renamed ``name``, and a note saying so.

    The method's name is the user's: asked for ``clear``, the H200's 1.5B wrote the method and named it
    ``drop_queue`` (twice, retry included). When the reply adds exactly one new def under another name,
    neither name is a member the class had, and nothing in the file but that def spells the model's name,
    renaming it is exact; otherwise the text is returned as it is (and :func:`method_added` says why not),
    with an empty note.
    """
    if not name:
        return text, ""
    spliced = splice(original, [Replacement(start, end, text)])
    try:
        before, after = _class_body(original, qual), _class_body(spliced, qual)
        spelled = [t.string for t in tokenize.generate_tokens(io.StringIO(spliced).readline) if t.type == tokenize.NAME]
    except (SyntaxError, tokenize.TokenError):
        return text, ""
    if before is None or after is None:
        return text, ""
    kept = {ast.dump(n) for n in before}
    added = [n for n in after if ast.dump(n) not in kept]
    if len(added) != 1 or not isinstance(added[0], ast.FunctionDef | ast.AsyncFunctionDef) or added[0].name == name:
        return text, ""
    got = added[0].name
    had = {n.name for n in before if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)}
    if {got, name} & had or spelled.count(got) != 1:
        return text, ""
    return rename_tokens(text, [(got, name)]), f"the model named the new method {got}: renamed {name}, as asked"
