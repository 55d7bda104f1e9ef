"""Plan an edit as the regions a small model gets right, or as an exact mechanical change.

A model asked to rewrite a long file for a rename, a move or a deletion drifts; asked to
rewrite one function, it is usually right. So coder takes the change spec (the instruction
read once, its names resolved against the code: :mod:`coder.edit.intent.read`) and the
names' uses in the file (Python's tokenizer and :mod:`ast`), and derives the regions the
change must touch:

- **rename**: each function or method that uses an old name, and the module- or class-level
  statements that do (grouped into blocks); each region's reply is checked against the
  tokenized rename (:func:`coder.edit.source.splice.rename_matches`);
- **delete** named defs or classes (and the ``__main__`` block, the comment above, when asked): cut
  mechanically (:mod:`coder.edit.plan.delete`);
- **move** a named def or class before/after another, or to the end: cut and pasted mechanically; to
  another file, with the source's import of it (:mod:`coder.edit.plan.across`, given that file's text);
- **move or delete an import or a module-level assignment** (:mod:`coder.edit.plan.statements`):
  cut (and pasted) mechanically, like a def;
- **add a parameter**: the function, and its callers when the instruction asks for them (mechanically
  when it spells what each call passes: :mod:`coder.edit.plan.passes`);
- **add a method**: the class, or (for a long class) its last method with the new one after it;
- **docstrings for every method of a long class**: each method without one (:mod:`coder.edit.plan.members`);
- **a default changed from ``[]`` to None** (the mutable-default idiom): the default and ``if P is None:
  P = []`` set mechanically in each def (:mod:`coder.edit.plan.none_default`);
- **extract** the lines the functions named share word for word (or but for their ``if``/``while`` conditions,
  each said in the notes) into a new function: the def and each call written mechanically
  (:mod:`coder.edit.plan.extract_same`);
- **windows**: a whole-file change of a long file (the spec targets no symbol), in windows at
  top-level boundaries, each told the kind of change allowed.

Plain data and pure functions: nothing here reads files or talks to a server.
"""

from __future__ import annotations

import ast
import io
import tokenize
from dataclasses import replace
from itertools import pairwise
from typing import TYPE_CHECKING

from coder.edit.intent.spec import FIX_WHOLE_LINES
from coder.edit.plan.add_function import derive_add_function
from coder.edit.plan.delete import derive_delete
from coder.edit.plan.extract_same import derive_extract_same
from coder.edit.plan.locate import region_of, regions_using
from coder.edit.plan.members import derive_member_docstrings
from coder.edit.plan.none_default import derive_none_default
from coder.edit.plan.passes import passed_at_calls
from coder.edit.plan.statements import derive_statement
from coder.edit.plan.steps import ASKED_MODEL as ASKED_MODEL
from coder.edit.plan.steps import RENAMED_BY_SCOPE as RENAMED_BY_SCOPE
from coder.edit.plan.steps import WINDOW_MIN_LINES
from coder.edit.plan.steps import Plan as Plan
from coder.edit.plan.steps import Step as Step
from coder.edit.source.attrs import init_values, state_listed
from coder.edit.source.regions import Region, python_symbols
from coder.edit.source.units import leaves, name_rows, units

if TYPE_CHECKING:
    from coder.edit.intent.spec import ChangeSpec, Symbol

WINDOW_LINES = 100  # the most lines a window holds (one top-level def may exceed it)
SHORT_CLASS_LINES = 60  # a class this short is rewritten whole to gain a method


# --- deriving a plan ------------------------------------------------------------------------------

