"""Type hints as a short structured question: the model names each type, coder writes the headers.

A region rewrite of a function for its hints lets a small model touch the body. On the H200
(Qwen2.5-Coder-1.5B, run 8) the refused hints pairs were all of that kind: ``rgb_to_hsv`` came back with
four body lines gone, ``insort_right`` with its keyword-only ``*`` dropped, ``NetrcParseError`` with a new
``__repr__`` and no hints, ``Queue.put_nowait`` unchanged. The types themselves are a short answer: one
JSON object whose keys are the real parameters (``{"a": "list", "lo": "int", "return": "None"}``), under
a schema that allows no other key. coder then writes each annotation into the original header, so the
body, the defaults, the ``*`` and every other byte stay as they were.

An answer is used only when every type parses as a Python expression and names only builtins or names the
module binds (imports, and at module level before the def when annotations are evaluated at def time);
otherwise the plan is not made and the edit goes to the model as a region, as before. ``__init__``
returns ``None`` and is not asked. Pure: the question is sent by :mod:`coder.edit.run.hints_ask`.
"""

from __future__ import annotations

import ast
import builtins
import json
from dataclasses import dataclass
from typing import TYPE_CHECKING

from coder.edit.checks.hints import header_colon
from coder.edit.checks.param_effect import param_defaults
from coder.edit.plan.steps import Plan, Step
from coder.edit.source.trees import def_source, defs_by_name

if TYPE_CHECKING:
    from coder.edit.intent.spec import ChangeSpec

MAX_DEFS = 8
MAX_SLOTS = 24  # annotations asked in one question: the reply stays short (~8 tokens each)
BODY_LINES = 40  # lines of each def shown: its uses tell the types; a long body is cut there
TYPE_CHARS = 60
_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
Func = ast.FunctionDef | ast.AsyncFunctionDef


@dataclass(frozen=True)
class Slot:
    """One annotation to write: a parameter's, or (``param`` None) a def's return."""

    qualname: str
    param: str | None
    key: str  # the JSON key asked: "lo", "return", "put_nowait.item", "__str__.return"


@dataclass(frozen=True)
class Question:
    """What is asked: the defs, their missing annotations, and the names a type may use."""

    defs: tuple[tuple[str, Func], ...]
    slots: tuple[Slot, ...]
    lines: tuple[str, ...]  # the file's lines (for the prompt's sources)


def question(text: str, spec: ChangeSpec) -> Question | None:
    """The question for a type-hints ``spec`` naming defs or classes of the file; None when it does not apply."""
    if spec.action != "type_hints" or not spec.targets or any(t.rel != spec.targets[0].rel for t in spec.targets):
        return None
    if (by_name := defs_by_name(text)) is None:
        return None
    chosen: list[tuple[str, Func]] = []
    for target in spec.targets:
        if target.kind == "class":
            chosen += [(q, fn) for q, fn in by_name.items() if q.rsplit(".", 1)[0] == target.qualname and "." in q]
        elif target.qualname in by_name:
            chosen.append((target.qualname, by_name[target.qualname]))
        else:
            return None
    # a def with nothing to add is left out: only __init__'s missing "-> None" is written without a question
    chosen = [(q, fn) for q, fn in dict(chosen).items()
              if _slots(q, fn, False) or (fn.name == "__init__" and fn.returns is None)]
    several = len(chosen) > 1
    slots = [s for q, fn in chosen for s in _slots(q, fn, several)]
    if not slots or len(chosen) > MAX_DEFS or len(slots) > MAX_SLOTS:
        return None
    return Question(tuple(chosen), tuple(slots), tuple(text.splitlines()))


def _params(fn: Func, method: bool) -> list[ast.arg]:
    a = fn.args
    params = [p for p in [*a.posonlyargs, *a.args, a.vararg, *a.kwonlyargs, a.kwarg] if p is not None]
    static = any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in fn.decorator_list)
    return params[1:] if method and not static and params and params[0] in [*a.posonlyargs, *a.args] else params


