"""What the shape of an instruction rules out, whatever the region or named symbol explains.

The lead's H200 run of ``coder bench --edits`` (Qwen2.5-Coder-1.5B) committed wrong edits
that lay inside the region or near the named symbol, so :mod:`coder.edit.checks.explained` explained
them: asked to add a parameter to ``shorten``, the model deleted ``shorten``; asked to move
an import, it also dropped or doubled another line; asked to add ``sep`` and use it, it never
used it. These rules name such changes:

- a definition (def/class) that disappears is unexplained unless the instruction asks to
  delete, remove, replace, merge, inline, rename or move that name (it is the verb's object:
  "remove the print from div" does not ask to delete div; "delete `A.f`" asks for A's f only);
  "refactor", "rewrite", "convert", "turn" and "wrap" keep the name defined (it may move into a
  class or become an assignment);
- "move ...": the non-blank lines of the new file must be the old ones with one contiguous
  block moved (it may be re-indented); anything else is unexplained. A move to or from another
  file the instruction names lets the moved def leave (or arrive), and the imports gain it
  (or what it uses), and nothing else;
- "add a parameter P to F": only F itself and the statements that call F may change; when
  the instruction says to use or pass it on, F must have P and use it;
- a name the new code uses that is defined nowhere (and was defined before) breaks the code;
- "delete the function F": F must be gone.

Python files only (except the move rule, which is line-based). Nothing here runs on a file
that does not parse: other checks refuse those.
"""

from __future__ import annotations

import ast
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING

from coder.edit.checks.result import gained_undefined
from coder.edit.source.regions import python_symbols
from coder.edit.source.trees import every_node, parsed

if TYPE_CHECKING:
    from coder.edit.intent.spec import ChangeSpec

Span = tuple[int, int, int, int]

# the ``why`` of every change these rules flag starts with one of these (scope.py keeps such reasons)
WHYS = ("deletes ", "not one move", "outside ", "never uses ", "uses ", "has no parameter ", "does not delete ")


@dataclass
class Findings:
    """Per span of the diff: the reason it is unexplained (None: these rules have nothing against it),
    plus lines of the new text that break the request outside any change (``(new_line, why, note)``)."""

    spans: list[str | None]
    notes: list[tuple[int, str, str]] = field(default_factory=list)

    def flag(self, k: int, why: str) -> None:
        """Mark span ``k`` unexplained (the first reason found stays)."""
        if self.spans[k] is None:
            self.spans[k] = why


def find(old: str, new: str, spec: ChangeSpec, spans: list[Span], *, python: bool,
         renamed: set[str], rel: str = "") -> Findings:
    """What the spec's shape rules out among ``spans`` (old→new line changes) of the file ``rel``."""
    out = Findings([None] * len(spans))
    old_lines, new_lines = old.splitlines(), new.splitlines()
    trees = _parse_both(old, new) if python else None
    if spec.facts.moves:
        if trees is not None and _other_files(spec, rel):
            _moves_across((old, new), trees, spec, spans, old_lines, new_lines, out)
        else:
            _moves(old_lines, new_lines, spans, out)
    if trees is None:
        return out
    _lost_defs(old, new, spec, spans, renamed, out)
    _param((old, new), spec, spans, old_lines, new_lines, out)
    _undefined(old, new, spans, out)
    _not_deleted(old, new, spec, out)
    return out


def _touches(span: Span, lo: int, hi: int, new_side: bool = False) -> bool:
    """Span's old (or new) lines meet 1-based lines ``lo..hi`` (an insertion meets the line it precedes)."""
    a, b = (span[2], span[3]) if new_side else (span[0], span[1])
    return a < hi and max(b, a + 1) >= lo


def _blank_only(span: Span, old: list[str], new: list[str]) -> bool:
    i1, i2, j1, j2 = span
    return not any(x.strip() for x in old[i1:i2] + new[j1:j2])


# --- definitions that disappear ----------------------------------------------------------------

