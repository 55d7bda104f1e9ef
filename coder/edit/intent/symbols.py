"""The symbol table an instruction's words are resolved against: every def and class of the files involved.

Python files are read with :mod:`ast` (through :func:`coder.edit.source.regions.python_symbols`);
other languages with tree-sitter when its grammar is installed. A file that does not parse
contributes nothing: its names cannot be resolved, so an instruction about it stays an
ordinary request. For a reach beyond one file (a rename everywhere), :func:`tracked_python`
gives the repository's tracked Python files.
"""

from __future__ import annotations

import ast
import re
import subprocess
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePath
from typing import Literal

from coder.edit.intent.calls import Calls, file_calls
from coder.edit.intent.spec import Symbol
from coder.edit.source.regions import GUARDS, parts, python_symbols, tree_sitter_symbols
from coder.edit.source.trees import parsed
from coder.errors import CoderError

PYTHON = (".py", ".pyi")


def file_symbols(rel: str, text: str) -> list[Symbol]:
    """Every def and class of one file, methods told apart from functions (nothing when it does not parse)."""
    try:
        found = python_symbols(text) if PurePath(rel).suffix.lower() in PYTHON else tree_sitter_symbols(rel, text)
    except (SyntaxError, ValueError, RecursionError, CoderError):
        return []
    classes = {q for q, r in found if r.kind == "class"}
    out = []
    for qual, region in found:
        owner = qual.rpartition(".")[0]
        kind: Literal["function", "method", "class"] = (
            "class" if region.kind == "class" else "method" if owner in classes else "function")
        out.append(Symbol(rel, qual, kind, region.start, region.end))
    return out


Defs = tuple[dict[str, tuple[str, ...]], dict[str, "Calls"], dict[str, tuple[str, ...]]]


def file_defs(rel: str, text: str) -> Defs:
    """Each Python def's parameter names (``**kw`` last where it takes any keyword) and its :class:`Calls`, and
    each class's bases as spelled (their last names), by qualified name (nothing for other languages or broken
    files)."""
    if PurePath(rel).suffix.lower() not in PYTHON:
        return {}, {}, {}
    try:
        tree = parsed(text)
    except (SyntaxError, ValueError, RecursionError):
        return {}, {}, {}
    out: dict[str, tuple[str, ...]] = {}
    bases: dict[str, tuple[str, ...]] = {}

    def walk(body: list[ast.stmt], prefix: str, local: bool = False) -> None:
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                a = node.args
                # "**kw" marks a def that takes any keyword: an example's keyword is no new parameter of it
                kwarg = (f"**{a.kwarg.arg}",) if a.kwarg is not None else ()
                out[prefix + node.name] = tuple(x.arg for x in (*a.posonlyargs, *a.args, *a.kwonlyargs)) + kwarg
                walk(node.body, prefix + node.name + ".", local=True)
            elif isinstance(node, ast.ClassDef):
                bases[prefix + node.name] = tuple(b.id if isinstance(b, ast.Name) else b.attr for b in node.bases
                                                  if isinstance(b, ast.Name | ast.Attribute))
                walk(node.body, prefix + node.name + ".")
            elif isinstance(node, GUARDS) and not local:  # the defs of an `if`, `try` or `with` (python_symbols)
                for part in parts(node):
                    walk(part, prefix)

    walk(tree.body, "")
    return out, file_calls(tree), bases


