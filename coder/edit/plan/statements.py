"""Module-level statements as units: an import or an assignment moved or deleted mechanically, like a def.

"Move the functools import after import os", "delete the alias insort": the change spec names the
statements by the names they bind (:attr:`coder.edit.intent.spec.Facts.statements`), the first being
what moves or goes and the next where it goes; the statement is found with :mod:`ast` and cut and
pasted whole, so no model rewrites the file for a one-line move.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from coder.edit.plan.steps import Plan, Step
from coder.edit.source.splice import cut, line_span

if TYPE_CHECKING:
    from coder.edit.intent.spec import ChangeSpec


def _binds(node: ast.stmt, *, modules: bool = False) -> set[str]:
    """The names ``node`` binds; with ``modules``, the module a ``from m import x`` reads too."""
    if isinstance(node, ast.Import | ast.ImportFrom):
        return {a.asname or a.name.split(".")[0] for a in node.names} | (
            {node.module.split(".")[0]} if modules and isinstance(node, ast.ImportFrom) and node.module else set())
    if isinstance(node, ast.Assign | ast.AnnAssign):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        return {t.id for t in targets if isinstance(t, ast.Name)}
    return set()


def statement(text: str, name: str) -> tuple[int, int, str] | None:
    """(first line, last line, label) of the one top-level import or assignment binding ``name``."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError):
        return None
    # "import time" binds time; "from time import monotonic" only when no statement binds the name itself
    found = [n for n in tree.body if name in _binds(n)] or [n for n in tree.body if name in _binds(n, modules=True)]
    if len(found) != 1:
        return None  # none, or bound twice: which one is meant needs judgement
    node = found[0]
    kind = "import" if isinstance(node, ast.Import | ast.ImportFrom) else "assignment"
    return node.lineno, node.end_lineno or node.lineno, f"{kind} of {name}"


def derive_statement(rel: str, text: str, spec: ChangeSpec) -> Plan | None:
    """The mechanical plan that moves or deletes a named module-level statement (None: not one)."""
    if spec.action == "change" and spec.facts.cut_line and len(spec.targets) == 1:
        return _cut_line(rel, text, spec)
    names = spec.facts.statements
    if spec.action not in ("delete", "move") or spec.targets or not names:
        return None
    if spec.action == "move" and spec.anchor is not None and spec.anchor.symbol is not None:
        return _beside_def(rel, text, spec)
    first = statement(text, names[0])
    if first is None:
        return None
    a, b, label = first
    if spec.action == "delete":
        _, rep = cut(text, a, b)
        lines = text.splitlines()
        start = rep.start
        if rep.end == len(lines):  # the file's end: the blank lines before the cut go too
            while start > 1 and not lines[start - 2].strip():
                start -= 1
        step = Step(rel, start, rep.end, label, "asked to delete it", "mechanical", text="")
        return Plan("delete", spec.instruction, (step,), f"delete {label}: cut mechanically, no model request")
    where = statement(text, names[1]) if len(names) > 1 else None
    if where is None or not spec.facts.moves:
        return None
    y_start, y_end, y_label = where
    after = spec.anchor is None or spec.anchor.where in ("after", "below")
    at = y_end + 1 if after else y_start
    if a <= at <= b + 1:
        return None  # already there
    paste = Step(rel, at, at - 1, f"{'after' if after else 'before'} {y_label}", "move target", "mechanical",
                 text=line_span(text, a, b))
    cut_step = Step(rel, a, b, label, "moved away", "mechanical", text="")
    return Plan("move", spec.instruction, tuple(sorted((cut_step, paste), key=lambda s: (s.start, s.end))),
                f"move {label}: cut and pasted mechanically, no model request")



def _beside_def(rel: str, text: str, spec: ChangeSpec) -> Plan | None:
    """Named module-level assignments moved as one block right before (after) a def, their comments with them.

    "Move the regex cache globals (_cache_lock, _TimeRE_cache, _CACHE_MAX_SIZE, _regex_cache) down so they
    sit directly above def _strptime": each statement with the comment lines right above it; statements with
    only comments or blank lines between them travel as one span, interior comments included.
    """
    anchor = spec.anchor
    assert anchor is not None and anchor.symbol is not None
    found = [statement(text, name) for name in spec.facts.statements]
    if any(f is None for f in found):
        return None
    lines = text.splitlines()
    spans: list[list[int]] = []
    for a, b, _ in sorted(f for f in found if f is not None):
        while a > 1 and lines[a - 2].lstrip().startswith("#"):
            a -= 1
        if spans and all(not ln.strip() or ln.lstrip().startswith("#") for ln in lines[spans[-1][1]:a - 1]):
            spans[-1][1] = max(spans[-1][1], b)  # only comments or blank lines between: one span
        else:
            spans.append([a, b])
    sym = anchor.symbol
    before = anchor.where in ("before", "above")
    at = sym.start if before else sym.end + 1
    while before and at > 1 and lines[at - 2].lstrip().startswith("#"):
        at -= 1  # above the def's own comments
    if any(a <= at <= b + 1 for a, b in spans) or any(a <= sym.start <= b for a, b in spans):
        return None  # already there, or the def is among them
    block = "".join(line_span(text, a, b) for a, b in spans)
    paste = Step(rel, at, at - 1, f"{'before' if before else 'after'} {sym.qualname}", "move target", "mechanical",
                 text=block + "\n" if before else "\n" + block)
    label = ", ".join(spec.facts.statements)
    cuts = [Step(rel, a, b, f"assignments of {label}", "moved away", "mechanical", text="") for a, b in spans]
    return Plan("move", spec.instruction, tuple(sorted((*cuts, paste), key=lambda s: (s.start, s.end))),
                f"move the assignments of {label}: cut and pasted mechanically, no model request")


def _cut_line(rel: str, text: str, spec: ChangeSpec) -> Plan | None:
    """The one line of the target def that the delete spells, cut ("scan_code has code = co.co_code that's never
    used, delete it"): on the 2-core CPU the 1.5B, shown the method, cut another block (run 19)."""
    target, line = spec.targets[0], spec.facts.cut_line
    lines = text.splitlines()
    rows = [n for n in range(target.start, min(target.end, len(lines)) + 1) if lines[n - 1].strip() == line]
    if len(rows) != 1:
        return None  # spelled twice, or not in the def named: which one is meant needs judgement
    n = rows[0]
    step = Step(rel, n, n, f"line {n} of {target.qualname}", "the statement the instruction spells", "mechanical",
                symbol=target.qualname, text="")
    return Plan("delete", spec.instruction, (step,), f"delete `{line}` from {target.qualname}: cut mechanically, "
                "no model request")
