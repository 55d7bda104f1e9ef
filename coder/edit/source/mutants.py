"""The small changes a one-token bug is undone by: mutation testing's operators, as edits of a function's text.

An off-by-one (``n >= maxiter`` for ``n > maxiter``, ``opt[i:]`` for ``opt[i+1:]``, ``indent - 1`` for
``indent``) is the bug a 1.5B model most often reads past: shown the very function, it answers "no change"
(run 12 and 13 on the H200). Where the project's failing tests can tell a right change from a wrong one,
trying the few changes of one token is cheaper and surer than a 17th sample (:mod:`coder.edit.run.repair`).

The operators are the classic ones of mutation testing (mutmut's, and the relational operator replacement
of the literature), fixed before any task was looked at and not widened since:

- a comparison to its off-by-one neighbour or its negation: ``<`` ↔ ``<=``, ``>`` ↔ ``>=``, ``==`` ↔ ``!=``;
- a small integer constant one up or one down (``== 1`` → ``== 0``);
- ``x + 1`` / ``x - 1`` → ``x`` (an offset dropped), and a name used as a subscript or slice bound
  one up or one down (``opt[i:]`` → ``opt[i + 1:]``);
- ``+`` ↔ ``-`` between two operands, ``and`` ↔ ``or``;
- ``len(x)`` one up or one down where it stands alone (an assignment's value, an operand of ``+``, ``-`` or a
  comparison, an argument, a bound): added after the fourth fresh set's bug-types-mro-entries (run 18), where
  ``shift += len(new_base)`` lacked its ``- 1`` and a change elsewhere that the upstream tests pass was taken.

Each mutant replaces exactly one node's text (its source segment, by the parser's positions), so no other
byte of the file moves; nothing inside an f-string is changed. Pure: no model, no file written.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

SMALL = 1000  # integer constants beyond this are data (a mask, a port), not a count one may be off by
_COMPARE = {ast.Lt: "<=", ast.LtE: "<", ast.Gt: ">=", ast.GtE: ">", ast.Eq: "!=", ast.NotEq: "=="}  # each to its new op


@dataclass(frozen=True)
class Mutant:
    """One change of one token: the file's text with it made, and where and what it is."""

    text: str  # the whole file, changed
    line: int  # 1-based line of the change
    span: tuple[int, int, int, int]  # (line, column, end line, end column) of the code replaced
    what: str  # "`n >= maxiter` -> `n > maxiter`"

    def meets(self, other: Mutant) -> bool:
        """Whether the two change overlapping code: ``a - 1`` -> ``a`` and its ``1`` -> ``0`` are one place."""
        a, b = self.span, other.span
        return (a[0], a[1]) < (b[2], b[3]) and (b[0], b[1]) < (a[2], a[3])


def mutants(text: str, start: int, end: int) -> list[Mutant]:
    """Every mutant of lines ``start..end`` (1-based, inclusive) of the Python ``text``, in source order.

    Empty when ``text`` does not parse. Docstrings and other string constants are never changed.
    """
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError):
        return []
    lines = text.splitlines(keepends=True)
    # inside an f-string, CPython 3.11 gives some nodes positions that are not theirs: none is changed there
    formatted = {id(n) for f in ast.walk(tree) if isinstance(f, ast.JoinedStr) for n in ast.walk(f)}
    # a len(x) whose "- 1" needs no parentheses: not an operand of *, /, %, **, unary minus, an attribute...
    alone = {id(c) for p in ast.walk(tree) for c in ast.iter_child_nodes(p) if isinstance(p, _LOOSE) or (
        isinstance(p, ast.BinOp) and isinstance(p.op, ast.Add | ast.Sub))}
    out: list[Mutant] = []
    for node in ast.walk(tree):
        if (isinstance(node, ast.expr) and id(node) not in formatted and start <= node.lineno
                and (node.end_lineno or node.lineno) <= end):
            out += _of(node, lines, id(node) in alone)
    unique: dict[str, Mutant] = {}
    for m in sorted(out, key=lambda m: (m.span, m.what)):
        unique.setdefault(m.text, m)  # `i + 1` written twice (a name bound and a constant) is one mutant
    return [m for m in unique.values() if m.text != text]


