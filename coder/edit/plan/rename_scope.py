"""Decide whether a rename is exact by scope analysis alone, so the plan needs no model request.

A rename plan's expected text is already mechanical: every identifier token ``old`` becomes
``new`` (:func:`coder.edit.source.splice.rename_tokens`). That text is right exactly when every such
token binds to the one symbol being renamed. :func:`ambiguity` checks this with Python's
:mod:`symtable` (how each scope binds the name) and :mod:`ast` (where each occurrence sits), and
counts the occurrences against the tokenizer's, so a use it does not classify makes the rename
ambiguous rather than silently renamed. The symbol is one of:

- **module**: a module-level def, class, variable or import, used at module scope and in every
  nested scope where it is global (no local, parameter, comprehension variable or class
  attribute of the same name anywhere); in other files, through ``from M import NAME`` and
  ``M.NAME`` after ``import M``;
- **attribute**: a method or attribute of one class, used in its own body, as ``self.NAME`` or
  ``cls.NAME`` inside that class, and as ``ClassName.NAME``;
- **local**: a variable or parameter of one function (and of the functions nested in it), plus
  keyword arguments in calls of that function by name when it is module-level.

Anything else (``other.NAME`` on an unknown receiver, ``getattr(x, "NAME")``, the name in an
f-string or ``__slots__``, the new name already in use) is ambiguous: the plan asks the model.
"""

from __future__ import annotations

import ast
import io
import re
import symtable
import tokenize
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from coder.edit.checks.result import PARSE_LOCK

_REFLECT = {"getattr", "setattr", "hasattr", "delattr"}
_SELF = {"self", "cls"}


@dataclass
class _Use:
    """One occurrence of the old name in a file's syntax tree, and where it sits."""

    kind: str  # name | def | arg | attr | kwarg | import | global | string
    node: ast.AST
    classes: tuple[ast.ClassDef, ...]  # the enclosing classes, innermost last
    funcs: tuple[ast.AST, ...]  # the enclosing functions and lambdas, innermost last
    in_body: ast.AST | None = None  # the innermost scope (class or function) the occurrence is directly in


@dataclass
class _File:
    rel: str
    text: str
    tree: ast.Module
    table: symtable.SymbolTable
    uses: list[_Use] = field(default_factory=list)


def ambiguity(files: Mapping[str, str], pairs: Sequence[tuple[str, str]], home: str) -> str | None:
    """None when the token rename of ``pairs`` over ``files`` is exact; else why it is ambiguous.

    ``home`` is the file that defines the renamed symbol(s); the others may only use it through
    imports of ``home``.
    """
    olds = [a for a, _ in pairs]
    if not pairs:
        return "no rename"
    if len(set(olds)) != len(olds) or set(olds) & {b for _, b in pairs}:
        return "the renames overlap"
    try:
        with PARSE_LOCK:
            parsed = {rel: _File(rel, text, ast.parse(text), symtable.symtable(text, rel, "exec"))
                      for rel, text in files.items()}
    except (SyntaxError, ValueError, RecursionError) as exc:
        return f"does not parse ({exc})"
    if home not in parsed:
        return f"{home} is not among the files"
    for old, new in pairs:
        why = _one(parsed, home, old, new)
        if why is not None:
            return f"`{old}`: {why}"
    return None


def _one(files: dict[str, _File], home: str, old: str, new: str) -> str | None:
    for f in files.values():
        names = name_tokens(f.text)
        if new in names:
            return f"`{new}` is already used in {f.rel}"
        f.uses = list(collect(f.tree, old))
        counted = sum(1 for u in f.uses if u.kind != "string")
        if counted != names.get(old, 0):
            return f"{f.rel}: {names.get(old, 0) - counted} use(s) the analysis cannot place"
        if any(u.kind == "string" for u in f.uses):
            return f"{f.rel}: the name is used in a string (getattr, __slots__, an f-string or an annotation)"
    h = files[home]
    kind = _kind(h, old)
    if kind is None:
        return f"{home} does not bind it in one place"
    others = [f for rel, f in files.items() if rel != home and f.uses]
    if kind == "module":
        why = _module_uses(h, old)
        for f in others:
            why = why or _imported_uses(f, home, old)
        return why
    if others:
        return f"{others[0].rel} uses it, and only a module-level name is renamed across files"
    return _attribute_uses(h, old) if kind == "attribute" else _local_uses(h, old)


