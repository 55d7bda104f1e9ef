"""What coder does itself in an add-parameter plan: a caller's ``name=value`` at each call, the default as asked.

"Add include_hidden to _listdir ... pass include_hidden=include_hidden at its calls in _glob1 and _rlistdir":
what each call gains is spelled out, so asking the model for it only invites drift. Seen on the H200 (run 7,
Qwen2.5-Coder-1.5B): asked for the caller regions, it passed ``include_hidden`` positionally, left a call
out, and, for "have both calls in Timer.__init__ pass char=' '", gave ``Timer.__init__`` a ``char`` of its
own and passed that. The keyword goes after a call's last argument; the result is parsed and held to
"nothing but the keyword changed", else the region is the model's, as before.

The def that gains the parameter is the model's region; a literal default the instruction spells
("include_hidden=True") is set in its reply as spelled (:func:`with_asked_defaults`). Seen on the H200
(glob-callers w1): the reply used ``include_hidden`` as asked but defaulted it to False; asked again,
the model dropped the use instead.

Plain functions of text: nothing here reads files or talks to a server.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from coder.edit.checks.signature import defs, other_defaults
from coder.edit.source.bindings import BUILTINS, module_names
from coder.edit.source.splice import line_span
from coder.edit.source.trees import parsed

if TYPE_CHECKING:
    from coder.edit.intent.spec import ChangeSpec

_DEF = (ast.FunctionDef, ast.AsyncFunctionDef)


def passed_at_calls(text: str, start: int, end: int, callee: str, *, method: bool, keyword: str) -> str | None:
    """Lines ``start..end`` of ``text`` with ``keyword`` (``name=value``) added to every call of ``callee`` there.

    None when that is not a mechanical change: the region is not one def, the value reads a name the def
    does not bind, a call already passes the name or unpacks ``**``, or no call of ``callee`` is there.
    """
    name, _, spelled = (part.strip() for part in keyword.partition("="))
    try:
        tree = ast.parse(text)
        value = ast.parse(spelled, mode="eval").body
    except (SyntaxError, ValueError, RecursionError):
        return None
    fn = next((n for n in ast.walk(tree) if isinstance(n, _DEF) and _first_line(n) == start
               and n.end_lineno == end), None)
    if fn is None or not _reads_bound(value, fn, text):
        return None
    calls = [c for c in ast.walk(fn) if isinstance(c, ast.Call) and _calls(c, callee, method=method)]
    if not calls or any(k.arg is None or k.arg == name for c in calls for k in c.keywords):
        return None
    lines = text.splitlines(keepends=True)
    spots = sorted((_spot(c) for c in calls), reverse=True)
    for row, col, piece in ((r, c, p.format(f"{name}={spelled}")) for r, c, p in spots):
        line = lines[row - 1].encode()
        lines[row - 1] = (line[:col] + piece.encode() + line[col:]).decode()
    new = "".join(lines)
    return line_span(new, start, end) if _only_keyword_added(text, new, name, len(calls)) else None


def _first_line(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    return min([fn.lineno, *(d.lineno for d in fn.decorator_list)])


def _calls(call: ast.Call, callee: str, *, method: bool) -> bool:
    f = call.func
    return (isinstance(f, ast.Attribute) and f.attr == callee) if method else (isinstance(f, ast.Name)
                                                                               and f.id == callee)


def _reads_bound(value: ast.expr, fn: ast.FunctionDef | ast.AsyncFunctionDef, text: str) -> bool:
    """Whether every name ``value`` reads is bound in ``fn`` (a parameter, a local), in the module, or a builtin."""
    reads = {n.id for n in ast.walk(value) if isinstance(n, ast.Name)}
    if not reads:
        return True
    a = fn.args
    bound = {p.arg for p in (*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg) if p is not None}
    bound |= {n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    return reads <= bound | module_names(text)[0] | BUILTINS


def _spot(call: ast.Call) -> tuple[int, int, str]:
    """Where the keyword goes (row, byte column) and how (``, {}`` after the last argument, ``{}`` in ``()``)."""
    nodes: list[ast.expr | ast.keyword] = [*call.args, *call.keywords]
    ends = [(n.end_lineno, n.end_col_offset) for n in nodes
            if n.end_lineno is not None and n.end_col_offset is not None]
    if ends:
        row, col = max(ends)
        return row, col, ", {}"
    assert call.end_lineno is not None and call.end_col_offset is not None  # a parsed call has them
    return call.end_lineno, call.end_col_offset - 1, "{}"  # before the closing parenthesis


def _only_keyword_added(old: str, new: str, name: str, count: int) -> bool:
    """Whether ``new`` parses and is ``old`` but for ``count`` more calls passing the keyword ``name``."""
    try:
        before, after = ast.parse(old), ast.parse(new)
    except (SyntaxError, ValueError, RecursionError):
        return False  # a bare generator argument, say: ``f(x for x in y, k=v)`` does not parse
    return _strip(after, name) - _strip(before, name) == count and ast.dump(after) == ast.dump(before)


def _strip(tree: ast.Module, name: str) -> int:
    """Drop the keyword ``name`` from every call of ``tree``; how many there were."""
    dropped = 0
    for call in (c for c in ast.walk(tree) if isinstance(c, ast.Call)):
        kept = [k for k in call.keywords if k.arg != name]
        dropped += len(call.keywords) - len(kept)
        call.keywords = kept
    return dropped


def with_asked_defaults(old: str, new: str, spec: ChangeSpec) -> tuple[str, str]:
    """``new`` with each literal default a target def gained set to the literal the instruction gives it, and
    what was set, in words for the user; ``new`` and "" when nothing was."""
    if spec.action != "add_parameter":
        return new, ""
    try:
        before, after = defs(parsed(old)), defs(parsed(new))  # read only: the trees the checks read
    except (SyntaxError, ValueError, RecursionError):
        return new, ""
    fixes: list[tuple[int, int, int, str]] = []
    told = []
    for target in spec.targets:
        if target.qualname not in after:
            continue
        fn = after[target.qualname][0]
        had = own_params(before[target.qualname][0]) if target.qualname in before else set()
        for name, given, asked in other_defaults(fn, own_params(fn) - had, spec):
            if given.end_lineno != given.lineno or given.end_col_offset is None:
                continue
            fixes.append((given.lineno, given.col_offset, given.end_col_offset, ast.unparse(asked)))
            told.append(f"the model defaulted {name} to {ast.unparse(given)}: set to {ast.unparse(asked)}, as asked")
    lines = new.splitlines(keepends=True)
    for row, a, b, spelled in sorted(fixes, reverse=True):
        line = lines[row - 1].encode()
        lines[row - 1] = (line[:a] + spelled.encode() + line[b:]).decode()
    return "".join(lines), "; ".join(told)


def own_params(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """The names of ``fn``'s parameters that a call can pass by name or position (not ``*args``/``**kwargs``)."""
    a = fn.args
    return {p.arg for p in (*a.posonlyargs, *a.args, *a.kwonlyargs)}