_LOOSE = (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Return, ast.Compare, ast.Call, ast.keyword, ast.Slice,
          ast.Subscript, ast.Tuple, ast.List)


def _of(node: ast.expr, lines: list[str], alone: bool = False) -> list[Mutant]:
    found: list[tuple[ast.AST, str]] = []  # (the node whose segment is replaced, its new text)
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in _COMPARE:
        new_op = _COMPARE[type(node.ops[0])]
        left, right = _segment(lines, node.left), _segment(lines, node.comparators[0])
        if left is not None and right is not None:
            found.append((node, f"{left} {new_op} {right}"))
    elif isinstance(node, ast.Constant) and type(node.value) is int and abs(node.value) <= SMALL:
        found += [(node, str(node.value + 1)), (node, str(node.value - 1))] if node.value else [(node, "1")]
    elif isinstance(node, ast.BinOp):
        found += _offset(node, lines)
    elif isinstance(node, ast.BoolOp) and len(node.values) == 2:
        left, right = _segment(lines, node.values[0]), _segment(lines, node.values[1])
        if left is not None and right is not None:
            found.append((node, f"{left} {'or' if isinstance(node.op, ast.And) else 'and'} {right}"))
    elif alone and isinstance(node, ast.Call):
        found += _length(node, lines)
    elif isinstance(node, ast.Subscript):
        bounds = [node.slice.lower, node.slice.upper] if isinstance(node.slice, ast.Slice) else [node.slice]
        for bound in bounds:
            if isinstance(bound, ast.Name):
                found += [(bound, f"{bound.id} + 1"), (bound, f"{bound.id} - 1")]
    return [m for target, new in found if (m := _made(lines, target, new)) is not None]


def _offset(node: ast.BinOp, lines: list[str]) -> list[tuple[ast.AST, str]]:
    """``x + 1`` / ``x - 1`` without its offset, and ``+`` and ``-`` swapped."""
    left, right = _segment(lines, node.left), _segment(lines, node.right)
    if not isinstance(node.op, ast.Add | ast.Sub) or left is None or right is None:
        return []
    dropped = [(node, left)] if isinstance(node.right, ast.Constant) and node.right.value == 1 else []
    return [*dropped, (node, f"{left} {'-' if isinstance(node.op, ast.Add) else '+'} {right}")]


def _length(node: ast.Call, lines: list[str]) -> list[tuple[ast.AST, str]]:
    """``len(x)`` one down and one up."""
    if not (isinstance(node.func, ast.Name) and node.func.id == "len" and len(node.args) == 1):
        return []
    said = _segment(lines, node)
    return [] if said is None else [(node, f"{said} - 1"), (node, f"{said} + 1")]


def _made(lines: list[str], node: ast.AST, new: str) -> Mutant | None:
    old = _segment(lines, node)
    if old is None or old == new:
        return None
    row, col, end_row, end_col = _span(lines, node)
    head, tail = lines[row - 1][:col], lines[end_row - 1][end_col:]
    text = "".join(lines[:row - 1]) + head + new + tail + "".join(lines[end_row:])
    return Mutant(text, row, (row, col, end_row, end_col), f"`{_short(old)}` -> `{_short(new)}`")


def _short(code: str) -> str:
    return code if len(code) <= 60 else code[:57] + "..."


def _span(lines: list[str], node: ast.AST) -> tuple[int, int, int, int]:
    """``node``'s (line, column, end line, end column), columns in characters (the parser counts UTF-8 bytes)."""
    row, end_row = node.lineno, node.end_lineno or node.lineno  # type: ignore[attr-defined]

    def chars(r: int, byte_col: int) -> int:
        return len(lines[r - 1].encode("utf-8")[:byte_col].decode("utf-8", errors="replace"))

    return row, chars(row, node.col_offset), end_row, chars(end_row, node.end_col_offset or 0)  # type: ignore[attr-defined]


def _segment(lines: list[str], node: ast.AST) -> str | None:
    """``node``'s source text, on one line only (a mutant spanning lines would reflow the code)."""
    row, col, end_row, end_col = _span(lines, node)
    if row != end_row or row > len(lines):
        return None
    return lines[row - 1][col:end_col]