# --- what the name is ---------------------------------------------------------------------------

def scope_tables(table: symtable.SymbolTable) -> Iterator[symtable.SymbolTable]:
    """``table`` and every scope nested in it, outermost first."""
    yield table
    for child in table.get_children():
        yield from scope_tables(child)


def _holding(f: _File, old: str) -> list[symtable.SymbolTable]:
    """Every scope whose symbol table names ``old``."""
    return [t for t in scope_tables(f.table) if old in t.get_identifiers()]


def binds(t: symtable.SymbolTable, old: str) -> bool:
    """Whether scope ``t`` binds ``old`` itself (a parameter, an assignment, an import, a def or class)."""
    s = t.lookup(old)
    return s.is_parameter() or (s.is_local() and (s.is_assigned() or s.is_imported() or s.is_namespace()))


def _kind(f: _File, old: str) -> str | None:
    """module, attribute or local: what ``old`` names in its home file (None: not one thing)."""
    if old in f.table.get_identifiers() and binds(f.table, old):
        return "module"
    if _owner(f, old) is not None:
        return "attribute"
    bound = [t for t in _holding(f, old) if t.get_type() == "function" and binds(t, old)]
    return "local" if len(bound) == 1 else None


def _owner(f: _File, old: str) -> ast.ClassDef | None:
    """The one class whose body binds ``old`` or whose methods assign ``self.old``."""
    owners: set[ast.ClassDef] = set()
    for u in f.uses:
        stored = u.kind == "def" or (isinstance(u.node, ast.Name) and not isinstance(u.node.ctx, ast.Load))
        if stored and isinstance(u.in_body, ast.ClassDef):
            owners.add(u.in_body)
        if (u.kind == "attr" and isinstance(u.node, ast.Attribute) and isinstance(u.node.ctx, ast.Store)
                and isinstance(u.node.value, ast.Name) and u.node.value.id in _SELF and u.classes):
            owners.add(u.classes[-1])
    return owners.pop() if len(owners) == 1 else None


# --- where it is used ---------------------------------------------------------------------------

def _module_uses(f: _File, old: str, *, home: bool = True) -> str | None:
    """A module-level name: every scope sees the module's binding; no attribute or keyword shares it.

    In its home file the name must be defined there: renaming ``from x import old`` would import
    a name ``x`` does not have.
    """
    for u in f.uses:
        if home and u.kind == "import" and isinstance(u.node, ast.alias) and u.node.name.split(".")[0] == old:
            return f"{f.rel} line {getattr(u.node, 'lineno', 0)} imports `{old}`: rename it where it is defined"
    for t in _holding(f, old):
        if t is f.table:
            continue
        s = t.lookup(old)
        if not s.is_global():
            return f"{f.rel}: {t.get_type()} {t.get_name()} (line {t.get_lineno()}) has its own `{old}`"
    return _stray(f, {"name", "def", "import", "global"}, old)


def _stray(f: _File, allowed: set[str], old: str) -> str | None:
    for u in f.uses:
        if u.kind not in allowed:
            line = getattr(u.node, "lineno", 0)
            what = "an attribute of another object" if u.kind == "attr" else f"a {u.kind}"
            return f"{f.rel} line {line}: `{old}` as {what}"
    return None


def _attribute_uses(f: _File, old: str) -> str | None:
    """A class member: its own body, ``self``/``cls`` inside the class, and ``ClassName.old``."""
    owner = _owner(f, old)
    if owner is None:
        return f"{f.rel}: no one class owns it"
    for t in _holding(f, old):
        if not (t.get_type() == "class" and t.get_name() == owner.name and t.get_lineno() == owner.lineno):
            return f"{f.rel}: {t.get_type()} {t.get_name()} (line {t.get_lineno()}) names `{old}` itself"
    for u in f.uses:
        if u.kind in ("def", "name") and u.in_body is owner:
            continue
        if u.kind == "attr" and isinstance(u.node, ast.Attribute) and isinstance(u.node.value, ast.Name):
            receiver = u.node.value.id
            if receiver == owner.name or (receiver in _SELF and u.classes and u.classes[-1] is owner):
                continue
        return _stray(f, set(), old) if u.kind != "attr" else (
            f"{f.rel} line {getattr(u.node, 'lineno', 0)}: `.{old}` on a receiver that may not be {owner.name}")
    return None


