"""Docstrings for every method of a long class that has none: one region per such method, not the class.

"Add a docstring to every method of the class TopologicalSorter that has none" read as one region is a
215-line rewrite. On the H200 (run 8, Qwen2.5-Coder-1.5B) every wording came back, retry included, with two
of the four bare methods documented, ``prepare``'s condition inverted and ``__class_getitem__`` dropped: the
graft (:mod:`coder.edit.checks.graft`) rightly refuses a partial "every method", so all three were refused.
Asked for one def at a time, the same model wrote every docstring of the suite right (run 8: 30 of 30
single-def docstring pairs). A short class (up to :data:`WHOLE_CLASS_LINES`) stays one region: ``_netrclex``
(42 lines) came back right whole in every wording. With a server, the words are asked first as one short
question (:mod:`coder.edit.plan.docstrings_asked`); these regions are what goes on when they are not written.

Plain functions of text: nothing here reads files or talks to a server.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from coder.edit.plan.locate import region_of
from coder.edit.plan.steps import Plan, Step

if TYPE_CHECKING:
    from coder.edit.intent.spec import ChangeSpec
    from coder.edit.source.regions import Region

WHOLE_CLASS_LINES = 60  # a class this short is asked whole for its methods' docstrings


def bare_methods(text: str, qualname: str) -> list[str]:
    """The qualified names of the methods of class ``qualname`` (its own defs, not a nested class's) with no
    docstring, in order; empty when the class is not found."""
    try:
        body = ast.parse(text).body
    except (SyntaxError, ValueError, RecursionError):
        return []
    cls: ast.ClassDef | None = None
    for part in qualname.split("."):
        cls = next((n for n in body if isinstance(n, ast.ClassDef) and n.name == part), None)
        if cls is None:
            return []
        body = cls.body
    return [f"{qualname}.{n.name}" for n in body
            if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and ast.get_docstring(n) is None]


def derive_member_docstrings(rel: str, text: str, spec: ChangeSpec, symbols: dict[str, Region]) -> Plan | None:
    """The plan of "a docstring to every method of C" for a long class: each method of C without one (None: not
    that request, a short class, or no such method)."""
    if (spec.action != "docstring" or spec.allows != {"docstrings"} or not spec.facts.members
            or len(spec.targets) != 1 or spec.targets[0].rel != rel or spec.targets[0].kind != "class"):
        return None
    cls = region_of(symbols, spec.targets[0].qualname)
    if cls is None or cls[2] - cls[1] + 1 <= WHOLE_CLASS_LINES:
        return None
    steps = []
    for qual in bare_methods(text, cls[0]):
        found = region_of(symbols, qual)
        if found is None:
            return None  # a method bound twice: which region is meant needs the whole class
        _, start, end, label = found
        steps.append(Step(rel, start, end, label, "has no docstring", symbol=qual,
                          note=f"This region is {label}, one of the methods of {cls[3]} without a docstring: "
                               f"give it one, and copy every line of its code exactly."))
    if not steps:
        return None
    return Plan("docstrings", spec.instruction, tuple(steps),
                f"{cls[3]}: {len(steps)} method(s) without a docstring, one region each")


def undocumented(spliced: str, method: str) -> str | None:
    """Why a step of this plan is not done: ``method`` (qualified) still has no docstring in ``spliced`` (None: it
    has one). A reply that came back as it was would otherwise pass, and the class be left half documented."""
    owner = method.rpartition(".")[0]
    return f"{method} still has no docstring" if method in bare_methods(spliced, owner) else None
