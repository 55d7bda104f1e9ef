"""One parse per text: the reading, the planner and the checks read the same syntax trees and never change them.

``check_result`` runs a dozen rules on the same two texts, and each used to parse both: on a 500-line
file that was most of the check's time. The file as it is was parsed again by each of them for every
reply judged (the first reply and its retry, each step of a plan, the plan's whole file), by the symbol
table (:func:`coder.edit.source.regions.python_symbols`), the syntax check, pyflakes and the budget:
~25 parses of one text per ``coder edit``, ~2-5 ms each on a 2-core box. A rule that needs to change a
tree (folding constants, stripping docstrings) parses its own (:func:`fresh`).
"""

from __future__ import annotations

import ast
import weakref
from functools import lru_cache


@lru_cache(maxsize=16)  # the file, each reply judged and its splices: a plan holds a dozen
def parsed(text: str) -> ast.Module:
    """The syntax tree of ``text`` (shared: do not change it); raises SyntaxError as :func:`ast.parse` does."""
    return ast.parse(text)


def if_parses(text: str, fallback: str) -> str:
    """``text`` when it parses as Python, else ``fallback``: a mechanical rewrite that broke the file is not made."""
    try:
        parsed(text)
    except (SyntaxError, ValueError, RecursionError):
        return fallback
    return text


def assigned_names(text: str) -> frozenset[str]:
    """The names ``text`` assigns at its top level (``_dateParser = re.compile(...)``, ``x: int = 0``); none when it
    does not parse."""
    try:
        body = parsed(text).body
    except (SyntaxError, ValueError, RecursionError):
        return frozenset()
    return frozenset(t.id for node in body if isinstance(node, ast.Assign | ast.AnnAssign)
                     for t in (node.targets if isinstance(node, ast.Assign) else [node.target])
                     if isinstance(t, ast.Name))


def fresh(text: str) -> ast.Module:
    """A syntax tree of ``text`` of the caller's own, to change (``text`` parsed before: :func:`parsed`).

    Parsing again is C: on a 500-line file ~5 ms, where ``copy.deepcopy`` of the shared tree took ~40 ms.
    """
    return ast.parse(text)


@lru_cache(maxsize=16)
def dumped(text: str) -> str:
    """``ast.dump`` of :func:`parsed` ``(text)``: several rules compare whole trees of the same two texts."""
    return ast.dump(parsed(text))


_DUMPS: weakref.WeakKeyDictionary[ast.AST, str] = weakref.WeakKeyDictionary()


def same_node(a: ast.AST, b: ast.AST) -> bool:
    """``ast.dump(a) == ast.dump(b)`` for nodes of shared trees (:func:`parsed`), each node dumped once.

    Several rules ask, def by def, whether a def of the file as it is and its namesake in the reply are the
    same code; the file's defs were dumped again by each rule and for each reply judged (a retry, a plan's
    steps and its whole file). The same tree (an unchanged reply) is the same code without a dump.
    """
    return a is b or _dump(a) == _dump(b)


def _dump(node: ast.AST) -> str:
    found = _DUMPS.get(node)
    if found is None:
        found = _DUMPS[node] = ast.dump(node)
    return found


@lru_cache(maxsize=16)
def every_node(text: str) -> tuple[ast.AST, ...]:
    """``ast.walk`` of the shared tree of ``text`` (:func:`parsed`), in its order, walked once: several rules walk
    the whole file for their own kinds of node, and :func:`ast.walk` costs ~1 ms a walk of a 300-line file."""
    return tuple(ast.walk(parsed(text)))


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



_NESTED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)


def own_nodes(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.AST]:
    """The nodes of ``fn``'s body, without those of the defs, classes and lambdas nested in it (their own scopes)."""
    out: list[ast.AST] = []
    todo: list[ast.AST] = list(fn.body)
    while todo:
        node = todo.pop()
        out.append(node)
        if not isinstance(node, _NESTED):
            todo.extend(ast.iter_child_nodes(node))
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
