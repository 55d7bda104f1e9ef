"""Extracting the lines several functions share word for word into a new function, mechanically.

Seen on the H200 (Qwen2.5-Coder-1.5B, issue 34): "Extract the hue computation that ``rgb_to_hls`` and
``rgb_to_hsv`` share ... into a new function ``_hue(r, g, b, maxc, rangec)`` ... and call it from both" was
refused in every wording: the model wrote a ``_hue`` nothing called, or mangled the lines around it. Where the
shared lines are the same text in every function named, the extraction needs no judgement, so coder does it:

- the span is the longest run of whole statements (one statement list, at least :data:`MIN_STATEMENTS`) whose
  text, indentation included, is found exactly once in each function;
- its inputs are the names it reads before setting them that are the functions' locals (a global or a builtin
  reads the same from a new top-level def); when the instruction spells the signature, its order is used and it
  must name exactly those inputs;
- its one output is the one name it sets that a function reads outside the span;
- each span becomes ``out = new(inputs)``, and ``def new(inputs):`` with the span and ``return out`` goes right
  before the first function.

Where no run is the same text in every function, runs the same but for the conditions of their ``if`` and
``while`` statements are taken (:func:`_alike`; seen on the H200: getopt-extract, refused in every wording, where
``getopt`` tests ``type(longopts) == type("")`` and ``gnu_getopt`` ``isinstance(longopts, str)``): the new
function takes the first named function's lines, so the others now run its conditions. That is no equivalence
(a ``str`` subclass passes one test and fails the other): the plan says each condition that changes, in its
reason and notes, and at most :data:`MAX_CONDITIONS` may.

Anything else (the lines differ otherwise, one function named, a return or a ``break`` inside, two outputs, a
name the span sets that the function also binds elsewhere) is no plan here: the model's region edit, as before.
"""

from __future__ import annotations

import ast
import symtable
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from coder.edit.plan.span_flow import flow_of, names_read, recomputed
from coder.edit.plan.steps import Plan, Step
from coder.edit.source.splice import block_bounds

if TYPE_CHECKING:
    from coder.edit.intent.spec import ChangeSpec
    from coder.edit.source.regions import Region

MIN_STATEMENTS = 3  # fewer shared statements is no computation worth a function of its own
MAX_STATEMENTS = 60  # runs are compared up to this long; a longer shared run is left to the model
MAX_CONDITIONS = 2  # conditions that may differ in alike runs: more is another computation of the same shape
_Def = ast.FunctionDef | ast.AsyncFunctionDef



@dataclass(frozen=True)
class Span:
    """A run of whole statements of one function: its lines (1-based, inclusive) and how many statements."""

    start: int
    end: int
    count: int


def derive_extract_same(rel: str, text: str, spec: ChangeSpec, symbols: dict[str, Region]) -> Plan | None:
    """The mechanical extraction ``spec`` asks for, when its functions share the lines word for word; else None."""
    name = spec.facts.extract_into or (spec.new_names[0] if spec.new_names else None)
    if spec.action != "extract" or name is None or len(spec.targets) < 2 or "\r" in text:
        return None  # a file with CR line ends keeps the model's path: the steps' text is written with \n
    if any(t.rel != rel or t.kind != "function" or "." in t.qualname for t in spec.targets):
        return None
    try:
        module = ast.parse(text)
        table = symtable.symtable(text, rel, "exec")
    except (SyntaxError, ValueError, RecursionError):
        return None
    if name in table.get_identifiers():
        return None  # the module already binds or reads the new name
    lines = text.splitlines(keepends=True)
    defs = []
    for target in dict.fromkeys(t.qualname for t in spec.targets):
        found = [n for n in module.body if isinstance(n, _Def) and n.name == target]
        scopes = [c for c in table.get_children() if c.get_name() == target and c.get_type() == "function"]
        if len(found) != 1 or len(scopes) != 1:
            return None
        defs.append((found[0], scopes[0]))
    if len(defs) < 2:
        return None
    spans = _shared(lines, [fn for fn, _ in defs])
    changed: list[tuple[str, str, str]] = []
    if spans is None and (alike := _alike(lines, [fn for fn, _ in defs])) is not None:
        spans, changed = alike
    if spans is None:
        return None
    parts = _parts(lines, defs, spans, name, dict(spec.facts.signatures).get(name), spec.facts.returned)
    if parts is None:
        return None
    return _plan(rel, lines, spec, defs, spans, name, parts, changed)


