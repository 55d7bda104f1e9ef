"""An extracted function written inside the class as a broken method: coder lifts it to the module.

Seen on the eighth fresh set's first run (H100, run 22): asked to pull a loop of ``Profile.snapshot_stats`` out
"into a top-level function _total_calls(callers) (not a method)" and "into module function _total_calls(callers)",
the 1.5B, sent the method's lines, wrote ``def _total_calls(callers):`` indented inside the class and called it as
``self._total_calls(callers)``. That call binds ``self`` to ``callers``, so the program is broken, and it was refused
in both wordings. The function itself was right, and where it belongs is mechanical:

* the extraction's new function F (the spec's ``extract_into``) is new in the file, a plain ``def`` in a top-level
  class, with no decorator, a first parameter that is not ``self`` or ``cls`` (or none), and no ``self`` or ``cls``
  in its body: a method it cannot be;
* every use of F in the file is a call ``self.F(...)`` inside that class.

Then F's lines go to the module, dedented, right above the class, and each ``self.F(`` becomes ``F(``. Nothing else
of the file moves. The result then goes through every check as any reply does; a file where any condition fails is
left as it came.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from coder.edit.checks.code_rules import extraction
from coder.edit.source.trees import if_parses, parsed

if TYPE_CHECKING:
    from coder.edit.intent.spec import ChangeSpec

_BOUND = frozenset({"self", "cls"})


def hoisted(old: str, new: str, spec: ChangeSpec) -> str:
    """``new`` with the extraction's new function lifted out of the class it was wrongly written in (see above),
    or ``new`` as it came."""
    target, _ = extraction(spec)
    if target is None:
        return new
    try:
        before, tree = parsed(old), parsed(new)
    except (SyntaxError, ValueError, RecursionError):
        return new
    if any(isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and n.name == target for n in ast.walk(before)):
        return new  # not new: a method of that name was there before
    found = _misplaced(tree, target)
    if found is None:
        return new
    owner, fn, uses = found
    lines = new.splitlines(keepends=True)
    for node in sorted(uses, key=lambda n: (n.lineno, n.col_offset), reverse=True):
        row = lines[node.lineno - 1]
        head, tail = row[:node.col_offset], row[node.end_col_offset or 0:]
        if row.encode() != row.encode("ascii", "ignore") or not tail.startswith("("):
            return new  # columns are bytes: only plain ASCII lines are edited here
        lines[node.lineno - 1] = head + target + tail
    start, end, indent = fn.lineno, fn.end_lineno or fn.lineno, fn.col_offset
    body = lines[start - 1:end]
    if any(line.strip() and not line.startswith(" " * indent) for line in body):
        return new
    moved = [line[indent:] if line.strip() else line for line in body]
    del lines[start - 1:end]
    if start - 1 < len(lines) and not lines[start - 1].strip() and start >= 2 and not lines[start - 2].strip():
        del lines[start - 1]  # the blank line that followed it, where one before it stays
    top = min([owner.lineno, *(d.lineno for d in owner.decorator_list)])
    lines[top - 1:top - 1] = [*moved, "\n", "\n"]
    return if_parses("".join(lines), new)


def _misplaced(tree: ast.Module, target: str) -> tuple[ast.ClassDef, ast.FunctionDef, list[ast.Attribute]] | None:
    """The class, the new function written in it, and the ``self.F`` of its calls, when F cannot be a method."""
    for owner in (n for n in tree.body if isinstance(n, ast.ClassDef)):
        fn = next((n for n in owner.body if isinstance(n, ast.FunctionDef) and n.name == target), None)
        if fn is None:
            continue
        first = [*fn.args.posonlyargs, *fn.args.args][:1]
        if fn.decorator_list or (first and first[0].arg in _BOUND) or any(
                isinstance(n, ast.Name) and n.id in _BOUND for n in ast.walk(fn)):
            return None
        uses = [n for n in ast.walk(tree) if isinstance(n, ast.Attribute) and n.attr == target]
        bare = [n for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id == target]
        inside = {id(n) for n in ast.walk(owner)}
        calls = {id(n.func) for n in ast.walk(owner) if isinstance(n, ast.Call)}
        if bare or not uses or not all(
                id(u) in inside and id(u) in calls and isinstance(u.value, ast.Name) and u.value.id == "self"
                and u.lineno == u.end_lineno for u in uses):
            return None
        return owner, fn, uses
    return None
