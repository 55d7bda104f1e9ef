"""Moving a top-level def or class to another file mechanically, and importing it back in the source.

"Move f from a.py to the end of b.py, and import it in a.py as the last name of the ``from .b
import (...)`` list": the def is cut from the source (with its touching comments, as a same-file
move), pasted at the end of the destination or after/before one of its defs, and the source's
import of the destination gains the name as its last one (else one ``from ... import f`` line
follows the source's imports). One plan over both files, so one review and one commit, as a
cross-file rename.

Only when it is safe without judgement: every module-level name the def reads is a builtin or
bound at the destination's top level (:mod:`coder.edit.source.bindings`), the destination binds
no name of its own like it, and it does not import the source (the import back would be circular).
Otherwise :func:`move_across` says why, and the request is an ordinary one.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from coder.edit.plan.locate import region_of
from coder.edit.plan.steps import Plan, Step
from coder.edit.source.bindings import BUILTINS, free_names, import_target, module_names, names_module
from coder.edit.source.regions import python_symbols
from coder.edit.source.splice import block_bounds, line_span
from coder.edit.source.units import name_rows

if TYPE_CHECKING:
    from coder.edit.intent.spec import ChangeSpec

NOT_MECHANICAL = "not moved mechanically"


def destination_paths(home: str, written: str) -> list[str]:
    """The repository paths the instruction's ``written`` file may be: as written, then beside ``home``."""
    folder = home.replace("\\", "/").rpartition("/")[0]
    beside = f"{folder}/{written}" if folder and not written.startswith(folder + "/") else written
    return list(dict.fromkeys([written.lstrip("./"), beside]))


def _blank_above(lines: list[str], start: int) -> int:
    n = 0
    while start - 1 - n >= 1 and not lines[start - 2 - n].strip():
        n += 1
    return n


def _paste(dest: str, text: str, spec: ChangeSpec, body: str, gap: int) -> Step | str:
    """The insertion of ``body`` into the destination's ``text``, where the spec says; a reason when it cannot."""
    where = spec.dest
    assert where is not None  # callers check
    lines = text.splitlines()
    if where.name is None:
        trailing = _blank_above(lines, len(lines) + 1)
        head = ("" if not text or text.endswith("\n") else "\n") + "\n" * max(0, gap - trailing)
        return Step(dest, len(lines) + 1, len(lines), f"end of {dest}", "move target", "mechanical",
                    text=head + body)
    symbols = dict(python_symbols(text))
    found = region_of(symbols, where.name)
    if found is None or "." in found[0] or symbols[found[0]].within:
        return f"{NOT_MECHANICAL}: {dest} defines no top-level {where.name}"
    _, start, end, label = found
    if where.where == "after":
        return Step(dest, end + 1, end, f"after {label} in {dest}", "move target", "mechanical",
                    text="\n" * gap + body)
    start, _ = block_bounds(text, start, end)
    return Step(dest, start, start - 1, f"before {label} in {dest}", "move target", "mechanical",
                text=body + "\n" * gap)


def _module_for(source: str, dest: str, tree: ast.Module) -> str:
    """How ``source`` spells the module ``dest`` in a new import.

    Relative when ``source`` imports its neighbours so and ``dest`` is one; else dotted from the
    package root, taken as the first folder of ``dest`` that ``source``'s absolute imports start
    with (``src/pkg/b.py`` with ``from pkg.c import x`` is ``pkg.b``), else the repository's root.
    """
    src_dir = source.replace("\\", "/").rpartition("/")[0]
    parts = dest.replace("\\", "/").rsplit(".", 1)[0].split("/")
    if src_dir == "/".join(parts[:-1]) and any(isinstance(n, ast.ImportFrom) and n.level > 0 for n in tree.body):
        return f".{parts[-1]}"
    roots = {name.split(".")[0] for n in tree.body if isinstance(n, ast.Import | ast.ImportFrom)
             for name in ([a.name for a in n.names] if isinstance(n, ast.Import) else [n.module or ""] * (n.level == 0))
             if name}
    start = next((i for i, part in enumerate(parts[:-1]) if part in roots), 0)
    return ".".join(parts[start:])


def _appended(text: str, node: ast.ImportFrom, name: str) -> str:
    """The lines of the import ``node`` with ``name`` as its last name, written as the statement writes them."""
    lines = text.splitlines(keepends=True)[node.lineno - 1:node.end_lineno]
    last = node.names[-1]
    row, col = (last.end_lineno or node.lineno) - node.lineno, last.end_col_offset or 0
    line = lines[row]
    if (last.end_lineno or 0) == node.lineno and (last.lineno or 0) == node.lineno:  # one line: "a, b" -> "a, b, f"
        lines[row] = f"{line[:col]}, {name}{line[col:]}"
        return "".join(lines)
    indent = line[:len(line) - len(line.lstrip())]
    rest = line[col:]
    if rest.lstrip().startswith(",") and not rest.lstrip()[1:].strip(" \n").strip(")"):
        if rest.rstrip().endswith(")"):  # "    b,)": the name goes before the paren
            lines[row] = f"{line[:col]},\n{indent}{name},{rest.lstrip()[1:]}"
        else:  # a trailing comma on its own line ends: the name gets a line like it
            lines.insert(row + 1, f"{indent}{name},\n")
    else:
        lines[row] = f"{line[:col]},\n{indent}{name}{rest}"
    return "".join(lines)


