"""The mutable-default idiom done mechanically: ``def f(P=[])`` becomes ``def f(P=None)`` that starts with
``if P is None: P = []``.

"Change the default of longopts in getopt and gnu_getopt from [] to None, and handle None as no long
options" (read into :attr:`coder.edit.intent.spec.Facts.none_default`) has one right answer per def, so no
model is asked. Seen on the H200 (run 8, getopt-default, all three wordings refused): the 1.5B changed the
default and never handled None, and its retry handled it but lost gnu_getopt's ``return``.

Only when every target is a def whose parameter P defaults to an empty list, dict or set (a display or
``list()``, ``dict()``, ``set()``) and whose body starts on a line of its own; otherwise no plan.
Plain functions of text: nothing here reads files or talks to a server.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from coder.edit.plan.locate import region_of
from coder.edit.plan.steps import Plan, Step
from coder.edit.source.splice import line_span

if TYPE_CHECKING:
    from coder.edit.intent.spec import ChangeSpec
    from coder.edit.source.regions import Region

_DEF = (ast.FunctionDef, ast.AsyncFunctionDef)
_EMPTY_CALLS = frozenset({"list", "dict", "set"})


def _empty_mutable(node: ast.expr) -> bool:
    """``[]``, ``{}``, ``list()``, ``dict()``, ``set()``: the defaults the idiom replaces."""
    if isinstance(node, ast.List | ast.Dict | ast.Set):
        return not (node.keys if isinstance(node, ast.Dict) else node.elts)
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _EMPTY_CALLS
            and not node.args and not node.keywords)


def _default_of(fn: ast.FunctionDef | ast.AsyncFunctionDef, name: str) -> ast.expr | None:
    a = fn.args
    positional = [*a.posonlyargs, *a.args]
    pairs = list(zip(positional[len(positional) - len(a.defaults):], a.defaults, strict=True))
    pairs += [(p, d) for p, d in zip(a.kwonlyargs, a.kw_defaults, strict=True) if d is not None]
    return next((d for p, d in pairs if p.arg == name), None)


def with_none_default(text: str, start: int, end: int, name: str) -> str | None:
    """Lines ``start..end`` of ``text`` (one def) with ``name`` defaulting to None, handled first thing in the body.

    ``if name is None:`` / ``name = <old default>`` goes right after the docstring (or first in the body).
    None when that is not mechanical: the lines are not one def, ``name``'s default is not an empty list, dict
    or set on one line, or the body starts on the ``def`` line.
    """
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError):
        return None
    fn = next((n for n in ast.walk(tree) if isinstance(n, _DEF) and n.end_lineno == end
               and min([n.lineno, *(d.lineno for d in n.decorator_list)]) == start), None)
    default = _default_of(fn, name) if fn is not None else None
    if fn is None or default is None or not _empty_mutable(default) or default.end_lineno != default.lineno:
        return None
    body = fn.body
    doc = body[0] if isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
        and isinstance(body[0].value.value, str) else None
    first = body[0]
    if first.lineno == fn.lineno or (doc is not None and len(body) > 1 and body[1].lineno == doc.end_lineno):
        return None  # "def f(x=[]): return x", "'''doc'''; x = 1": no line of its own to put the test on
    lines = text.splitlines(keepends=True)
    indent = lines[first.lineno - 1][:first.col_offset]
    unit = indent[len(lines[fn.lineno - 1]) - len(lines[fn.lineno - 1].lstrip()):] or "    "
    old = ast.get_source_segment(text, default)
    assert old is not None and default.end_col_offset is not None  # one line, parsed from this text
    at = doc.end_lineno if doc is not None and doc.end_lineno is not None else first.lineno - 1
    lines.insert(at, f"{indent}if {name} is None:\n{indent}{unit}{name} = {old}\n")
    row = lines[default.lineno - 1].encode()  # the insertion comes after the def line: its row is unchanged
    lines[default.lineno - 1] = (row[:default.col_offset] + b"None" + row[default.end_col_offset:]).decode()
    return line_span("".join(lines), start, end + 2)


def derive_none_default(rel: str, text: str, spec: ChangeSpec, symbols: dict[str, Region]) -> Plan | None:
    """The mechanical plan of "change the default of P in f and g from [] to None" (None: not one)."""
    name = spec.facts.none_default
    mine = [s for s in spec.targets if s.rel == rel]
    if (name is None or spec.action != "change" or spec.facts.errors or not mine or len(mine) != len(spec.targets)
            or any(s.kind == "class" for s in mine)):
        return None
    steps = []
    for target in mine:
        found = region_of(symbols, target.qualname)
        done = with_none_default(text, found[1], found[2], name) if found is not None else None
        if found is None or done is None:
            return None  # one def it does not fit: the whole change is the model's, as before
        qual, start, end, label = found
        steps.append(Step(rel, start, end, label, f"{name} defaults to None", "mechanical", symbol=qual, text=done))
    steps.sort(key=lambda s: s.start)
    return Plan("default", spec.instruction, tuple(steps),
                f"{name} defaults to None in {len(steps)} def(s): done mechanically, no model request")