def derive(rel: str, text: str, spec: ChangeSpec) -> Plan | None:
    """The plan for ``spec`` on one Python file; None when no plan applies (an ordinary request)."""
    if not rel.endswith((".py", ".pyi")):
        return None
    try:
        symbols = python_symbols(text)
    except (SyntaxError, ValueError, RecursionError):
        return None
    for derive_one in (lambda r, t, s, _: derive_statement(r, t, s), derive_delete, _move, _rename, _add_method,
                       _add_param, derive_none_default, derive_member_docstrings, derive_extract_same,
                       lambda r, t, s, _: derive_add_function(r, t, s)):
        plan = derive_one(rel, text, spec, dict(symbols))
        if plan is not None and plan.steps:
            return replace(plan, spec=spec)
    return None


def rename_steps(rel: str, text: str, pairs: list[tuple[str, str]]) -> list[Step]:
    """The regions that use an old name, each told which of its lines do and what to keep.

    Small models asked to "rename X to Y everywhere" in a region that only calls X tend to rename
    the region's own function too; asking each region for just its lines keeps them on those lines.
    """
    olds = {a for a, _ in pairs}
    lines = text.splitlines()
    rows = name_rows(text, olds)
    what = ", ".join(f"`{a}` to `{b}`" for a, b in pairs)
    steps = []
    for step in regions_using(rel, text, olds, "uses " + ", ".join(sorted(olds))):
        used = [lines[r - 1].strip() for r in sorted(rows) if step.start <= r <= step.end]
        quoted = "; ".join(f"`{u[:80]}`" for u in used[:3]) + (" ..." if len(used) > 3 else "")
        keep = ""
        if step.symbol is not None and step.symbol.rsplit(".", 1)[-1] not in olds:
            keep = f" Keep the name {step.symbol.rsplit('.', 1)[-1]} as it is."
        steps.append(replace(step, ask=f"Rename {what} on the line(s) that use it: {quoted}. "
                                       f"Copy every other line exactly.{keep}"))
    return steps


def _rename(rel: str, text: str, spec: ChangeSpec, symbols: dict[str, Region]) -> Plan | None:
    pairs = list(spec.renames)
    if not pairs:
        return None
    steps = rename_steps(rel, text, pairs)
    olds = {a for a, _ in pairs}
    inside = {t.qualname for t in spec.targets if t.rel == rel and t.kind != "class" and t.name not in olds}
    if spec.facts.confined in inside:  # the reading's one def (intent.reach.rename_home), also the guard's
        inside = {spec.facts.confined}
    # "rename the less method of Whitespace ... and update the call in process_tokens": a def is renamed, so every
    # region that uses it follows (the guard holds all of them to it); naming one caller confines nothing
    renames_def = any(t.name in olds for t in spec.targets if t.rel == rel and t.kind != "class")
    if spec.reach == "symbol" and inside and not renames_def:
        # "in f rename the local x to y": only f's region, whatever else has its own x (seen applied wrong on
        # the H200: a held-out task's local renamed in a second method that kept its own)
        steps = [s for s in steps if s.symbol in inside] or steps
    what = ", ".join(f"{a} -> {b}" for a, b in pairs)
    return Plan("rename", spec.instruction, tuple(steps), f"rename {what}: {len(steps)} region(s) use the old name",
                tuple(pairs))


def _own(spec: ChangeSpec, rel: str) -> list[Symbol]:
    return [s for s in spec.targets if s.rel == rel]