def _import_back(source: str, text: str, dest: str, name: str, cut: tuple[int, int]) -> Step | str:
    """The source's import of ``name`` from ``dest``: its import of ``dest`` gains it, else a new line."""
    tree = ast.parse(text)
    imports = [n for n in tree.body if isinstance(n, ast.Import | ast.ImportFrom)]
    mine = [n for n in imports if isinstance(n, ast.ImportFrom)
            and any(names_module(p, dest) for p in import_target(source, n)) and all(a.name != "*" for a in n.names)]
    if mine:
        node = mine[-1]
        new = _appended(text, node, name)
        try:
            bound = [a.asname or a.name for n in ast.parse(new).body if isinstance(n, ast.ImportFrom) for a in n.names]
        except SyntaxError:
            bound = []
        if bound != [*(a.asname or a.name for a in node.names), name]:
            return f"{NOT_MECHANICAL}: the import of {dest} in {source} is written in a way coder does not extend"
        return Step(source, node.lineno, node.end_lineno or node.lineno, f"import of {dest} in {source}",
                    f"imports {name}", "mechanical", text=new)
    defs = [n for n in tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)]
    first_def = defs[0].lineno if defs else len(text.splitlines()) + 1
    leading = [n for n in imports if n.lineno < first_def]
    at = (leading[-1].end_lineno or leading[-1].lineno) + 1 if leading else 1
    if cut[0] < at <= cut[1]:
        at = cut[0]  # the cut starts right after the imports (blank lines it takes): the new line goes before it
    line = f"from {_module_for(source, dest, tree)} import {name}\n"
    return Step(source, at, at - 1, f"import of {name} in {source}", f"imports {name}", "mechanical", text=line)


def _unsafe(dest: str, dest_text: str, source: str, name: str, body: str) -> str:
    """Why the def ``body`` cannot move to ``dest`` without judgement ("" when it can)."""
    bound, star = module_names(dest_text)
    if name in bound:
        return f"{NOT_MECHANICAL}: {dest} already binds {name}"
    missing = sorted(free_names(body) - bound - BUILTINS - {name})
    if missing and not star:
        return f"{NOT_MECHANICAL}: {name} uses {', '.join(missing[:5])}, which {dest} does not define or import"
    if missing:
        return f"{NOT_MECHANICAL}: {name} uses {', '.join(missing[:5])}, and {dest} imports * (unknown names)"
    for node in ast.parse(dest_text).body:
        if isinstance(node, ast.Import | ast.ImportFrom) and any(names_module(p, source)
                                                                 for p in import_target(dest, node)):
            return f"{NOT_MECHANICAL}: {dest} imports {source}, so importing {name} back would be circular"
    return ""


def move_across(rel: str, text: str, spec: ChangeSpec, dest: str, dest_text: str) -> Plan | str:
    """The plan moving the spec's one def from ``rel`` to ``dest`` (repository paths); else why it is not one."""
    mine = [s for s in spec.targets if s.rel == rel]
    if spec.action != "move" or spec.dest is None or len(mine) != 1 or len(spec.targets) != 1:
        return f"{NOT_MECHANICAL}: one def of {rel} moves to another file mechanically, not several"
    try:
        symbols = dict(python_symbols(text))
        found = region_of(symbols, mine[0].qualname)
        python_symbols(dest_text)
    except (SyntaxError, ValueError, RecursionError):
        return f"{NOT_MECHANICAL}: {rel} or {dest} does not parse"
    if found is None or "." in found[0] or symbols[found[0]].within:
        return f"{NOT_MECHANICAL}: only a top-level function or class moves to another file mechanically"
    qual, start, end, label = found
    lines = text.splitlines()
    top = start  # the def with the comments touching it, as a same-file move takes it
    while top > 1 and lines[top - 2].lstrip().startswith("#"):
        top -= 1
    body = line_span(text, top, end)
    if why := _unsafe(dest, dest_text, rel, qual, body):
        return why
    paste = _paste(dest, dest_text, spec, body, max(1, _blank_above(lines, top)))
    if isinstance(paste, str):
        return paste
    a, b = block_bounds(text, start, end)  # with the blank lines after it (before it, at the file's end)
    steps = [Step(rel, a, b, label, f"moved to {dest}", "mechanical", text=""), paste]
    notes: tuple[str, ...] = ()
    if spec.dest.imports or name_rows(text, {qual}) - set(range(a, b + 1)):
        back = _import_back(rel, text, dest, qual, (a, b))
        if isinstance(back, str):
            return back
        steps.append(back)
        if not spec.dest.imports:  # not asked, but the source would use a name nothing binds
            notes = (f"{rel} still uses {qual}: it imports it from {dest}",)
    steps.sort(key=lambda s: (s.rel != rel, s.start, s.end))
    return Plan("move", spec.instruction, tuple(steps), f"move {label} to {dest}: cut and pasted mechanically, "
                "no model request", notes=notes, spec=spec)