@dataclass(frozen=True)
class _Parts:
    """The new function's parameters and outputs, in order, and the statements it first repeats from its callers
    (a local the spelled signature leaves out, recomputed: ``n = len(x)``)."""

    params: list[str]
    outs: list[str]
    prelude: list[str]


def _plan(rel: str, lines: list[str], spec: ChangeSpec, defs: list[tuple[_Def, symtable.SymbolTable]],
          spans: list[Span], name: str, parts: _Parts, changed: list[tuple[str, str, str]]) -> Plan | None:
    """The steps: the new def before the first function, and each span replaced by the call (the new def's lines
    are the first named function's; ``changed``: each other function's condition, as (function, its, the new))."""
    first = min((fn for fn, _ in defs), key=lambda fn: fn.lineno)
    span = spans[0]
    indent = _indent(lines[span.start - 1])
    unit = _indent(lines[first.body[0].lineno - 1])  # the file's indentation step, as the function has it
    body = []
    for line in lines[span.start - 1:span.end]:
        if not line.strip():
            body.append("\n")
        elif not line.startswith(indent):
            return None  # a continuation line left of the span: dedenting would change it
        else:
            body.append(unit + line[len(indent):])
    head = min([first.lineno, *(d.lineno for d in first.decorator_list)])
    at, _ = block_bounds("".join(lines), head, first.end_lineno or first.lineno)
    blank = 0
    while at - blank > 1 and not lines[at - blank - 2].strip():
        blank += 1
    signature, out = ", ".join(parts.params), ", ".join(parts.outs)
    new_def = (f"def {name}({signature}):\n" + "".join(unit + p + "\n" for p in parts.prelude) + "".join(body)
               + f"{unit}return {out}\n" + "\n" * (blank or 2))
    steps = [Step(rel, at, at - 1, f"before function {first.name}", f"the new function {name}", "mechanical",
                  text=new_def)]
    for (fn, _), s in zip(defs, spans, strict=True):
        steps.append(Step(rel, s.start, s.end, f"lines {s.start}-{s.end}", f"calls {name}", "mechanical",
                          symbol=fn.name, text=f"{indent}{out} = {name}({signature})\n"))
    steps.sort(key=lambda s: (s.start, s.end))
    callers = ", ".join(fn.name for fn, _ in defs)
    if not changed:
        return Plan("extract", spec.instruction, tuple(steps),
                    f"extract the {span.count} statements {callers} share into {name}({signature}): done "
                    "mechanically, no model request")
    source, others = defs[0][0].name, ", ".join(fn.name for fn, _ in defs[1:])
    notes = tuple(f"{fn} tested `{its}` where {source} tests `{new}`: {fn} now runs {source}'s test (the same "
                  "only if the two conditions agree on every value)" for fn, its, new in changed)
    return Plan("extract", spec.instruction, tuple(steps),
                f"extract: {name}({signature}) from {source}, then call it from {others} (their lines alike but for "
                f"{len(changed)} condition(s)): done mechanically, no model request", notes=notes)


def _indent(line: str) -> str:
    return line[:len(line) - len(line.lstrip())]


def _bodies(fn: _Def) -> Iterator[list[ast.stmt]]:
    """Every statement list of ``fn``: its body and those of its compound statements (nested defs' excluded)."""
    stack: list[list[ast.stmt]] = [fn.body]
    while stack:
        body = stack.pop()
        yield body
        for s in body:
            if isinstance(s, _Def | ast.ClassDef):
                continue
            stack += [sub for f in ("body", "orelse", "finalbody")
                      if isinstance(sub := getattr(s, f, None), list) and sub and isinstance(sub[0], ast.stmt)]
            stack += [h.body for h in getattr(s, "handlers", [])]