def _move(rel: str, text: str, spec: ChangeSpec, symbols: dict[str, Region]) -> Plan | None:
    """Named defs moved before or after another, or to the end: cut with their comments and pasted, in file order
    ("move _heappop_max, _heapreplace_max and _heapify_max further down, right before merge": run 19 sent the
    three to the model as one region, and the reply was refused)."""
    from coder.edit.source.splice import blank_run_after, block_bounds, line_span

    mine, anchor_at = _own(spec, rel), spec.anchor
    if (spec.action != "move" or not mine or len(mine) != len(spec.targets) or anchor_at is None
            or not spec.facts.moves):
        return None
    found = [region_of(symbols, s.qualname) for s in mine]
    if any(f is None or symbols[f[0]].within for f in found):
        return None  # a def inside an `if` or `try` is defined only when it runs: where it may go needs judgement
    blocks = sorted((f for f in found if f is not None), key=lambda f: f[1])
    spans = [block_bounds(text, start, end) for _, start, end, _ in blocks]
    if any(b1 >= a2 for (_, b1), (a2, _) in pairwise(spans)):
        return None  # one inside another
    bodies = [line_span(text, a, end) for (a, _), (_, _, end, _) in zip(spans, blocks, strict=True)]
    gaps = ["\n" * blank_run_after(text, end) for _, _, end, _ in blocks]
    label = ", ".join(f[3] for f in blocks)
    if anchor_at.symbol is None:
        if anchor_at.where != "end":
            return None  # above the imports is never what "top" means: let the model place it
        at = len(text.splitlines()) + 1
        joined = "".join(g + b for g, b in zip(gaps, bodies, strict=True))
        paste = Step(rel, at, at - 1, "end of the file", "move target", "mechanical",
                     text=("" if text.endswith("\n") else "\n") + joined)
    else:
        anchor = region_of(symbols, anchor_at.symbol.qualname)
        if anchor is None or anchor[0] in {f[0] for f in blocks} or symbols[anchor[0]].within:
            return None
        _, y_start, y_end, _ = anchor
        if anchor_at.where in ("after", "below"):
            paste = Step(rel, y_end + 1, y_end, f"after {anchor[3]}", "move target", "mechanical",
                         text="".join(g + b for g, b in zip(gaps, bodies, strict=True)))
        else:
            y_start, _ = block_bounds(text, y_start, y_end)
            paste = Step(rel, y_start, y_start - 1, f"before {anchor[3]}", "move target", "mechanical",
                         text="".join(b + g for g, b in zip(gaps, bodies, strict=True)))
        if any(a <= paste.start <= b + 1 for a, b in spans):
            return None  # already there, or inside itself
    cuts = [Step(rel, a, b, f[3], "moved away", "mechanical", text="") for (a, b), f in zip(spans, blocks, strict=True)]
    return Plan("move", spec.instruction, tuple(sorted((*cuts, paste), key=lambda s: (s.start, s.end))),
                f"move {label}: cut and pasted mechanically, no model request")


def _called(text: str, name: str, *, method: bool) -> set[int]:
    """Rows where ``name`` is called, by tokens: ``obj.name(`` for a method, a bare ``name(`` otherwise."""
    toks = list(tokenize.generate_tokens(io.StringIO(text).readline))
    return {t.start[0] for prev, t, nxt in zip(toks, toks[1:], toks[2:], strict=False)
            if t.type == tokenize.NAME and t.string == name and nxt.string == "(" and (prev.string == ".") == method}


def _add_param(rel: str, text: str, spec: ChangeSpec, symbols: dict[str, Region]) -> Plan | None:
    if spec.action != "add_parameter":
        return None
    found = {r for s in _own(spec, rel) if (r := region_of(symbols, s.qualname)) is not None
             and r[3].startswith(("function", "method"))}
    if len(found) > 1 and spec.facts.callers:
        found = _callee(text, found)
    if len(found) != 1:
        return None
    qual, start, end, label = found.pop()
    steps = [Step(rel, start, end, label, "gains the parameter", symbol=qual)]
    if spec.facts.callers:
        bare = qual.rsplit(".", 1)[-1]
        rows = _called(text, bare, method='.' in qual) - set(range(start, end + 1))
        for u in leaves(units(text)):
            if any(u.start <= r <= u.end for r in rows) and not (start <= u.start <= end):
                where = u.label if u.symbol else f"lines {u.start}-{u.end}"
                # "pass char=' ' at its calls": the keyword each call gains is spelled out, no model request
                done = passed_at_calls(text, u.start, u.end, bare, method="." in qual,
                                       keyword=spec.facts.passes[0]) if len(spec.facts.passes) == 1 else None
                if done is not None:
                    steps.append(Step(rel, u.start, u.end, where, f"passes {spec.facts.passes[0]} to {bare}",
                                      "mechanical", symbol=u.symbol, text=done))
                    continue
                steps.append(Step(rel, u.start, u.end, where, f"calls {bare}", symbol=u.symbol,
                                  note=f"This region calls {bare}: update its call(s) of {bare} as the "
                                       f"instruction says, and change nothing else."))
        if len(steps) > 1 and all(s.how == "mechanical" for s in steps[1:]) and spec.facts.own_words:
            # every call is written by coder: the def's region is asked only what the def itself must do
            steps[0] = replace(steps[0], ask=spec.facts.own_words, ask_read=True)
        elif len(steps) > 1 and spec.new_names:
            steps[0] = replace(steps[0], note=_gains_note(label, spec.new_names[0], [s.label for s in steps[1:]]))
    steps.sort(key=lambda s: s.start)
    return Plan("add_param", spec.instruction, tuple(steps), f"{label} gains a parameter: {len(steps)} region(s)")


