"""Locate the region of a file an edit replaces: a symbol (real parser) or a line range.

Python symbols come from :mod:`ast` (``func``, ``Class``, ``Class.method``, nested to any
depth). Other languages use tree-sitter grammars when the optional packages
``tree-sitter`` and ``tree-sitter-<language>`` are installed; otherwise symbol lookup
says it is unsupported and points to ``--lines``. Never regexes.
"""

from __future__ import annotations

import ast
import importlib
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from pathlib import PurePath
from typing import Any

from coder.edit.source.trees import parsed
from coder.errors import CoderError


@dataclass(frozen=True)
class Region:
    """Lines ``start..end`` (1-based, inclusive) of a file, with what they are."""

    start: int
    end: int
    label: str  # "function load", "lines 10-20", ...
    name: str | None = None  # the symbol's bare name, when a symbol
    kind: str | None = None  # "function" | "class" | None for a line range
    # the lines of the ``if``/``try``/``with`` statement a def sits in at its level (``if hasattr(socket,
    # "AF_UNIX"):``), else None: cutting or moving such a def changes when it exists, not only where it is
    within: tuple[int, int] | None = None

    @property
    def n_lines(self) -> int:
        """Lines in the region."""
        return self.end - self.start + 1


@dataclass(frozen=True)
class Split:
    """A file cut around a region: ``before + target + after == text``."""

    before: str
    target: str
    after: str


def split(text: str, region: Region) -> Split:
    """``text`` cut into before / the region / after."""
    lines = text.splitlines(keepends=True)
    return Split(
        "".join(lines[: region.start - 1]),
        "".join(lines[region.start - 1 : region.end]),
        "".join(lines[region.end :]),
    )


def context_lines(part: str, n: int, *, tail: bool) -> str:
    """The last (``tail``) or first ``n`` lines of ``part``."""
    lines = part.splitlines(keepends=True)
    return "".join(lines[-n:] if tail else lines[:n]) if n > 0 else ""


def line_range(text: str, spec: str) -> Region:
    """Parse ``A-B`` (or a single ``A``) against ``text``; raises on bad or out-of-bounds ranges."""
    total = len(text.splitlines())
    head, sep, tail = spec.partition("-")
    try:
        start = int(head)
        end = int(tail) if sep else start
    except ValueError:
        raise CoderError(f"--lines must look like A-B (e.g. 10-42), got {spec!r}") from None
    if start < 1 or end < start:
        raise CoderError(f"--lines {spec}: need 1 <= A <= B")
    if end > total:
        raise CoderError(f"--lines {spec}: out of bounds, the file has {total} lines")
    return Region(start, end, f"lines {start}-{end}")


# --- Python (ast) -----------------------------------------------------------------

_PY_KINDS: dict[type, str] = {
    ast.FunctionDef: "function", ast.AsyncFunctionDef: "function", ast.ClassDef: "class",
}


def python_symbols(text: str) -> list[tuple[str, Region]]:
    """Every def/class with its qualified name (``Outer.inner``), decorators included; those inside an ``if``,
    ``try`` or ``with`` too (:attr:`Region.within`), but for a name two of its branches define."""
    return list(_python_symbols(text))


@lru_cache(maxsize=16)  # the reading, the planner and most checks ask it of the same few texts
def _python_symbols(text: str) -> tuple[tuple[str, Region], ...]:
    tree = parsed(text)
    out: list[tuple[str, Region]] = []

    def visit(body: list[ast.stmt], prefix: str, within: tuple[int, int] | None = None, local: bool = False) -> None:
        for node in body:
            if isinstance(node, GUARDS) and not local:  # a def's own `if` holds closures, not the module's names
                # the defs of a platform's `if`, an import's `try` fallback: names of the module or class all the
                # same (socketserver's Unix servers were no symbol, so "take out UnixStreamServer" went in windows)
                outer = within or (node.lineno, node.end_lineno or node.lineno)
                for part in parts(node):
                    visit(part, prefix, outer, local)
                continue
            kind = _PY_KINDS.get(type(node))
            if kind is None:
                continue
            assert isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
            qual = f"{prefix}{node.name}"
            start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            end = node.end_lineno or node.lineno
            out.append((qual, Region(start, end, f"{kind} {qual}", node.name, kind, within)))
            visit(node.body, qual + ".", local=kind == "function")

    visit(tree.body, "")
    # a name defined in two branches (`if win32: def f ... else: def f ...`) names neither for sure: none is kept
    guarded = {q for q, r in out if r.within is not None}
    twice = {q for q, n in Counter(q for q, _ in out).items() if n > 1 and q in guarded}
    return tuple((q, r) for q, r in out if q not in twice)


GUARDS = (ast.If, ast.Try, ast.TryStar, ast.With, ast.AsyncWith)  # the statements whose defs are symbols too


def parts(node: ast.stmt) -> list[list[ast.stmt]]:
    """The statement lists of an ``if``, ``try`` or ``with``."""
    if isinstance(node, ast.Try | ast.TryStar):
        return [node.body, *(h.body for h in node.handlers), node.orelse, node.finalbody]
    if isinstance(node, ast.If):
        return [node.body, node.orelse]
    assert isinstance(node, ast.With | ast.AsyncWith)
    return [node.body]


