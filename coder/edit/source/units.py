"""The units of a Python file a plan is made of: defs, class headers, other statements.

A def (with its decorators) is a leaf: a region never splits one. A class is a header plus its
members, so a plan can take one method, or the statements of a class body, on their own.
"""

from __future__ import annotations

import ast
import io
import tokenize
from dataclasses import dataclass


@dataclass(frozen=True)
class Unit:
    """A def (with its decorators), a class header, or one other statement; the smallest region."""

    start: int
    end: int
    label: str
    kind: str  # "function" | "class" | "header" | "statement"
    symbol: str | None = None
    depth: int = 0


def first_line(node: ast.stmt) -> int:
    """The statement's first line: its first decorator's, for a decorated def or class."""
    decorators: list[ast.expr] = getattr(node, "decorator_list", [])
    return min([node.lineno, *(d.lineno for d in decorators)])


def units(text: str) -> list[Unit]:
    """Every def, class header and other statement of ``text``, in file order (defs are leaves)."""
    out: list[Unit] = []

    def visit(body: list[ast.stmt], prefix: str, depth: int) -> None:
        for node in body:
            start, end = first_line(node), node.end_lineno or node.lineno
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                kind = "method" if prefix else "function"
                out.append(Unit(start, end, f"{kind} {prefix}{node.name}", "function", prefix + node.name, depth))
            elif isinstance(node, ast.ClassDef):
                first = first_line(node.body[0])
                head_end = max(node.lineno, first - 1) if first > node.lineno else end
                out.append(Unit(start, end, f"class {prefix}{node.name}", "class", prefix + node.name, depth))
                out.append(Unit(start, head_end, f"class {prefix}{node.name} header", "header",
                                None, depth))
                if first > node.lineno:
                    visit(node.body, f"{prefix}{node.name}.", depth + 1)
            else:
                out.append(Unit(start, end, f"lines {start}-{end}", "statement", None, depth))

    visit(ast.parse(text).body, "", 0)
    return out


def leaves(all_units: list[Unit]) -> list[Unit]:
    """The units a region is made of: everything but whole classes (their header and members are units)."""
    return [u for u in all_units if u.kind != "class"]


def name_rows(text: str, names: set[str]) -> set[int]:
    """Rows where one of ``names`` is a NAME token, or a string whose whole text is one of them."""
    rows: set[int] = set()
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        code = tok.type == tokenize.NAME and tok.string in names
        if code or (tok.type == tokenize.STRING and tok.string.strip("\"'rbuRBU") in names):
            rows.add(tok.start[0])
    return rows


def next_leaf(leaves: list[Unit], end: int) -> Unit | None:
    """The first unit of ``leaves`` after line ``end``."""
    return next((u for u in leaves if u.start > end), None)