def _local_uses(f: _File, old: str) -> str | None:
    """A function's variable or parameter: that function, the functions nested in it, its keyword calls."""
    holders = _holding(f, old)
    bound = [t for t in holders if t.get_type() == "function" and binds(t, old)]
    home = bound[0]
    inside = set(map(id, scope_tables(home)))
    for t in holders:
        s = t.lookup(old)
        if id(t) not in inside or (t is not home and not s.is_free()):
            return f"{f.rel}: {t.get_type()} {t.get_name()} (line {t.get_lineno()}) has its own `{old}`"
    module_level = any(c is home for c in f.table.get_children())
    for u in f.uses:
        if u.kind == "kwarg" and module_level and isinstance(u.node, ast.keyword):
            call = getattr(u.node, "call", None)
            if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == home.get_name():
                continue
            return f"{f.rel} line {u.node.lineno}: `{old}=` in a call of another function"
        if u.kind not in ("name", "def", "arg", "global"):
            return _stray(f, {"name", "def", "arg", "global"}, old)
    return None


def _imported_uses(f: _File, home: str, old: str) -> str | None:
    """Another file: ``from home import old`` (then its uses) and ``M.old`` where ``import M`` is home."""
    aliases: set[str] = set()
    bound = False
    for node in ast.walk(f.tree):
        if isinstance(node, ast.Import):
            aliases |= {a.asname or a.name for a in node.names if _module_file(a.name, 0, f.rel, home)}
        elif isinstance(node, ast.ImportFrom) and _module_file(node.module or "", node.level, f.rel, home):
            bound = bound or any(a.name == old and a.asname is None for a in node.names)
    for u in f.uses:
        if u.kind == "attr" and isinstance(u.node, ast.Attribute) and ast.unparse(u.node.value) in aliases:
            continue
        if (u.kind == "import" and isinstance(u.node, ast.alias) and u.in_body is f.tree
                and isinstance(getattr(u.node, "parent", None), ast.ImportFrom)):
            continue
        if u.kind in ("name", "global") and bound:
            continue
        return f"{f.rel} line {getattr(u.node, 'lineno', 0)}: `{old}` here is not {home}'s"
    if bound:  # the imported name must be the module's only `old`, seen by every scope
        return _module_uses(f, old, home=False) if not _rebinds(f, old) else f"{f.rel} binds `{old}` itself too"
    return None


def _rebinds(f: _File, old: str) -> bool:
    return any(u.kind == "def" or (u.kind == "name" and isinstance(u.node, ast.Name)
                                   and not isinstance(u.node.ctx, ast.Load)) for u in f.uses)


def _module_file(module: str, level: int, rel: str, home: str) -> bool:
    """``from <level dots><module> import`` in ``rel`` names the module file ``home``."""
    base = PurePosixPath(rel).parent
    for _ in range(max(0, level - 1)):
        base = base.parent
    parts = [p for p in module.split(".") if p]
    path = str(PurePosixPath(*parts)) if parts else ""
    if level:
        path = str(base / path) if path else str(base)
    for candidate in (path + ".py", path + ".pyi", path + "/__init__.py"):
        candidate = candidate.removeprefix("./")
        if home == candidate or (not level and home.endswith("/" + candidate)):
            return True
    return False


# --- collecting ---------------------------------------------------------------------------------

def name_tokens(text: str, rows: tuple[int, int] | None = None) -> dict[str, int]:
    """How often each identifier token occurs in ``text`` (on lines ``rows``, first and last, when given)."""
    counts: dict[str, int] = {}
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type == tokenize.NAME and (rows is None or rows[0] <= tok.start[0] <= rows[1]):
            counts[tok.string] = counts.get(tok.string, 0) + 1
    return counts


def collect(tree: ast.Module, old: str) -> Iterator[_Use]:
    """Every occurrence of ``old`` the analysis understands (a ``string`` use makes it ambiguous)."""
    yield from _walk(tree, old, (), (), tree, False)
    word = re.compile(rf"(?<!\w){re.escape(old)}(?!\w)")
    for node in ast.walk(tree):  # a string annotation ("list[Node]") names it too, and is not renamed
        ann = [getattr(node, "annotation", None), getattr(node, "returns", None)]
        for part in (n for a in ann if isinstance(a, ast.AST) for n in ast.walk(a)):
            if isinstance(part, ast.Constant) and isinstance(part.value, str) and word.search(part.value):
                yield _Use("string", part, (), (), tree)