@dataclass(frozen=True)
class SymbolTable:
    """The symbols of the files involved, ``home`` (the file being edited) first."""

    home: str
    symbols: tuple[Symbol, ...]
    params: Mapping[tuple[str, str], tuple[str, ...]] = field(default_factory=dict)  # (rel, qualname) -> names
    calls: Mapping[tuple[str, str], Calls] = field(default_factory=dict)  # (rel, qualname) -> its calls in rel
    # the attributes the edited file's code reads or sets ("self.width", a class-level "width = 70")
    attributes: frozenset[str] = frozenset()
    texts: Mapping[str, str] = field(default_factory=dict)  # rel -> text: a def described, not named, is read there
    bases: Mapping[tuple[str, str], tuple[str, ...]] = field(default_factory=dict)  # (rel, class) -> its bases' names

    @classmethod
    def of(cls, files: Mapping[str, str], home: str) -> SymbolTable:
        """The table of ``files`` (relative path -> text); ``home``'s symbols come first."""
        order = [home, *sorted(r for r in files if r != home)] if home in files else sorted(files)
        params: dict[tuple[str, str], tuple[str, ...]] = {}
        calls: dict[tuple[str, str], Calls] = {}
        bases: dict[tuple[str, str], tuple[str, ...]] = {}
        for rel in order:
            names, called, based = file_defs(rel, files[rel])
            params.update(((rel, q), n) for q, n in names.items())
            calls.update(((rel, q), c) for q, c in called.items())
            bases.update(((rel, q), b) for q, b in based.items())
        return cls(home, tuple(s for rel in order for s in file_symbols(rel, files[rel])), params, calls,
                   _attributes(home, files.get(home, "")), files, bases)

    @property
    def module(self) -> str:
        """The edited file's module name, lower case ("mimetypes" of ``lib/mimetypes.py``)."""
        return self.home.rsplit("/", 1)[-1].removesuffix(".py").lower()

    def delegated(self, symbol: Symbol) -> list[Symbol]:
        """The defs of ``symbol``'s file it hands a parameter on to, and those they call in turn (the
        whole chain), after ``symbol`` itself; ``[symbol]`` alone when it hands nothing on."""
        first = self.calls.get((symbol.rel, symbol.qualname))
        if first is None or not first.hands_on:
            return [symbol]
        by_name = {s.qualname: s for s in self.in_file(symbol.rel)}
        seen = [symbol.qualname]
        for qual in seen:  # breadth first: the list grows as it is walked
            found = self.calls.get((symbol.rel, qual))
            seen += [c for c in (found.callees if found else ()) if c not in seen and c in by_name]
        return [by_name[q] for q in seen]

    def has_param(self, symbol: Symbol, name: str) -> bool:
        """Whether the def ``symbol`` already takes a parameter ``name``."""
        return name in self.params.get((symbol.rel, symbol.qualname), ())

    def lookup(self, word: str) -> list[Symbol]:
        """The symbols ``word`` names: its qualified name or its last parts, whatever the case.

        An exact-case match wins over a case-insensitive one, and the home file over the others,
        so ``Queue`` and ``queue`` stay apart when both are defined.
        """
        word = word.strip("`").removesuffix("()").strip(".")
        if not word:
            return []
        module, _, rest = word.partition(".")
        for exact in (True, False):
            key = word if exact else word.lower()
            hits = [s for s in self.symbols if _names(s.qualname, key, exact=exact)]
            if hits:
                home = [s for s in hits if s.rel == self.home]
                return home or hits
            if exact and rest and module == PurePath(self.home).stem:  # "base64.encode": the module's own encode
                found = [s for s in self.lookup(rest) if s.rel == self.home]
                # "code.interact()": the module-level def, not InteractiveConsole.interact; "profile.run()": the
                # module's run, not the class Profile's (its name differs from the module's in case only)
                if found:
                    return [s for s in found if s.qualname == rest] or found
        return self.inherited(word)

    def qualifies(self, cls: Symbol, method: Symbol) -> bool:
        """Whether the class ``cls`` has ``method`` as a member, its own or inherited from a base of the file."""
        return cls.kind == "class" and method.kind == "method" and cls.rel == method.rel and (
            method.qualname.rpartition(".")[0] == cls.qualname
            or self.inherited(f"{cls.qualname}.{method.name}") == [method])

    def inherited(self, word: str) -> list[Symbol]:
        """``C.m`` where the class C defines no method at all: the m of its nearest base the same file defines
        ("PollSelector.select" is ``_PollLikeSelector.select``: PollSelector only sets class attributes), else
        nothing. A class with methods of its own stays the place: "PriorityQueue.get() is out of order" is about the
        ``_get`` that PriorityQueue overrides and ``Queue.get`` calls."""
        owner, _, member = word.rpartition(".")
        if not owner or not member:
            return []
        for cls in (s for s in self.symbols if s.kind == "class" and s.qualname == owner and not any(
                m.rel == s.rel and m.kind == "method" and m.qualname.startswith(owner + ".") for m in self.symbols)):
            seen, todo = {owner}, list(self.bases.get((cls.rel, owner), ()))
            while todo:
                base = todo.pop(0)
                if base in seen:
                    continue
                seen.add(base)
                hit = [s for s in self.symbols if s.rel == cls.rel and s.qualname == f"{base}.{member}"]
                if hit:
                    return hit
                todo += self.bases.get((cls.rel, base), ())
        return []

    def member(self, owner: Symbol, word: str) -> Symbol | None:
        """``owner``'s own member named ``word`` (any case), if it has one."""
        want = f"{owner.qualname}.{word.strip('`').removesuffix('()')}".lower()
        return next((s for s in self.symbols if s.rel == owner.rel and s.qualname.lower() == want), None)

    def in_file(self, rel: str | None = None) -> list[Symbol]:
        """The symbols of ``rel`` (the home file by default)."""
        rel = rel or self.home
        return [s for s in self.symbols if s.rel == rel]


