"""Mechanical checks of an edit's result: each says whether the new file is the edit asked for.

Where the edit is determined the check compares text (:class:`Exact`) or the syntax tree
of an expected file (:class:`SameAst`, blank lines and comments free). Where the wording is
free (a docstring, a comment, type hints, the body using a new parameter) the check
compares the syntax tree with the free part taken out, then checks that part is there.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from dataclasses import dataclass
from typing import Protocol

Def = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef


class Check(Protocol):
    """A check: ``(ok, why)`` for the ``new`` text of a file whose original was ``old``."""

    def __call__(self, old: str, new: str) -> tuple[bool, str]:
        """True when ``new`` is the edit the task asks for; the reason otherwise."""
        ...


def replace_once(text: str, edits: tuple[tuple[str, str], ...]) -> str:
    """``text`` with each ``old`` snippet (which must occur exactly once) replaced by ``new``."""
    for old, new in edits:
        if text.count(old) != 1:
            raise ValueError(f"snippet occurs {text.count(old)} times, not once: {old[:60]!r}")
        text = text.replace(old, new)
    return text


def rename_names(text: str, old: str, new: str) -> str:
    """``text`` with every identifier token ``old`` (code only, not strings or comments) renamed."""
    toks = list(tokenize.generate_tokens(io.StringIO(text).readline))
    lines = text.splitlines(keepends=True)
    # right to left, so earlier columns on a line stay valid
    for tok in reversed(toks):
        if tok.type == tokenize.NAME and tok.string == old:
            (row, col), (_, end) = tok.start, tok.end
            line = lines[row - 1]
            lines[row - 1] = line[:col] + new + line[end:]
    return "".join(lines)


def _parse(text: str) -> ast.Module | None:
    try:
        return ast.parse(text)
    except SyntaxError:
        return None


def _is_doc(node: ast.stmt) -> bool:
    return isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)


def _strip_docs(tree: ast.AST) -> ast.AST:
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            body = node.body
            if body and _is_doc(body[0]):
                node.body = body[1:] or [ast.Pass()]
    return tree


def functions_of(tree: ast.AST, target: str) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    """The function ``target``, or every method of the class ``target`` (empty when it is missing)."""
    node = find_def(tree, target)
    if isinstance(node, ast.ClassDef):
        return [n for n in node.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]
    return [node] if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) else []


def _strip_hints(tree: ast.AST, target: str) -> ast.AST:
    for fn in functions_of(tree, target):
        fn.returns = None
        args = fn.args
        for a in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]:
            if a is not None:
                a.annotation = None
    return tree


def _drop_imports(tree: ast.Module) -> ast.Module:
    tree.body = [n for n in tree.body if not isinstance(n, ast.Import | ast.ImportFrom)]
    return tree


def find_def(tree: ast.AST, qualname: str) -> Def | None:
    """The function or class ``qualname`` (``Class.method``) in ``tree``."""
    body = getattr(tree, "body", [])
    head, _, rest = qualname.partition(".")
    for node in body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and node.name == head:
            return find_def(node, rest) if rest else node
    return None


def _dump(tree: ast.AST | None) -> str:
    return ast.dump(tree) if tree is not None else ""


@dataclass(frozen=True)
class Exact:
    """The new text equals the original with ``edits`` applied (text fully determined)."""

    edits: tuple[tuple[str, str], ...]

    def expected(self, old: str) -> str:
        """The expected file."""
        return replace_once(old, self.edits)

    def __call__(self, old: str, new: str) -> tuple[bool, str]:
        """Byte-for-byte equality with the expected text."""
        return (True, "exact") if new == self.expected(old) else (False, "text differs from the expected file")


@dataclass(frozen=True)
class SameAst:
    """The new file's syntax tree equals the expected file's (blank lines and comments are free)."""

    edits: tuple[tuple[str, str], ...]
    # other results as right, each its own edits of the original ("del d[k]" for an unused "x = d.pop(k)")
    alternatives: tuple[tuple[tuple[str, str], ...], ...] = ()

    def expected(self, old: str) -> str:
        """The expected file."""
        return replace_once(old, self.edits)

    def __call__(self, old: str, new: str) -> tuple[bool, str]:
        """Tree equality with the expected file, or with one of the alternatives."""
        tree = _parse(new)
        if tree is None:
            return False, "does not parse"
        same = any(_dump(tree) == _dump(_parse(replace_once(old, edits))) for edits in (self.edits, *self.alternatives))
        return (True, "same syntax tree") if same else (False, "syntax tree differs from the expected file")


@dataclass(frozen=True)
class Renamed:
    """Every code use of ``old`` became ``new`` and nothing else changed (docstrings are free, and so is
    a string that is just the name, as in ``__all__``: renamed or not)."""

    old: str
    new: str

    def __call__(self, old: str, new: str) -> tuple[bool, str]:
        """Tree equality (docstrings stripped) with the token-renamed original."""
        tree = _parse(new)
        if tree is None:
            return False, "does not parse"
        want = _strip_docs(ast.parse(rename_names(old, self.old, self.new)))
        same = ast.dump(self._names_free(_strip_docs(tree))) == ast.dump(self._names_free(want))
        return (True, "renamed, nothing else changed") if same else (False, "code differs from the renamed file")

    def _names_free(self, tree: ast.AST) -> ast.AST:
        """A string that is just the old or the new name (an ``__all__`` entry) may be either."""
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and node.value == self.new:
                node.value = self.old
        return tree


@dataclass(frozen=True)
class Docstring:
    """``target`` gained a docstring; with docstrings stripped, nothing else changed."""

    target: str

    def __call__(self, old: str, new: str) -> tuple[bool, str]:
        """Tree equality without docstrings, plus the docstring present."""
        tree = _parse(new)
        if tree is None:
            return False, "does not parse"
        node = find_def(tree, self.target)
        if node is None or ast.get_docstring(node) is None:
            return False, f"{self.target} has no docstring"
        if not _only_docstrings_changed(old, tree):
            return False, "code other than the docstring changed"
        return True, "docstring added, code unchanged"


@dataclass(frozen=True)
class Comment:
    """``target`` has more comments than before; the syntax tree (docstrings too) is unchanged.

    ``above``: the code lines (stripped) the instruction puts the comment above; every occurrence of each
    inside ``target`` must gain a comment line right above it (blank lines between allowed) or at its end.
    A comment anywhere else in the function is not what was asked.
    """

    target: str
    above: tuple[str, ...] = ()
    near: tuple[str, ...] = ()  # looser: above, at the end of, or first in the block under such a line
    each: bool = False  # every line of the target that reads so ("above each while loop"), else its first

    def __call__(self, old: str, new: str) -> tuple[bool, str]:
        """Tree equality, plus at least one new comment inside the target's lines, where ``above``/``near`` say."""
        tree = _parse(new)
        if tree is None:
            return False, "does not parse"
        if ast.dump(tree) != ast.dump(ast.parse(old)):
            return False, "code changed (a comment must not change the syntax tree)"
        before, after = _comments(old, self.target), _comments(new, self.target)
        if after <= before:
            return False, f"no new comment inside {self.target}"
        for code, below in [(c, False) for c in self.above] + [(c, True) for c in self.near]:
            was, now = _comments_at(old, self.target, code, below), _comments_at(new, self.target, code, below)
            if not self.each:  # a line spelled out is its first occurrence (netrc's `if ch == '"':` is twice there)
                was, now = was[:1], now[:1]
            if not now or len(was) != len(now) or any(n <= w for w, n in zip(was, now, strict=True)):
                return False, f"no new comment {'at' if below else 'above'} {code!r}"
        return True, f"{after - before} comment(s) added, code unchanged"