def with_params_in_header(text: str, qualname: str, spec: ChangeSpec) -> str | None:
    """``text`` with the def ``qualname`` taking each parameter ``spec`` adds with a literal default (``sep=' '``), as
    spelled, after its last parameter; None when there is none to add or the header is not a plain one.

    Seen on the H200 (run 9): shown ``_listdir`` and asked for ``include_hidden=True`` used in its body, the 1.5B
    added the parameter and left the body alone, twice; asked for "a char parameter (default ' ') to reindent", it
    gave ``indent`` the default instead, twice. The header is what the instruction spells exactly: coder writes it,
    and the model is asked for the body with that header in place.
    """
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError):
        return None
    found = defs(tree).get(qualname)
    if found is None or found[0].args.kwarg is not None:
        return None  # a parameter goes before ``**kwargs``: not the plain append done here
    fn = found[0]
    had = own_params(fn) | {v.arg for v in (fn.args.vararg,) if v is not None}
    added = []
    for entry in spec.params:
        head, eq, value = entry.partition("=")
        name = head.split(":", 1)[0].strip()
        try:
            literal = eq and isinstance(ast.parse(value.strip(), mode="eval").body, ast.Constant)
        except (SyntaxError, ValueError, RecursionError):
            literal = False
        if not literal or not name.isidentifier() or name in had:
            continue
        annotation = head.partition(":")[2].strip()
        added.append(f"{name}: {annotation} = {value.strip()}" if annotation else f"{name}={value.strip()}")
    if not added:
        return None
    row, col, piece = _header_spot(fn)
    lines = text.splitlines(keepends=True)
    line = lines[row - 1].encode()
    lines[row - 1] = (line[:col] + piece.format(", ".join(added)).encode() + line[col:]).decode()
    new = "".join(lines)
    try:
        after = defs(ast.parse(new)).get(qualname)
    except (SyntaxError, ValueError, RecursionError):
        return None
    # held to "the header gained exactly these": any other effect of the insertion (a comment in the way) is no header
    wanted = {a.split("=")[0].split(":")[0].strip() for a in added}
    return new if after is not None and own_params(after[0]) - own_params(fn) == wanted else None


def _header_spot(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> tuple[int, int, str]:
    """Where a new last parameter goes in ``fn``'s header (row, byte column) and how (``, {}`` or ``{}``)."""
    a = fn.args
    nodes: list[ast.arg | ast.expr] = [*a.posonlyargs, *a.args, *a.defaults, *a.kwonlyargs,
                                       *(d for d in a.kw_defaults if d is not None), *((a.vararg,) if a.vararg else ())]
    ends = [(n.end_lineno, n.end_col_offset) for n in nodes
            if n.end_lineno is not None and n.end_col_offset is not None]
    if ends:
        row, col = max(ends)
        return row, col, ", {}"
    # no parameter: right after the name's opening parenthesis (``def f(`` on the def's own line)
    return fn.lineno, fn.col_offset + len(f"{'async ' if isinstance(fn, ast.AsyncFunctionDef) else ''}def "
                                            f"{fn.name}("), "{}"
