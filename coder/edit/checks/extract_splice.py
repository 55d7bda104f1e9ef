"""An extraction whose new function was written but not called: coder writes the call where the code was.

Seen on the H200 (Qwen2.5-Coder-1.5B, 2026-12-03): asked to extract code into a new function F and call
it, the model wrote F, often as an exact copy of the caller's lines, and left those lines in the caller
uncalled, so the extraction was refused. A 1.5B model copies well and rewrites many lines poorly, so the
rewriting of the caller is done here, mechanically, and only where it is exactly the same program:

* F is a plain module-level function (no decorator, no default, no ``*args``), its body (past a
  docstring) is statements S and at most a final ``return NAME``; S holds no ``return``, ``yield``,
  ``await``, ``global``, ``nonlocal``, nested def, class or lambda, and no ``break``/``continue`` outside
  its own loops; S reads no local of its own before it sets it.
* A caller the spec names that does not call F holds a run of statements equal to S as syntax trees,
  with F's parameters read as the caller's names (one caller name per parameter).
* The run is not inside a loop or a ``try`` of the caller, and nothing the caller runs after it (nor a
  closure of the caller) reads a name the run sets, except the name F returns; the names S reads from
  the module are not the caller's locals (in F they would be globals); the caller has no ``global`` or
  ``nonlocal`` and calls no ``locals()``, ``vars()``, ``eval`` or ``exec``.

The run's lines become ``NAME = F(args)`` (``F(args)`` when F returns nothing). The result then goes
through every check as any reply does; a caller where no run is exactly F's body is left as it came,
and the check that F is called refuses it as before.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import TYPE_CHECKING

from coder.edit.checks.code_rules import calls, extraction, functions
from coder.edit.source.trees import parsed

if TYPE_CHECKING:
    from coder.edit.intent.spec import ChangeSpec

_FORBIDDEN = (ast.Return, ast.Yield, ast.YieldFrom, ast.Await, ast.Global, ast.Nonlocal, ast.FunctionDef,
              ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda, ast.NamedExpr)
_LOOPS = (ast.For, ast.AsyncFor, ast.While)
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)  # a caller's closures read its names later
_INTROSPECT = frozenset({"locals", "vars", "eval", "exec"})
_AROUND_OK = (ast.If, ast.With, ast.AsyncWith)  # what may enclose the run: it runs once, in order


@dataclass(frozen=True)
class _Helper:
    """The new function as a body to find: its parameters, statements and the name it returns."""

    name: str
    params: tuple[str, ...]
    body: list[ast.stmt]
    returned: str | None
    globals: frozenset[str]  # the names the body reads that it neither takes nor sets


def extraction_spliced(old: str, new: str, spec: ChangeSpec) -> str:
    """``new`` with each run of a named caller's statements that is exactly the new function's body replaced
    by a call to it (``new`` as it came when there is none, or no extraction is asked)."""
    if (found := _extraction(old, new, spec)) is None:
        return new
    helper, before, after, spelled = found
    target = helper.name
    lines = new.splitlines(keepends=True)
    edits: list[tuple[int, int, str]] = []
    for name in spelled:
        caller = after.get(name)
        if name == target or name not in before or caller is None or calls(caller, target):
            continue
        edits += [edit for run in _runs(caller, helper) if (edit := _edit(lines, *run)) is not None]
    for first, last, text in sorted(edits, reverse=True):
        lines[first - 1:last] = [text]
    return "".join(lines)


def left_inline(old: str, new: str, spec: ChangeSpec) -> str | None:
    """Why ``new`` is an extraction only in name: a named caller calls the new function and still holds the lines
    that are its body (None: no caller does).

    Seen on the CPU (Qwen2.5-Coder-1.5B, 2026-12-03): the retry of getopt-extract left the code in both callers
    and added ``longopts = _longopts_list(longopts)`` before each return. Every call still gives the same, and
    each caller calls the new function, so the result checks and the task's judge passed it."""
    if (found := _extraction(old, new, spec)) is None:
        return None
    helper, _, after, spelled = found
    target = helper.name
    for name in spelled:
        caller = after.get(name)
        if name == target or caller is None or not calls(caller, target):
            continue
        n = len(helper.body)
        for stmts, _ in _statement_lists(caller.body, []):
            for i in range(len(stmts) - n + 1):
                if all(_same(a, b, {}, helper.params) for a, b in zip(stmts[i:i + n], helper.body, strict=True)):
                    first = ast.unparse(stmts[i]).splitlines()[0]
                    return (f"{name} calls {target} but still holds the lines it was extracted from (`{first}`): "
                            f"put the call in their place")
    return None


_Functions = dict[str, ast.FunctionDef | ast.AsyncFunctionDef]