def _runs(lines: list[str], fn: _Def) -> dict[str, list[Span]]:
    """Each run of at least :data:`MIN_STATEMENTS` whole-line statements of ``fn``, by its text."""
    out: dict[str, list[Span]] = {}
    for body in _bodies(fn):
        whole = _whole(lines, body)
        for i, a in enumerate(body):
            for j in range(i + MIN_STATEMENTS - 1, min(len(body), i + MAX_STATEMENTS)):
                if all(whole[i:j + 1]):
                    end = body[j].end_lineno or body[j].lineno
                    out.setdefault("".join(lines[a.lineno - 1:end]), []).append(Span(a.lineno, end, j - i + 1))
    return out


def _whole(lines: list[str], body: list[ast.stmt]) -> list[bool]:
    """Whether each statement owns its lines: nothing before it on its first line, nothing but a comment after its
    last."""
    return [lines[s.lineno - 1][:s.col_offset].strip() == ""
            and lines[(s.end_lineno or s.lineno) - 1][s.end_col_offset or 0:].strip()[:1] in ("", "#") for s in body]


def _shared(lines: list[str], fns: list[_Def]) -> list[Span] | None:
    """The longest run found once in every function (its span in each, in ``fns``' order); None: none or a tie."""
    runs = [_runs(lines, fn) for fn in fns]
    common = [(spans[0].count, len(text), text) for text, spans in runs[0].items()
              if all(len(r.get(text, ())) == 1 for r in runs)]
    if not common:
        return None
    common.sort(reverse=True)
    if (len(common) > 1 and common[1][:2] == common[0][:2]) or common[0][0] == MAX_STATEMENTS:
        return None  # two different runs as long, or one longer than compared: which lines are meant needs judgement
    return [r[common[0][2]][0] for r in runs]


def _alike(lines: list[str], fns: list[_Def]) -> tuple[list[Span], list[tuple[str, str, str]]] | None:
    """The longest run found once in every function the same but for conditions, with each condition another
    function spells otherwise than the first (function, its, the first's); None: none, a tie, or too many."""
    runs = [_conditioned_runs(lines, fn) for fn in fns]
    common = [(found[0][2], len(key), key) for key, found in runs[0].items()
              if all(len(r.get(key, ())) == 1 for r in runs)]
    if not common:
        return None
    common.sort(reverse=True)
    if len(common) > 1 and common[1][:2] == common[0][:2]:
        return None  # two different runs as long: which lines are meant needs judgement
    found = [r[common[0][2]][0] for r in runs]
    first = found[0][1]
    changed = [(fn.name, its, new) for fn, (_, tests, _) in zip(fns[1:], found[1:], strict=True)
               for its, new in zip(tests, first, strict=True) if its != new]
    top = found[0][0].count
    if len(changed) > MAX_CONDITIONS or top == MAX_STATEMENTS or (not changed and top >= MIN_STATEMENTS):
        return None  # too many conditions, longer than compared, or a run the same text that _shared turned down
    return [span for span, _, _ in found], changed


def _conditioned_runs(lines: list[str], fn: _Def) -> dict[str, list[tuple[Span, list[str], int]]]:
    """Each run of whole-line statements of ``fn`` holding at least :data:`MIN_STATEMENTS` statements, nested ones
    counted, by its text with the conditions of its ``if`` and ``while`` statements left out; with those
    conditions' texts, in order, and how many statements it holds."""
    out: dict[str, list[tuple[Span, list[str], int]]] = {}
    data = [line.encode() for line in lines]  # ast's columns count UTF-8 bytes
    for body in _bodies(fn):
        whole = _whole(lines, body)
        for i, a in enumerate(body):
            for j in range(i, min(len(body), i + MAX_STATEMENTS)):
                if not whole[j]:
                    break
                run = body[i:j + 1]
                count = sum(isinstance(n, ast.stmt) for s in run for n in ast.walk(s))
                if count < MIN_STATEMENTS:
                    continue
                end = run[-1].end_lineno or run[-1].lineno
                tests = sorted((n.test for s in run for n in ast.walk(s) if isinstance(n, ast.If | ast.While)),
                               key=lambda t: (t.lineno, t.col_offset))
                text, said, at = b"", [], (a.lineno, 0)
                for t in tests:
                    text += _between(data, at, (t.lineno, t.col_offset)) + b"\0"
                    said.append(_between(data, (t.lineno, t.col_offset),
                                         (t.end_lineno or t.lineno, t.end_col_offset or 0)).decode())
                    at = (t.end_lineno or t.lineno, t.end_col_offset or 0)
                text += _between(data, at, (end + 1, 0))
                out.setdefault(text.decode(), []).append((Span(a.lineno, end, j - i + 1), said, count))
    return out