def _lost_defs(old: str, new: str, spec: ChangeSpec, spans: list[Span], renamed: set[str], out: Findings) -> None:
    asked = asked_gone(spec)
    kept = {q for q, _ in python_symbols(new)}
    # a transformed def may move (``wrap f in class C``: f becomes C.f) or turn into an assignment
    still = {q.rsplit(".", 1)[-1] for q in kept} | _module_bound(new) if spec.facts.keeps_names else set()
    olds = python_symbols(old)
    lost = [(q, r) for q, r in olds if q not in kept]
    # a helper nested in a function the instruction names is that function's business ("simplify parse")
    named = {t.name for t in spec.targets} | {w.rsplit(".", 1)[-1] for w in spec.facts.code_words}
    named_fns = {q for q, r in olds if r.kind == "function" and r.name in named}
    for q, r in lost:
        if (any(q.startswith(p + ".") for p, _ in lost) or asked_for(q, asked)
                or q.rsplit(".", 1)[-1] in renamed | still):
            continue  # inside a lost outer def, or asked for
        if any(q.startswith(p + ".") for p in named_fns):
            continue
        for k, s in enumerate(spans):
            if _touches(s, r.start, r.end):
                out.flag(k, f"deletes {q} (the instruction does not ask to)")


def asked_gone(spec: ChangeSpec) -> set[str]:
    """The names the spec asks to make go away: the objects of delete, remove, merge, rename, move...

    "refactor `div` to raise ValueError" asks for none; "remove the print from div" for none either
    (div is where the removal happens); "delete f and g" for f and g. A delete or move the reading
    resolved adds its targets ("get rid of read_token of the class shlex": shlex.read_token).
    """
    gone = set(spec.facts.gone)
    if spec.action in ("delete", "move", "rename", "extract"):
        gone |= {t.qualname for t in spec.targets}
    return gone


def asked_for(qual: str, asked: set[str]) -> bool:
    """A def ``qual`` (``Sorter.__bool__``) is an object of the instruction: by its own name, or qualified.

    A qualified object asks for that member only: "delete `Sorter.__bool__`" asks for neither
    ``Sorter`` nor any other class's ``__bool__``.
    """
    return qual.rsplit(".", 1)[-1] in asked or any("." in a and (qual == a or qual.endswith("." + a)) for a in asked)


def _module_bound(text: str) -> set[str]:
    """Names assigned at module level (``f = lambda x: ...`` keeps ``f`` defined)."""
    try:
        body = parsed(text).body
    except (SyntaxError, ValueError, RecursionError):
        return set()
    return {t.id for n in body if isinstance(n, ast.Assign | ast.AnnAssign)
            for t in (n.targets if isinstance(n, ast.Assign) else [n.target]) if isinstance(t, ast.Name)}


# --- "move" --------------------------------------------------------------------------------------

def one_block_moved(a: list[str], b: list[str]) -> bool:
    """``b`` is ``a`` with one contiguous block moved elsewhere (the block may be re-indented)."""
    if len(a) != len(b) or Counter(x.strip() for x in a) != Counter(x.strip() for x in b):
        return False
    n, p = len(a), 0
    while p < n and a[p] == b[p]:
        p += 1
    s = 0
    while s < n - p and a[n - 1 - s] == b[n - 1 - s]:
        s += 1
    ma, mb = a[p:n - s], b[p:n - s]
    if not ma:
        return True

    def same(x: list[str], y: list[str]) -> bool:
        return [v.strip() for v in x] == [v.strip() for v in y]

    for k in range(1, len(ma)):
        x, y = ma[:k], ma[k:]
        if (mb[:len(y)] == y and same(mb[len(y):], x)) or (mb[len(y):] == x and same(mb[:len(y)], y)):
            return True
    return False


