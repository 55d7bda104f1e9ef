"""One parse per text for the result check: its rules read the same syntax trees and never change them.

``check_result`` runs a dozen rules on the same two texts, and each used to parse both: on a 500-line
file that was most of the check's time. A rule that needs to change a tree (folding constants) copies it.
"""

from __future__ import annotations

import ast
from functools import lru_cache


@lru_cache(maxsize=8)
def parsed(text: str) -> ast.Module:
    """The syntax tree of ``text`` (shared: do not change it); raises SyntaxError as :func:`ast.parse` does."""
    return ast.parse(text)


def fresh(text: str) -> ast.Module:
    """A syntax tree of ``text`` of the caller's own, to change (``text`` parsed before: :func:`parsed`).

    Parsing again is C: on a 500-line file ~5 ms, where ``copy.deepcopy`` of the shared tree took ~40 ms.
    """
    return ast.parse(text)


@lru_cache(maxsize=16)
def dumped(text: str) -> str:
    """``ast.dump`` of :func:`parsed` ``(text)``: several rules compare whole trees of the same two texts."""
    return ast.dump(parsed(text))


def top_defs(tree: ast.Module) -> list[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]]:
    """``(qualified name, def)`` of each module-level function and each method of a module-level class."""
    out: list[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]] = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            out.append((node.name, node))
        elif isinstance(node, ast.ClassDef):
            out += [(f"{node.name}.{m.name}", m) for m in node.body
                    if isinstance(m, ast.FunctionDef | ast.AsyncFunctionDef)]
    return out



def defs_by_name(text: str) -> dict[str, ast.FunctionDef | ast.AsyncFunctionDef] | None:
    """:func:`top_defs` of ``text`` by qualified name (the last def bound wins); None when it does not parse."""
    try:
        return dict(top_defs(parsed(text)))
    except (SyntaxError, ValueError, RecursionError):
        return None


def def_source(lines: tuple[str, ...] | list[str], fn: ast.FunctionDef | ast.AsyncFunctionDef, most: int) -> str:
    """The text of ``fn`` (its decorators too) in the file's ``lines``, cut after ``most`` lines."""
    start = min([fn.lineno, *(d.lineno for d in fn.decorator_list)])
    return "\n".join(lines[start - 1:min(fn.end_lineno or fn.lineno, start + most - 1)])
