"""What a changed def still owes its callers: a value on every path that had one, and a use of each argument.

Two half-done fixes seen applied on the H200 (Qwen2.5-Coder-1.5B), each inside the def it was asked
to change, so the explained-change rules passed them:

* asked to give ``gnu_getopt`` a ``None`` default, the model also dropped its last line,
  ``return opts, prog_args``: every call now returns None;
* asked to make ``indent`` skip blank lines, it replaced ``prefix + line if predicate(line) else line``
  by a test of its own: the ``predicate`` a caller passes is now ignored.

So, for each def the edit changes (the same qualified name before and after):

* **a value at the end**: a def whose body ended in a ``return`` of a value (or a ``raise``) on every
  branch must not now fall off its end, which returns None. Generators, and bodies whose end cannot be
  judged (a loop that may not end, a call that may not return), are left alone;
* **each argument used**: a parameter the def read before, and still takes, must still be read: a test
  against None alone (``if predicate is None``) is no use of it. A parameter the instruction names
  (as code, or as one to remove, rename or ignore: "make indent ignore predicate") may stop being
  used: that may be what it asks.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from coder.edit.checks.signature import Def, defs, named_anyhow
from coder.edit.source.trees import own_nodes, parsed, same_node

if TYPE_CHECKING:
    from coder.edit.intent.spec import ChangeSpec

def _ends(body: list[ast.stmt]) -> bool | None:
    """True when ``body`` surely ends in a return or raise, False when it surely falls off its end, None: unknown."""
    if not body:
        return False
    last = body[-1]
    if isinstance(last, ast.Return | ast.Raise):
        return True
    if isinstance(last, ast.If):
        both = [_ends(last.body), _ends(last.orelse)]
        return False if False in both else None if None in both else True
    if isinstance(last, ast.With | ast.AsyncWith):
        return _ends(last.body)
    if isinstance(last, ast.Try):
        if _ends(last.finalbody):
            return True
        paths = [_ends(last.orelse or last.body), *(_ends(h.body) for h in last.handlers)]
        return False if False in paths else None if None in paths else True
    if isinstance(last, ast.While | ast.For | ast.AsyncFor):
        forever = isinstance(last, ast.While) and isinstance(last.test, ast.Constant) and bool(last.test.value)
        return None if forever or last.orelse else False  # a loop that ends falls off, unless its else returns
    if isinstance(last, ast.Expr | ast.Match | ast.Assert):
        return None  # a call may never return (sys.exit, a helper that raises); a match may cover every case
    return False


def _generator(fn: Def) -> bool:
    return any(isinstance(n, ast.Yield | ast.YieldFrom) for n in own_nodes(fn))


def _returns_value(fn: Def) -> str | None:
    """The first value ``fn`` returns, unparsed (None: it returns none, or it is a generator)."""
    if _generator(fn):
        return None
    nodes = own_nodes(fn)
    values = [n.value for n in nodes if isinstance(n, ast.Return) and n.value is not None
              and not (isinstance(n.value, ast.Constant) and n.value.value is None)]
    return ast.unparse(values[0]) if values else None


def _none_test(node: ast.Compare, name: str) -> bool:
    """``name is None``, ``name is not None``, ``name == None``, ``None is name``."""
    sides = [node.left, *node.comparators]
    return (len(sides) == 2 and any(isinstance(s, ast.Name) and s.id == name for s in sides)
            and any(isinstance(s, ast.Constant) and s.value is None for s in sides))


def _uses(fn: Def, name: str) -> bool:
    """True when ``fn`` (nested code included) reads ``name`` other than to test it against None."""
    tested = {id(side) for n in ast.walk(fn) if isinstance(n, ast.Compare) and _none_test(n, name)
              for side in [n.left, *n.comparators]}
    return any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load) and id(n) not in tested
               for n in ast.walk(fn))


def _params(fn: Def, bound: bool) -> list[str]:
    a = fn.args
    names = [p.arg for p in [*a.posonlyargs, *a.args]][1 if bound else 0:]
    return names + [p.arg for p in a.kwonlyargs] + [v.arg for v in (a.vararg, a.kwarg) if v is not None]


def _dynamic(fn: Def) -> bool:
    """The def reads its arguments by name at run time (``locals()``, ``vars()``): any may be used."""
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in ("locals", "vars", "eval")
               for n in ast.walk(fn))


def broken_contract(old: str, new: str, spec: ChangeSpec) -> str | None:
    """Why a def ``new`` changes now returns None where it returned a value, or ignores an argument (None: neither)."""
    named = named_anyhow(spec)
    try:
        before, after = defs(parsed(old)), defs(parsed(new))
    except (SyntaxError, ValueError, RecursionError):
        return None
    for qual, (fn, owner) in after.items():
        if qual not in before or same_node(before[qual][0], fn):
            continue
        was = before[qual][0]
        value = _returns_value(was)
        if value is not None and _ends(was.body) is True and _ends(fn.body) is False and not _generator(fn):
            return (f"{qual} can now reach its end without a return, so it returns None where it returned "
                    f"{value[:60]}")
        bound = owner is not None and not any(isinstance(d, ast.Name) and d.id == "staticmethod"
                                              for d in fn.decorator_list)
        if _dynamic(fn):
            continue
        kept = [p for p in _params(was, bound) if p in _params(fn, bound) and not p.startswith("_") and p not in named]
        for name in kept:
            if _uses(was, name) and not _uses(fn, name):
                return f"{qual} no longer uses its parameter {name}, so what a caller passes as {name} is ignored"
    return None