def _between(data: list[bytes], a: tuple[int, int], b: tuple[int, int]) -> bytes:
    """The bytes from (line, column) ``a`` to ``b`` (lines 1-based, columns in bytes; ``b`` excluded)."""
    if a[0] == b[0]:
        return data[a[0] - 1][a[1]:b[1]]
    return data[a[0] - 1][a[1]:] + b"".join(data[a[0]:b[0] - 1]) + (data[b[0] - 1][:b[1]] if b[0] <= len(data) else b"")


def _parts(lines: list[str], defs: list[tuple[_Def, symtable.SymbolTable]], spans: list[Span], name: str,
           spelled: tuple[str, ...] | None, returned: tuple[str, ...]) -> _Parts | None:
    """The new function's parts; None where the span cannot be one.

    Its outputs are the names the span sets that a function reads after it: in the order the instruction spells
    the tuple returned ("-> (xbar, ybar, sxy)"), else in the order the span sets them. Where the instruction spells
    the parameters, a local the span reads that they leave out is recomputed first, when every function sets it
    once, before the span, by the same one-line statement from those parameters (:func:`.span_flow.recomputed`).
    """
    inputs: set[str] | None = None
    order: list[str] = []
    outputs: set[str] = set()
    set_order: list[str] = []
    for (fn, scope), span in zip(defs, spans, strict=True):
        top = next(run for body in _bodies(fn) if (run := [s for s in body if span.start <= s.lineno <= span.end])
                   and run[0].lineno == span.start)
        flow = flow_of(top)
        local = {n for n in scope.get_identifiers() if scope.lookup(n).is_local()}
        if flow.barred or name in local or name in flow.reads:
            return None
        mine = {n for n in flow.reads if n in local}
        if inputs is not None and mine != inputs:
            return None
        inputs, order, set_order = mine, sorted(mine, key=lambda n: flow.reads[n]), flow.order
        bound, read = _outside(fn, span)
        # a name the span sets that the function binds elsewhere may keep its old value where the span does not
        # set it (passing it in would be the safe reading, not the span's text); a global set would go local
        if any((n in bound and n not in mine) or n not in local for n in flow.sets):
            return None
        outputs |= flow.sets & read
    if not outputs or inputs is None or (returned and set(returned) != outputs):
        return None
    outs = list(returned) if returned else [n for n in set_order if n in outputs]
    prelude: list[str] = []
    if spelled is not None:  # as the instruction spells it, bare names only: an annotation or default is the model's
        if not all(p.isidentifier() for p in spelled) or len(set(spelled)) != len(spelled):
            return None
        for extra in sorted(inputs - set(spelled), key=order.index):
            said = {recomputed(fn, extra, span.start, set(spelled), lines)
                    for (fn, _), span in zip(defs, spans, strict=True)}
            if len(said) != 1 or None in said:
                return None
            prelude.append(said.pop() or "")
        if not set(spelled) <= inputs | {n for p in prelude for n in names_read(p)}:
            return None  # a parameter nothing reads
        order = list(spelled)
    return _Parts(order, outs, prelude)


def _outside(fn: _Def, span: Span) -> tuple[set[str], set[str]]:
    """The names ``fn`` binds (its parameters too) and reads outside ``span``'s lines."""
    args = fn.args
    bound = {a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg] if a}
    read: set[str] = set()
    for node in ast.walk(fn):
        if isinstance(node, ast.Name) and not span.start <= node.lineno <= span.end:
            (read if isinstance(node.ctx, ast.Load) else bound).add(node.id)
    return bound, read