@dataclass(frozen=True)
class MethodDocstrings:
    """Every method of the class ``target`` has a docstring; with docstrings stripped, nothing else changed."""

    target: str

    def __call__(self, old: str, new: str) -> tuple[bool, str]:
        """Tree equality without docstrings, plus a docstring on each method."""
        tree = _parse(new)
        if tree is None:
            return False, "does not parse"
        fns = functions_of(tree, self.target)
        if not fns:
            return False, f"{self.target} is missing"
        if lacking := [f.name for f in fns if ast.get_docstring(f) is None]:
            return False, f"no docstring on {', '.join(lacking)}"
        if not _only_docstrings_changed(old, tree):
            return False, "code other than the docstrings changed"
        return True, f"{len(fns)} methods documented, code unchanged"


def _only_docstrings_changed(old: str, new_tree: ast.Module) -> bool:
    """True when ``new_tree`` and ``old``'s tree are the same once every docstring is stripped."""
    return ast.dump(_strip_docs(new_tree)) == ast.dump(_strip_docs(ast.parse(old)))


def _comments_at(text: str, target: str, code: str, below: bool = False) -> list[int]:
    """For each line of ``target`` that reads ``code``: the comment lines right above it (and 1 if it ends in one;
    with ``below``, those right under it too)."""
    node = find_def(ast.parse(text), target)
    if node is None:
        return []
    lines = text.splitlines()
    out = []
    for i in range(node.lineno - 1, node.end_lineno or node.lineno):
        line = lines[i]
        bare = re.sub(r"\s+#.*$", "", line).strip() if "#" not in code else line.strip()
        if bare != code:
            continue
        n, j = int(line.strip() != code), i - 1  # a comment at the end of the line itself counts
        while j >= 0 and (not lines[j].strip() or lines[j].lstrip().startswith("#")):
            n += lines[j].lstrip().startswith("#")
            j -= 1
        j = i + 1
        while below and j < len(lines) and (not lines[j].strip() or lines[j].lstrip().startswith("#")):
            n += lines[j].lstrip().startswith("#")
            j += 1
        out.append(n)
    return out