@dataclass(frozen=True)
class _Where:
    """The scopes around a node while walking: its classes, its functions, the one it sits directly in."""

    classes: tuple[ast.ClassDef, ...]
    funcs: tuple[ast.AST, ...]
    body: ast.AST

    def use(self, kind: str, at: ast.AST) -> _Use:
        return _Use(kind, at, self.classes, self.funcs, self.body)


def _walk(node: ast.AST, old: str, classes: tuple[ast.ClassDef, ...], funcs: tuple[ast.AST, ...],
          body: ast.AST, in_all: bool) -> Iterator[_Use]:
    where = _Where(classes, funcs, body)
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
        yield from _walk_scope(node, old, where)
        return
    yield from _here(node, old, where, in_all)
    if isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign):  # ``__all__``'s strings name symbols
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        in_all = any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets)
    for child in ast.iter_child_nodes(node):
        yield from _walk(child, old, classes, funcs, body, in_all)


def _walk_scope(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda, old: str,
                where: _Where) -> Iterator[_Use]:
    """A def, class or lambda: its name, decorators, defaults and bases in the outer scope; the rest inside."""
    outer: list[ast.AST] = []
    if not isinstance(node, ast.Lambda):
        if node.name == old:
            yield where.use("def", node)
        outer += node.decorator_list
    if isinstance(node, ast.ClassDef):
        outer += [*node.bases, *node.keywords]
    else:
        outer += [*node.args.defaults, *(d for d in node.args.kw_defaults if d is not None)]
        if not isinstance(node, ast.Lambda):
            outer += [a.annotation for a in _all_args(node.args) if a.annotation is not None]
            outer += [node.returns] if node.returns is not None else []
    for child in outer:
        yield from _walk(child, old, where.classes, where.funcs, where.body, False)
    if isinstance(node, ast.ClassDef):
        inner = _Where((*where.classes, node), where.funcs, node)
    else:
        inner = _Where(where.classes, (*where.funcs, node), node)
        yield from (inner.use("arg", a) for a in _all_args(node.args) if a.arg == old)
    for stmt in node.body if isinstance(node.body, list) else [node.body]:
        yield from _walk(stmt, old, inner.classes, inner.funcs, node, False)


def _here(node: ast.AST, old: str, where: _Where, in_all: bool) -> Iterator[_Use]:
    """The occurrences of ``old`` that ``node`` itself holds (not its children's)."""
    if isinstance(node, ast.Name) and node.id == old:
        yield where.use("name", node)
    elif isinstance(node, ast.Attribute) and node.attr == old:
        yield where.use("attr", node)
    elif isinstance(node, ast.Call):
        for kw in node.keywords:
            if kw.arg == old:
                kw.call = node  # type: ignore[attr-defined]  # the call a keyword belongs to, for _local_uses
                yield where.use("kwarg", kw)
        if isinstance(node.func, ast.Name) and node.func.id in _REFLECT and any(
                isinstance(a, ast.Constant) and a.value == old for a in node.args):
            yield where.use("string", node)
    elif isinstance(node, (ast.Import, ast.ImportFrom)):
        for alias in node.names:
            alias.parent = node  # type: ignore[attr-defined]  # which statement imports it, for _imported_uses
            first = alias.name.split(".")[0] if isinstance(node, ast.Import) else alias.name
            for _ in range((first == old) + (alias.asname == old)):
                yield where.use("import", alias)
    elif isinstance(node, (ast.Global, ast.Nonlocal)):
        yield from (where.use("global", node) for n in node.names if n == old)
    elif ((isinstance(node, ast.Constant) and node.value == old and not in_all)
          or (isinstance(node, ast.JoinedStr) and any(_walk_names(v, old) for v in node.values))):
        yield where.use("string", node)


def _walk_names(node: ast.AST, old: str) -> bool:
    return any(isinstance(n, ast.Name) and n.id == old for n in ast.walk(node))


def _all_args(args: ast.arguments) -> list[ast.arg]:
    extra = [a for a in (args.vararg, args.kwarg) if a is not None]
    return [*args.posonlyargs, *args.args, *args.kwonlyargs, *extra]