def _names(qualname: str, key: str, *, exact: bool) -> bool:
    q = qualname if exact else qualname.lower()
    return q == key or q.endswith("." + key)


def used_elsewhere(files: Mapping[str, str], home: str, names: Iterable[str]) -> bool:
    """Whether a file of ``files`` other than ``home`` has one of ``names`` as a word (a use, an import, a def)."""
    word = re.compile(r"\b(?:" + "|".join(re.escape(n) for n in names) + r")\b")
    return any(word.search(text) for rel, text in files.items() if rel != home)


def tracked_python(root: Path, exclude: Iterable[str] = ()) -> dict[str, str]:
    """The repository's tracked Python files (relative path -> text), for a reach beyond one file."""
    try:
        out = subprocess.run(["git", "-C", str(root), "ls-files", "-z", "--", "*.py", "*.pyi"],
                             capture_output=True, check=True, timeout=20).stdout.decode("utf-8", "replace")
    except (OSError, subprocess.SubprocessError):
        return {}
    skip = set(exclude)
    files = {}
    for rel in filter(None, out.split("\0")):
        if rel in skip:
            continue
        try:
            files[rel] = (root / rel).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue  # unreadable or not UTF-8: its names are not resolved
    return files


def outermost(targets: list[Symbol]) -> list[Symbol]:
    """``targets`` without a def nested in another target def: "extend hook_encoded ..., which the openhook it
    returns hands to open()" changes hook_encoded, and the openhook with it (a class keeps its named methods)."""
    return [t for t in targets if not any(
        o.rel == t.rel and o.kind != "class" and t.qualname.startswith(o.qualname + ".") for o in targets)]


def _attributes(rel: str, text: str) -> frozenset[str]:
    """The attribute names a Python file's code spells: ``x.NAME`` anywhere and ``NAME = ...`` in a class body."""
    if PurePath(rel).suffix.lower() not in PYTHON:
        return frozenset()
    try:
        tree = parsed(text)
    except (SyntaxError, ValueError, RecursionError):
        return frozenset()
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            out.add(node.attr)
        elif isinstance(node, ast.ClassDef):
            out |= {t.id for stmt in node.body if isinstance(stmt, ast.Assign | ast.AnnAssign)
                    for t in (stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target])
                    if isinstance(t, ast.Name)}
    return frozenset(out)