def _comments(text: str, target: str) -> int:
    tree = ast.parse(text)
    node = find_def(tree, target)
    if node is None:
        return 0
    first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
    last = node.end_lineno or node.lineno
    toks = tokenize.generate_tokens(io.StringIO(text).readline)
    return sum(1 for t in toks if t.type == tokenize.COMMENT and first <= t.start[0] <= last)


@dataclass(frozen=True)
class Hints:
    """Every parameter (but self/cls) and the return of ``target`` (a class: each of its methods) are
    annotated; nothing else changed.

    New imports are allowed (``from typing import Callable``)."""

    target: str

    def __call__(self, old: str, new: str) -> tuple[bool, str]:
        """Tree equality without the target's annotations and new imports, plus full annotations."""
        tree = _parse(new)
        if tree is None:
            return False, "does not parse"
        fns = functions_of(tree, self.target)
        if not fns:
            return False, f"{self.target} is missing"
        for fn in fns:
            args = fn.args
            params = [a for a in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]
                      if a is not None and a.arg not in ("self", "cls")]
            missing = [a.arg for a in params if a.annotation is None] + (["return"] if fn.returns is None else [])
            where = fn.name if len(fns) > 1 else ""
            if missing:
                return False, f"not annotated{' in ' + where if where else ''}: {', '.join(missing)}"
            if unbound := _unbound_annotation_names(tree, fn):
                return False, f"annotations use names never defined or imported: {', '.join(unbound)}"
        stripped = _drop_imports(_strip_hints(tree, self.target))  # type: ignore[arg-type]
        before = _drop_imports(_strip_hints(ast.parse(old), self.target))  # type: ignore[arg-type]
        if ast.dump(stripped) != ast.dump(before):
            return False, "code other than the annotations changed"
        return True, "annotated, code unchanged"


def _unbound_annotation_names(tree: ast.Module, fn: ast.FunctionDef | ast.AsyncFunctionDef) -> list[str]:
    """Names in ``fn``'s annotations that are neither builtins nor bound at module level (a NameError at import)."""
    import builtins

    bound = set(dir(builtins))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            bound.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            bound.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            bound.add(node.id)
    a = fn.args
    notes = [x.annotation for x in [*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg] if x is not None]
    used = {n.id for ann in [*notes, fn.returns] if ann is not None for n in ast.walk(ann) if isinstance(n, ast.Name)}
    return sorted(used - bound)


def parameter_problem(fn: ast.AST | None, target: str, name: str, default: object) -> str | None:
    """Why ``fn`` (the def of ``target``) lacks parameter ``name`` with ``default``, used in its body; None if not."""
    if not isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
        return f"{target} is missing"
    given = default_of(fn, name)
    if given is None:
        return f"{target} has no parameter {name} with a default"
    if not (isinstance(given, ast.Constant) and given.value == default):
        return f"default of {name} is {ast.unparse(given)}, not {default!r}"
    if not any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load) for n in ast.walk(fn)):
        return f"{name} is never used in {target}"
    return None


@dataclass(frozen=True)
class Param:
    """``target`` gained parameter ``name`` with default ``default`` and uses it; the rest is unchanged."""

    target: str
    name: str
    default: object

    def __call__(self, old: str, new: str) -> tuple[bool, str]:
        """Other definitions unchanged; the parameter, its default and a use of it present."""
        tree = _parse(new)
        if tree is None:
            return False, "does not parse"
        fn = find_def(tree, self.target)
        if (problem := parameter_problem(fn, self.target, self.name, self.default)) is not None:
            return False, problem
        old_tree = ast.parse(old)
        old_fn = find_def(old_tree, self.target)
        for t, f in ((tree, fn), (old_tree, old_fn)):  # compare everything but the target
            _blank(t, f)
        if ast.dump(tree) != ast.dump(old_tree):
            return False, f"code outside {self.target} changed"
        return True, "parameter added and used"


def default_of(fn: ast.FunctionDef | ast.AsyncFunctionDef, name: str) -> ast.expr | None:
    """The default of parameter ``name`` of ``fn`` (None: no such parameter, or it has none)."""
    args = fn.args
    positional = [*args.posonlyargs, *args.args]
    defaults = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
    for a, d in zip(positional, defaults, strict=True):
        if a.arg == name:
            return d
    for a, kd in zip(args.kwonlyargs, args.kw_defaults, strict=True):
        if a.arg == name:
            return kd
    return None


def _blank(tree: ast.AST, target: Def | None) -> None:
    """Replace ``target`` inside ``tree`` by ``pass`` (so the rest can be compared)."""
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and target in body:
            body[body.index(target)] = ast.Pass()
            return