def _moves(old: list[str], new: list[str], spans: list[Span], out: Findings) -> None:
    a, b = [x.rstrip() for x in old if x.strip()], [x.rstrip() for x in new if x.strip()]
    if one_block_moved(a, b):
        return
    why = "not one move of a statement (lines were added, dropped or changed)"
    extra_old = Counter(x.strip() for x in a) - Counter(x.strip() for x in b)
    extra_new = Counter(x.strip() for x in b) - Counter(x.strip() for x in a)
    hit = False
    for k, (i1, i2, j1, j2) in enumerate(spans):
        if any(x.strip() in extra_old for x in old[i1:i2]) or any(x.strip() in extra_new for x in new[j1:j2]):
            out.flag(k, why)
            hit = True
    if not hit:  # the same lines, reordered in more than one place
        for k, s in enumerate(spans):
            if not _blank_only(s, old, new):
                out.flag(k, "not one move of a statement (several lines reordered)")


def _parse_both(old: str, new: str) -> tuple[ast.Module, ast.Module] | None:
    try:
        return parsed(old), parsed(new)
    except (SyntaxError, ValueError, RecursionError):
        return None


def _other_files(spec: ChangeSpec, rel: str) -> list[str]:
    """Files the spec names besides ``rel`` (compared as path suffixes: ``_re.py``, ``pkg/_re.py``)."""
    here = rel.replace("\\", "/")
    return [f for f in spec.facts.files
            if not (here == f or here.endswith("/" + f) or f.endswith("/" + here))]


def _import_lines(tree: ast.Module) -> tuple[set[int], set[tuple[str, int, str, str]]]:
    """The lines the import statements cover, and what they bind: (module, level, name, as-name)."""
    lines: set[int] = set()
    binds: set[tuple[str, int, str, str]] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            lines.update(range(node.lineno, (node.end_lineno or node.lineno) + 1))
            module, level = (node.module or "", node.level) if isinstance(node, ast.ImportFrom) else ("", 0)
            binds.update((module, level, a.name, a.asname or a.name) for a in node.names)
    return lines, binds


def _moves_across(texts: tuple[str, str], trees: tuple[ast.Module, ast.Module], spec: ChangeSpec,
                  spans: list[Span], old: list[str], new: list[str], out: Findings) -> None:
    """A move to or from another file: here a named def only leaves or arrives, and imports change for it.

    Apart from those defs and the import statements, the non-blank lines stay the same and in order;
    the imports bind nothing new but the defs that left (``from ._re import f``) or names the arriving
    defs use, and lose nothing.
    """
    asked = asked_gone(spec)
    olds, news = ({q: (r.start, r.end) for q, r in python_symbols(text)} for text in texts)
    left = {q: r for q, r in olds.items() if q not in news and asked_for(q, asked)}
    came = {q: r for q, r in news.items() if q not in olds and asked_for(q, asked)}
    (old_imp, old_binds), (new_imp, new_binds) = (_import_lines(t) for t in trees)
    old_ok = old_imp | {n for r in left.values() for n in range(r[0], r[1] + 1)}
    new_ok = new_imp | {n for r in came.values() for n in range(r[0], r[1] + 1)}

    def rest(lines: list[str], ok: set[int]) -> list[str]:
        return [x.rstrip() for n, x in enumerate(lines, 1) if x.strip() and n not in ok]

    used = {n.id for n in ast.walk(trees[1]) if isinstance(n, ast.Name)
            and any(a <= n.lineno <= b for a, b in came.values())}
    wanted = {q.rsplit(".", 1)[-1] for q in left} | used
    imports_ok = old_binds <= new_binds and all(b[3] in wanted for b in new_binds - old_binds)
    if (left or came) and imports_ok and rest(old, old_ok) == rest(new, new_ok):
        return
    why = "not one move of a statement (lines were added, dropped or changed)"
    hit = False
    for k, (i1, i2, j1, j2) in enumerate(spans):
        stray = (any(old[i].strip() and i + 1 not in old_ok for i in range(i1, i2))
                 or any(new[j].strip() and j + 1 not in new_ok for j in range(j1, j2)))
        bad_import = not imports_ok and (any(i + 1 in old_imp for i in range(i1, i2))
                                         or any(j + 1 in new_imp for j in range(j1, j2)))
        if stray or bad_import:
            out.flag(k, why)
            hit = True
    if not hit:  # nothing moved here, or the same lines reordered
        for k, s in enumerate(spans):
            if not _blank_only(s, old, new):
                out.flag(k, why)