def class_tail(found: list[tuple[str, Region]], qual: str) -> Region:
    """Where a new method of class ``qual`` goes: its last direct member def through the class's end.

    ``found`` is :func:`python_symbols` of the file. A class without a def is the region itself.
    """
    cls = next(r for q, r in found if q == qual)
    members = [r for q, r in found if q.startswith(qual + ".") and "." not in q[len(qual) + 1:]]
    if not members:
        return cls
    start = max(r.start for r in members)
    return Region(start, cls.end, f"the end of class {qual} (lines {start}-{cls.end})")


def _pick(path: str, name: str, found: list[tuple[str, Region]]) -> Region:
    exact = [r for q, r in found if q == name]
    if len(exact) == 1:
        return exact[0]
    # A bare or partly qualified name ("load", "Inner.load") may match one symbol at
    # any depth; more than one is ambiguous.
    by_bare = exact or [r for q, r in found if q.endswith("." + name)]
    if len(by_bare) == 1:
        return by_bare[0]
    if not by_bare:
        raise CoderError(f"{path}: no symbol named {name!r}")
    names = sorted({q for q, r in found if r in by_bare or q == name})
    where = ", ".join(f"{r.label} (line {r.start})" for r in by_bare[:5])
    hint = f" (qualify it, e.g. {names[0]})" if names else ""
    raise CoderError(f"{path}: symbol {name!r} is ambiguous: {where}{hint}")


# --- other languages (tree-sitter, optional) -----------------------------------------

# extension -> (grammar module, language function, node types that are symbols)
_TS_LANGS: dict[str, tuple[str, str, frozenset[str]]] = {
    ".js": ("tree_sitter_javascript", "language", frozenset(
        {"function_declaration", "class_declaration", "method_definition",
         "generator_function_declaration"})),
    ".mjs": ("tree_sitter_javascript", "language", frozenset(
        {"function_declaration", "class_declaration", "method_definition"})),
    ".ts": ("tree_sitter_typescript", "language_typescript", frozenset(
        {"function_declaration", "class_declaration", "method_definition", "interface_declaration"})),
    ".rs": ("tree_sitter_rust", "language", frozenset(
        {"function_item", "struct_item", "enum_item", "impl_item", "trait_item"})),
    ".go": ("tree_sitter_go", "language", frozenset(
        {"function_declaration", "method_declaration", "type_declaration"})),
    ".c": ("tree_sitter_c", "language", frozenset({"function_definition", "struct_specifier"})),
}


def _ts_name(node: Any) -> str | None:
    named = node.child_by_field_name("name")
    if named is None:  # C: function_definition -> declarator -> ... -> identifier
        decl = node.child_by_field_name("declarator")
        while decl is not None and decl.child_by_field_name("declarator") is not None:
            decl = decl.child_by_field_name("declarator")
        named = decl
    if named is None and node.type == "type_declaration" and node.named_child_count:
        named = node.named_children[0].child_by_field_name("name")
    return named.text.decode("utf-8", "replace") if named is not None and named.text else None


def tree_sitter_symbols(path: str, text: str) -> list[tuple[str, Region]]:
    """Symbols of a non-Python file through its tree-sitter grammar (optional dependency)."""
    suffix = PurePath(path).suffix.lower()
    spec = _TS_LANGS.get(suffix)
    if spec is None:
        what = suffix or "extensionless"
        raise CoderError(f"{path}: symbol lookup is not supported for {what} files; use --lines A-B")
    module_name, func, kinds = spec
    try:
        ts = importlib.import_module("tree_sitter")
        grammar = importlib.import_module(module_name)
    except ImportError:
        pkg = module_name.replace("_", "-")
        raise CoderError(
            f"{path}: symbol lookup for {suffix} files needs `pip install tree-sitter {pkg}`; "
            "or use --lines A-B"
        ) from None
    parser = ts.Parser(ts.Language(getattr(grammar, func)()))
    tree = parser.parse(text.encode("utf-8"))
    out: list[tuple[str, Region]] = []

    def visit(node: Any, prefix: str) -> None:
        for child in node.named_children:
            qual_prefix = prefix
            if child.type in kinds:
                name = _ts_name(child)
                if name:
                    kind = child.type
                    for suffix_word in ("_declaration", "_definition", "_item"):
                        kind = kind.removesuffix(suffix_word)
                    qual = f"{prefix}{name}"
                    start, end = child.start_point[0] + 1, child.end_point[0] + 1
                    out.append((qual, Region(start, end, f"{kind} {qual}", name, kind)))
                    qual_prefix = qual + "."
            visit(child, qual_prefix)

    visit(tree.root_node, "")
    return out


def find_symbol(path: str, text: str, name: str) -> Region:
    """The region of symbol ``name`` (``Class.method`` allowed); raises if missing or ambiguous."""
    if PurePath(path).suffix.lower() in (".py", ".pyi"):
        try:
            found = python_symbols(text)
        except SyntaxError as exc:
            raise CoderError(
                f"{path}: cannot find symbols, the file does not parse (line {exc.lineno})") from None
    else:
        found = tree_sitter_symbols(path, text)
    return _pick(path, name, found)