def _slots(qualname: str, fn: Func, several: bool) -> list[Slot]:
    prefix = f"{qualname.rsplit('.', 1)[-1]}." if several else ""
    out = [Slot(qualname, p.arg, prefix + p.arg) for p in _params(fn, "." in qualname) if p.annotation is None]
    if fn.returns is None and fn.name != "__init__":  # __init__ returns None: written, not asked
        out.append(Slot(qualname, None, prefix + "return"))
    return out


def schema(q: Question) -> dict[str, object]:
    """The reply's JSON schema: exactly the asked keys, each a short string."""
    return {"type": "object",
            "properties": {s.key: {"type": "string", "maxLength": TYPE_CHARS} for s in q.slots},
            "required": [s.key for s in q.slots], "additionalProperties": False}


def messages(spec: ChangeSpec, q: Question) -> list[dict[str, str]]:
    """The short prompt: each def's source, the instruction (the prompt's only reader of it), what each key means."""
    sources = [def_source(q.lines, fn, BODY_LINES) for _, fn in q.defs]
    keys = "\n".join(f"- {s.key}: " + (f"the type of parameter {s.param} of {s.qualname}" if s.param
                                        else f"what {s.qualname} returns") for s in q.slots)
    return [
        {"role": "system", "content": "You give Python type annotations. Answer in JSON: for each key, one "
                                      "annotation as Python source, such as int, str | None, list[str] or None."},
        {"role": "user", "content": "```python\n" + "\n\n".join(sources) + "\n```\n\n"
                                    f"Instruction: {spec.instruction}\n\nKeys:\n{keys}"},
    ]


def parse(reply: str, q: Question, text: str) -> dict[str, str] | str:
    """The types by key from the model's JSON ``reply``, or why they cannot be written (one line)."""
    try:
        data = json.loads(reply)
    except (json.JSONDecodeError, ValueError):
        return f"the model's types are not JSON: {reply[:60]!r}"
    if not isinstance(data, dict):
        return "the model's types are not a JSON object"
    tree = ast.parse(text)
    future = any(isinstance(n, ast.ImportFrom) and n.module == "__future__"
                 and any(a.name == "annotations" for a in n.names) for n in tree.body)
    defs = dict(q.defs)
    types: dict[str, str] = {}
    for slot in q.slots:
        value = data.get(slot.key)
        if not isinstance(value, str) or not value.strip() or "\n" in value:
            return f"the model gave no type for {slot.key}"
        value = value.strip()
        try:
            expr = ast.parse(value, mode="eval").body
        except (SyntaxError, ValueError, RecursionError):
            return f"the model's type for {slot.key} is not Python: {value!r}"
        if isinstance(expr, ast.Tuple) and expr.elts:  # "(float, float, float)" (the CPU 1.5B's) means a tuple of them
            value, expr = f"tuple[{', '.join(ast.unparse(e) for e in expr.elts)}]", ast.Subscript(
                ast.Name("tuple"), ast.Tuple(expr.elts))
        if isinstance(expr, ast.List | ast.Set | ast.Dict | ast.Constant) and not _none(expr):
            return f"the model's type for {slot.key} is not an annotation: {value!r}"
        if any(isinstance(n, ast.Call | ast.Lambda | ast.NamedExpr | ast.Await | ast.Yield) for n in ast.walk(expr)):
            return f"the model's type for {slot.key} is not an annotation: {value!r}"
        if unbound := _unbound(expr, tree, defs[slot.qualname], future):
            return f"the model's type for {slot.key} names {', '.join(unbound)}, which the file does not bind there"
        types[slot.key] = value
    return types


def _none(expr: ast.expr) -> bool:
    return isinstance(expr, ast.Constant) and expr.value is None