def _extraction(old: str, new: str, spec: ChangeSpec) -> tuple[_Helper, _Functions, _Functions, list[str]] | None:
    """The new function of an extraction ``spec`` asks for, as a body to find, with the functions before and after
    and the callers the spec names; None when none is asked, a text does not parse, the function is not new in
    ``new``, or it cannot stand for a caller's lines."""
    target, spelled = extraction(spec)
    if target is None:
        return None
    try:
        before, tree = functions(parsed(old)), parsed(new)
    except (SyntaxError, ValueError, RecursionError):
        return None
    fn = next((n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == target), None)
    if target in before or fn is None or (helper := _helper(fn)) is None:
        return None
    return helper, before, functions(tree), list(dict.fromkeys(spelled))


def _helper(fn: ast.FunctionDef) -> _Helper | None:
    """``fn`` as a body to find, or None when it is not one that can stand for a caller's lines."""
    a = fn.args
    if fn.decorator_list or a.vararg or a.kwarg or a.kwonlyargs or a.defaults:
        return None
    body = list(fn.body)
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
            and isinstance(body[0].value.value, str):
        body = body[1:]  # the docstring
    returned = None
    if body and isinstance(last := body[-1], ast.Return):
        body.pop()
        value = last.value
        if value is not None and not isinstance(value, ast.Name):
            return None
        returned = value.id if value is not None else None
    if not body or not all(_closed(s, 0) for s in body):
        return None
    params = tuple(p.arg for p in [*a.posonlyargs, *a.args])
    sets = _stores(body)
    if returned is not None and returned not in sets | set(params):
        return None
    if _exposed(body, set(params)) & sets:
        return None  # a local of its own read before it is set: UnboundLocalError in F, not in the caller
    read = {n.id for s in body for n in ast.walk(s) if isinstance(n, ast.Name)}
    return _Helper(fn.name, params, body, returned, frozenset(read - sets - set(params)))


def _closed(node: ast.AST, loops: int) -> bool:
    """True when ``node`` neither leaves the code it is in nor opens a scope of its own."""
    if isinstance(node, _FORBIDDEN) or (isinstance(node, ast.Break | ast.Continue) and not loops):
        return False
    inner = loops + isinstance(node, _LOOPS)
    return all(_closed(child, inner) for child in ast.iter_child_nodes(node))


def _runs(caller: ast.FunctionDef | ast.AsyncFunctionDef,
          helper: _Helper) -> list[tuple[list[ast.stmt], str]]:
    """The runs of ``caller``'s statements that are ``helper``'s body, each with the call that replaces it."""
    owned = _locals(caller)
    if helper.globals & owned or helper.name in owned or _opaque(caller):
        return []
    closed_over = {n.id for inner in ast.walk(caller) if inner is not caller and isinstance(inner, _SCOPES)
                   for n in ast.walk(inner) if isinstance(n, ast.Name)}
    out = []
    n = len(helper.body)
    for stmts, later in _statement_lists(caller.body, []):
        free = 0  # where a run may start: runs do not overlap
        for i in range(len(stmts) - n + 1):
            mapping: dict[str, str] = {}
            run = stmts[i:i + n]
            if i < free or not all(_same(a, b, mapping, helper.params) for a, b in zip(run, helper.body, strict=True)):
                continue
            if (call := _call(helper, mapping, owned)) is None:
                continue
            kept = {mapping.get(helper.returned, helper.returned)} if helper.returned else set()
            if not (_stores(run) - kept) & (_exposed([*stmts[i + n:], *later], set()) | closed_over):
                out.append((run, call))
                free = i + n
    return out


def _opaque(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """True when ``fn``'s names are reached otherwise than by name: ``global``/``nonlocal`` (a name the run
    sets would be the module's there, the helper's own in F), or ``locals()``, ``vars()``, ``eval``, ``exec``."""
    return any(isinstance(n, ast.Global | ast.Nonlocal) or (isinstance(n, ast.Name) and n.id in _INTROSPECT)
               for n in ast.walk(fn))


def _statement_lists(body: list[ast.stmt], later: list[ast.stmt]) -> list[tuple[list[ast.stmt], list[ast.stmt]]]:
    """Each statement list of a def's body not inside a loop or try, with what runs after it (in the def)."""
    out = [(body, later)]
    for i, stmt in enumerate(body):
        if isinstance(stmt, _AROUND_OK):
            after = [*body[i + 1:], *later]
            for field in ("body", "orelse"):
                if inner := getattr(stmt, field, None):
                    out += _statement_lists(inner, after)
    return out


def _same(a: object, b: object, mapping: dict[str, str], params: tuple[str, ...]) -> bool:
    """True when caller code ``a`` is helper code ``b``, each parameter of ``b`` read as one name of ``a``."""
    if type(a) is not type(b):
        return False
    if isinstance(a, ast.Name) and isinstance(b, ast.Name):
        if type(a.ctx) is not type(b.ctx):
            return False
        if b.id in params:
            return mapping.setdefault(b.id, a.id) == a.id
        return a.id == b.id
    if isinstance(a, ast.AST):
        return all(_same(getattr(a, f, None), getattr(b, f, None), mapping, params) for f in a._fields)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y, mapping, params) for x, y in zip(a, b, strict=True))
    return repr(a) == repr(b)  # a constant: 0.0 and -0.0 differ, 1 and True differ by type above