def _gains_note(label: str, name: str, callers: list[str]) -> str:
    """What the def that gains a parameter is told when its callers are regions of their own.

    Seen on the H200 (runs 7 and 8, glob-callers): shown ``_listdir`` with "... pass include_hidden=include_hidden
    at its calls in _glob1 and _rlistdir" (and ``_rlistdir``'s own filter just after the region), the 1.5B added
    the parameter and left the body as it was in 11 of 12 replies, retries included: the work read as the callers'.
    """
    return (f"This region is {label}, the one that gains the parameter {name}: use {name} in its own body to do "
            f"what the instruction says. Its callers ({', '.join(callers)}) are other regions, changed separately.")


def _callee(text: str, found: set[tuple[str, int, int, str]]) -> set[tuple[str, int, int, str]]:
    """Of the defs named with "... and pass it at its calls in g and h", the one every other named def calls.

    "Add include_hidden to _listdir ... pass it where _glob1 and _rlistdir call it" names three defs; read as
    one region over all three (84 lines), the 1.5B on the H200 answered with 13 of them. The def the others
    call gains the parameter; the callers are the plan's own steps.
    """
    def calls(caller: tuple[str, int, int, str], callee: tuple[str, int, int, str]) -> bool:
        bare = callee[0].rsplit(".", 1)[-1]
        return any(caller[1] <= row <= caller[2] for row in _called(text, bare, method="." in callee[0]))
    callees = {f for f in found if all(calls(g, f) for g in found if g != f)}
    return callees if len(callees) == 1 else found


def _add_method(rel: str, text: str, spec: ChangeSpec, symbols: dict[str, Region]) -> Plan | None:
    owner = spec.owner
    if spec.action != "add_method" or owner is None or owner.rel != rel or owner.qualname not in symbols:
        return None
    qual, start, end, label = region_of(symbols, owner.qualname) or ("", 0, 0, "")
    if end - start + 1 <= SHORT_CLASS_LINES:
        step = Step(rel, start, end, label, "gains the method", symbol=qual)
    else:
        methods = [u for u in units(text) if u.symbol and u.symbol.startswith(qual + ".")
                   and u.symbol.count(".") == qual.count(".") + 1 and u.kind == "function"]
        if not methods:
            step = Step(rel, start, end, label, "gains the method", symbol=qual)
        else:
            last = methods[-1]
            # run 10 on the H200: "Queue should have a clear method: empty the queue ..." came back as `def empty`,
            # and "TopologicalSorter needs a node_count method ..." as static_order with a new return, retries
            # included; the name the reading resolved is spelled out as the def's first line
            new = f"the new method `def {spec.new_names[0]}(self...)`" if spec.new_names else "the new method"
            step = Step(rel, last.start, last.end, f"lines {last.start}-{last.end}", f"the last method of {label}",
                        note=f"The region shown is {last.label}, the last method of {label}: keep it exactly as "
                             f"it is and write {new} right after it, at the same indentation, "
                             f"inside {label}.{_state_note(text, qual, label)}")
    return Plan("add_method", spec.instruction, (step,), f"{label} gains a method: 1 region ({step.label})",
                adds=(qual, spec.new_names[0] if spec.new_names else ""))