# --- "add a parameter P to F" ----------------------------------------------------------------------

@lru_cache(maxsize=16)  # the file as it is, asked again for each reply judged (a plan's steps, its whole file)
def _fn_lines(text: str, name: str) -> tuple[tuple[ast.FunctionDef | ast.AsyncFunctionDef, ...], frozenset[int]]:
    """Definitions of ``name`` and the lines that they and the statements calling ``name`` cover (shared trees)."""
    every = every_node(text)
    fns = [n for n in every if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and n.name == name]
    lines: set[int] = set()
    for f in fns:
        start = min([f.lineno, *(d.lineno for d in f.decorator_list)])
        lines.update(range(start, (f.end_lineno or f.lineno) + 1))
    for stmt in every:
        if isinstance(stmt, ast.stmt) and not isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
                                                         | ast.If | ast.For | ast.While | ast.With | ast.Try):
            calls = any(isinstance(c, ast.Call) and (getattr(c.func, "id", None) == name
                                                     or getattr(c.func, "attr", None) == name)
                        for c in ast.walk(stmt))
            if calls:
                lines.update(range(stmt.lineno, (stmt.end_lineno or stmt.lineno) + 1))
    return tuple(fns), frozenset(lines)


def _param(texts: tuple[str, str], spec: ChangeSpec, spans: list[Span], old: list[str],
           new: list[str], out: Findings) -> None:
    req = spec.facts.param
    if req is None:
        return
    param, name = req
    old_fns, old_ok = _fn_lines(texts[0], name)
    if not old_fns:  # "add a parameter x to control logging": no function of that name, nothing to hold to
        return
    fns, new_ok = _fn_lines(texts[1], name)
    for k, (i1, i2, j1, j2) in enumerate(spans):
        inside = all(n in old_ok for n in range(i1 + 1, i2 + 1)) and all(n in new_ok for n in range(j1 + 1, j2 + 1))
        if not inside and not _blank_only((i1, i2, j1, j2), old, new):
            out.flag(k, f"outside {name} and the statements calling it")
    if not spec.facts.uses_new:
        return
    for f in fns:
        a = f.args
        names = {x.arg for x in [*a.posonlyargs, *a.args, *a.kwonlyargs]}
        used = any(isinstance(n, ast.Name) and n.id == param and isinstance(n.ctx, ast.Load) for n in ast.walk(f))
        why = (f"never uses the new parameter {param} in {name}" if param in names and not used
               else f"has no parameter {param} in {name}" if param not in names else "")
        if why:
            for k, s in enumerate(spans):
                if _touches(s, f.lineno, f.end_lineno or f.lineno, new_side=True):
                    out.flag(k, why)


# --- names used but defined nowhere ------------------------------------------------------------------

def _undefined(old: str, new: str, spans: list[Span], out: Findings) -> None:
    """Flag the changes that use a name nothing defines (pyflakes, as :mod:`coder.edit.checks.result` refuses them)."""
    for name, row in gained_undefined(old, new):
        why = f"uses {name}, which is defined nowhere"
        ks = [k for k, s in enumerate(spans) if s[2] < row <= s[3]]
        for k in ks:
            out.flag(k, why)
        if not ks:
            out.notes.append((row, why, "undefined"))


def _not_deleted(old: str, new: str, spec: ChangeSpec, out: Findings) -> None:
    names = set(spec.facts.delete_defs)
    if spec.action == "delete":
        names |= {t.qualname for t in spec.targets}

    def hits(text: str) -> list[tuple[str, int]]:
        return [(q, r.start) for q, r in python_symbols(text) if q in names or q.rsplit(".", 1)[-1] in names]

    left = hits(new)
    if names and left and len(left) >= len(hits(old)):  # one of several same-named methods gone: asked for
        for q, row in left:
            out.notes.append((row, f"does not delete {q} (the instruction asks to)", "not deleted"))
