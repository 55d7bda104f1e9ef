"""A new module-level function in a long file: one small region, the def it goes beside, not the whole file.

Before, "add a function f(x) that ..." in a file longer than a whole-file rewrite's limit went in windows: every
window was told to add f (fifth fresh set, run 19: stringprep's three windows, and a prompt plus reply past the
16k context on the CPU). The new function is one def; it needs to be written once, next to one def the model
keeps as it is: the def the instruction places it after or before, else the file's last top-level function
(before a ``__main__`` block). The checks hold the rest: a change to the def shown is a change the instruction
does not explain, and the new def must be there under its name. Only a function given an example call with its
value ("e.g. f(2024, 11, THURSDAY, 4) == 28") is planned so: the example is its oracle.
"""

from __future__ import annotations

import ast
import textwrap
from typing import TYPE_CHECKING

from coder.edit.plan.steps import WINDOW_MIN_LINES, Plan, Step
from coder.edit.source.units import first_line

if TYPE_CHECKING:
    from coder.edit.intent.spec import ChangeSpec

_GOES = "the new function goes"


def _main_block(node: ast.stmt) -> bool:
    return isinstance(node, ast.If) and "__name__" in ast.unparse(node.test) and "__main__" in ast.unparse(node.test)


def derive_add_function(rel: str, text: str, spec: ChangeSpec) -> Plan | None:
    """One region for a new top-level function in a long Python file; None where another plan (or none) fits."""
    # only where the function's own example judges it: on the CPU (run 20, calendar-function w1) a function asked
    # with no example came back plausible and wrong (0 for 28) and was applied, where the whole-file request before
    # had been refused; with its example (w0) the same wrong reply was refused
    if (spec.action != "add_function" or not spec.new_names or spec.targets or not spec.examples
            or not rel.endswith((".py", ".pyi"))
            or len(text.splitlines()) <= WINDOW_MIN_LINES):  # a shorter file: one whole-file rewrite, as before
        return None
    try:
        body = ast.parse(text).body
    except (SyntaxError, ValueError, RecursionError):
        return None
    funcs = [n for n in body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]
    anchor = spec.anchor
    where = "right after it"
    beside = None
    if anchor is not None and anchor.symbol is not None and anchor.where in ("after", "before", "below", "above"):
        beside = next((n for n in funcs if n.name == anchor.symbol.qualname), None)
        if beside is None:
            return None  # placed beside a class or a method: not one small def to show
        where = "right after it" if anchor.where in ("after", "below") else "right before it"
    elif anchor is not None:
        return None  # the file's top or end, after the imports: the placement is not a def's
    else:
        main = next((i for i, n in enumerate(body) if _main_block(n)), len(body))
        beside = next((n for n in reversed(body[:main]) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)),
                      None)
    if beside is None or beside.end_lineno is None:
        return None
    name = spec.new_names[0]
    start, end = first_line(beside), beside.end_lineno
    label = f"function {beside.name}"
    step = Step(rel, start, end, label, f"{_GOES} {where.removeprefix('right ')}", symbol=beside.name,
                note=f"The region shown is {label}: keep it exactly as it is and write the new function "
                     f"`def {name}(...)` {where}, at module level (not indented), with two blank lines between "
                     "the two defs.")
    return Plan("add_function", spec.instruction, (step,), f"a new function {name}: 1 region ({label}, kept)")


def inserted(original: str, step: Step, reply: str, name: str) -> tuple[str, str | None]:
    """(the region's new text: the def shown as it was, and the reply's new function ``name`` beside it, or "";
    why the reply cannot be used, or None). Whatever else the reply changed is dropped: nothing asked for it."""
    try:
        tree = ast.parse(textwrap.dedent(reply))
    except (SyntaxError, ValueError, RecursionError):
        return "", "the region reply does not parse on its own"
    lines = textwrap.dedent(reply).splitlines(keepends=True)
    new = next((n for n in tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and n.name == name), None)
    if new is None or new.end_lineno is None:
        return "", f"the reply has no module-level function {name}: write `def {name}(...)` beside the def shown"
    func = "".join(lines[first_line(new) - 1:new.end_lineno]).rstrip("\n") + "\n"
    kept = "".join(original.splitlines(keepends=True)[step.start - 1:step.end]).rstrip("\n") + "\n"
    return (func + "\n\n" + kept if step.why.endswith("before it") else kept + "\n\n" + func), None