def _unbound(expr: ast.expr, tree: ast.Module, fn: Func, future: bool) -> list[str]:
    """Names of ``expr`` that would not be bound when ``fn``'s annotations are evaluated."""
    bound = set(dir(builtins))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            bound.update((a.asname or a.name).split(".")[0] for a in node.names)
    for node in tree.body:  # module level: before the def unless annotations are never evaluated
        if not future and node.lineno >= fn.lineno:
            break
        if isinstance(node, (*_FUNCS, ast.ClassDef)):
            bound.add(node.name)
        for sub in ast.walk(node) if isinstance(node, ast.Assign | ast.AnnAssign) else ():
            if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store):
                bound.add(sub.id)
    used = {n.id for n in ast.walk(expr) if isinstance(n, ast.Name)}
    return sorted(used - bound)


def write(text: str, q: Question, types: dict[str, str]) -> list[tuple[int, int, str]] | str:
    """Each def's header (first line, last line, new text) with the annotations, or why it cannot be written."""
    lines = text.splitlines(keepends=True)
    out = []
    by_def = {qualname: [s for s in q.slots if s.qualname == qualname] for qualname, _ in q.defs}
    for qualname, fn in q.defs:
        colon = header_colon(text, fn.lineno)
        if colon is None:
            return f"the header of {qualname} could not be read"
        edits: list[tuple[int, int, int, str]] = []  # (line, start col, end col, text), byte-free: str columns
        params = {p.arg: p for p in _params(fn, "." in qualname)}
        defaults = param_defaults(fn)
        for slot in by_def[qualname]:
            if slot.param is None:
                row, col = colon
                stripped = len(lines[row - 1][:col].rstrip(" "))
                edits.append((row, stripped, col, f" -> {types[slot.key]}"))
                continue
            p = params[slot.param]
            row, end = p.lineno, _col(lines, p.lineno, p.end_col_offset or 0)
            edits.append((row, end, end, f": {types[slot.key]}"))
            default = defaults.get(slot.param)
            if default is not None:
                if default.lineno != row:
                    return f"the default of {slot.param} in {qualname} is on another line"
                start = _col(lines, row, default.col_offset)
                if lines[row - 1][end:start].strip() != "=":
                    return f"the default of {slot.param} in {qualname} could not be read"
                edits.append((row, end, start, " = "))
        if fn.name == "__init__" and fn.returns is None:
            row, col = colon
            edits.append((row, len(lines[row - 1][:col].rstrip(" ")), col, " -> None"))
        header = {r: lines[r - 1] for r in range(fn.lineno, colon[0] + 1)}
        # right to left on each line: earlier columns stay valid; an annotation and its " = " meet at one column
        for row, a, b, new in sorted(edits, key=lambda e: (e[0], e[1], e[2]), reverse=True):
            header[row] = header[row][:a] + new + header[row][b:]
        out.append((fn.lineno, colon[0], "".join(header[r] for r in sorted(header))))
    return out


def _col(lines: list[str], row: int, byte_col: int) -> int:
    """The str column of ``ast``'s UTF-8 byte column on ``row``."""
    return len(lines[row - 1].encode()[:byte_col].decode(errors="ignore"))


def plan(rel: str, spec: ChangeSpec, q: Question, headers: list[tuple[int, int, str]], took: float) -> Plan:
    """The mechanical plan writing ``headers``: one step per def, no region request."""
    steps = tuple(Step(rel, a, b, f"header of {qualname}", "type hints named by the model", "mechanical",
                       symbol=qualname, text=new)
                  for (qualname, _), (a, b, new) in zip(q.defs, headers, strict=True))
    names = ", ".join(qualname for qualname, _ in q.defs[:3]) + (" ..." if len(q.defs) > 3 else "")
    return Plan("hints", spec.instruction, steps,
                f"type hints on {names}: the model named {len(q.slots)} type(s) in {took:.2f}s (JSON), "
                "written into the headers mechanically", spec=spec)