def _call(helper: _Helper, mapping: dict[str, str], owned: set[str]) -> str | None:
    """The statement that calls ``helper`` in place of the run ``mapping`` was read from (None: none can)."""
    args = []
    for p in helper.params:  # a parameter the body never reads is passed the caller's name of it, if it has one
        if p not in mapping and p not in owned:
            return None
        args.append(mapping.get(p, p))
    body_names = {n.id for s in helper.body for n in ast.walk(s) if isinstance(n, ast.Name)} - set(helper.params)
    if len(set(mapping.values())) != len(mapping) or body_names & {v for k, v in mapping.items() if k != v}:
        return None  # two parameters read as one name, or a caller name that is also one of F's own
    call = f"{helper.name}({', '.join(args)})"
    return f"{mapping.get(helper.returned, helper.returned)} = {call}" if helper.returned else call


def _edit(lines: list[str], run: list[ast.stmt], call: str) -> tuple[int, int, str] | None:
    """The lines ``run`` spans, as (first, last, the call indented as they were); None when they hold more."""
    first, last = run[0].lineno, run[-1].end_lineno or run[-1].lineno
    head = lines[first - 1].encode()[:run[0].col_offset].decode(errors="replace")
    tail = lines[last - 1].encode()[run[-1].end_col_offset or 0:].decode(errors="replace").strip()
    if head.strip() or (tail and not tail.startswith("#")):
        return None  # another statement on the same line (``x = 1; y = 2``, ``if a: b``)
    return first, last, f"{head}{call}\n"


def _locals(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """The names ``fn`` takes or sets (a comprehension's own are counted too: more is the safe side)."""
    a = fn.args
    params = {p.arg for p in [*a.posonlyargs, *a.args, *a.kwonlyargs, *filter(None, (a.vararg, a.kwarg))]}
    return params | _stores(fn.body)


def _stores(stmts: list[ast.stmt]) -> set[str]:
    """The names ``stmts`` set or delete (imports and nested defs included)."""
    out: set[str] = set()
    for node in (n for s in stmts for n in ast.walk(s)):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            out.add(node.id)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            out.add(node.name)
        elif isinstance(node, ast.alias):
            out.add((node.asname or node.name).split(".")[0])
        elif isinstance(node, ast.ExceptHandler) and node.name:
            out.add(node.name)
    return out


def _reads(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def _exposed(stmts: list[ast.stmt], bound: set[str]) -> set[str]:
    """The names ``stmts`` may read before they surely set them (``bound``: surely set already)."""
    return _flow(stmts, bound)[0]


def _flow(stmts: list[ast.stmt], bound: set[str]) -> tuple[set[str], set[str]]:
    """What ``stmts`` may read before surely setting it, and what is surely set after them.

    An assignment sets its names for what follows, an ``if`` the names both its branches set, a ``with`` those
    its body sets; a ``for`` sets its target for its own body only; anything else counts every name it reads
    and sets nothing (more read and less set is the safe side).
    """
    bound, out = set(bound), set()
    for s in stmts:
        if isinstance(s, ast.Assign | ast.AnnAssign | ast.AugAssign):
            out |= _reads(s) - bound
            if isinstance(s, ast.AugAssign) and isinstance(s.target, ast.Name) and s.target.id not in bound:
                out.add(s.target.id)
            if not isinstance(s, ast.AnnAssign) or s.value is not None:
                bound |= _stores([s])
        elif isinstance(s, ast.For | ast.AsyncFor):
            out |= (_reads(s.iter) | _reads(s.target)) - bound
            out |= _exposed(s.body, bound | _stores([ast.Expr(s.target)])) | _exposed(s.orelse, bound)
        elif isinstance(s, ast.If):
            (body, set_body), (orelse, set_else) = _flow(s.body, bound), _flow(s.orelse, bound)
            out |= (_reads(s.test) - bound) | body | orelse
            bound = set_body & set_else
        elif isinstance(s, ast.With | ast.AsyncWith):
            out |= set().union(*(_reads(item) for item in s.items)) - bound
            named = _stores([ast.Expr(i.optional_vars) for i in s.items if i.optional_vars])
            body, bound = _flow(s.body, bound | named)
            out |= body
        else:
            out |= _reads(s) - bound
    return out, bound