def _state_note(text: str, qual: str, label: str) -> str:
    """`` The attributes the methods of C set: self.a, self.b.``: what a new method needs to see of its class.

    Seen on the 2-core CPU and the H200: the 1.5B, shown the end of TopologicalSorter and asked for
    ``node_count``, read ``self.nodes`` (twice, retry included); the graph is ``self._node2info``. And on
    the H200, "add a reset() method to Repr that puts all the limits back to their defaults", shown the
    names alone, came back with ``self.maxlist = 1000`` (``__init__`` sets 6): the literal values go too.
    """
    try:
        body = ast.parse(text).body
    except (SyntaxError, ValueError, RecursionError):
        return ""
    cls: ast.ClassDef | None = None
    for part in qual.split("."):
        cls = next((n for n in body if isinstance(n, ast.ClassDef) and n.name == part), None)
        if cls is None:
            return ""
        body = cls.body
    if cls is None or not (state := state_listed(cls)):
        return ""
    given = " (with the values __init__ gives them)" if init_values(cls) else ""
    return f" The attributes the methods of {label} set{given}: {state}."


_KIND_WORDS = {"annotations": "type annotations", "docstrings": "docstrings", "comments": "comments"}


def windows(rel: str, text: str, spec: ChangeSpec) -> Plan | None:
    """A whole-file change of a long Python file as windows cut at top-level boundaries.

    Only when the spec targets no symbol: a targeted instruction is a region plan, never windows
    (a window without the target, sent "fix X", invents a change). A report of a fault naming no
    function stays one request up to :data:`~coder.edit.intent.spec.FIX_WHOLE_LINES` lines.
    """
    lines = text.splitlines()
    if spec.targeted or len(lines) <= WINDOW_MIN_LINES or not rel.endswith((".py", ".pyi")):
        return None
    if spec.action == "change" and spec.facts.fault and len(lines) <= FIX_WHOLE_LINES:
        return None
    try:
        found = units(text)
    except (SyntaxError, ValueError, RecursionError):
        return None
    # boundaries: every top-level unit start; a class longer than a window also splits at its members
    cuts = {1}
    for u in found:
        if u.depth == 0 or (u.depth == 1 and u.kind != "header"):
            cuts.add(u.start)
    starts = sorted(cuts)
    wins: list[tuple[int, int]] = []
    begin = prev = 1
    for nxt in [*starts[1:], len(lines) + 1]:
        if nxt - begin > WINDOW_LINES and prev > begin:  # reaching nxt would overfill: close at prev
            wins.append((begin, prev - 1))
            begin = prev
        prev = nxt
    wins.append((begin, len(lines)))
    if len(wins) < 2:
        return None
    only = spec.only
    kinds = " and ".join(_KIND_WORDS[k] for k in sorted(only) if k in _KIND_WORDS) if only else ""
    allowed = f" Change {kinds} only: every other line stays exactly as it is." if kinds else ""
    steps = tuple(Step(rel, a, b, f"lines {a}-{b}", f"window {i} of {len(wins)}",
                       note=f"This is part {i} of {len(wins)} of {rel} (lines {a}-{b}). Apply the instruction "
                            f"to this part only.{allowed} If nothing in this part needs to change, reply with it "
                            "unchanged.")
                  for i, (a, b) in enumerate(wins, 1))
    return Plan("windows", spec.instruction, steps, f"{rel} has {len(lines)} lines: the rewrite goes in "
                f"{len(steps)} windows at top-level boundaries", spec=spec)
