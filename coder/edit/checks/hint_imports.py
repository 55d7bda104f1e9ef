"""A type-hints edit whose annotations name ``typing`` or ``types`` names the file never imports: the import added
(``import types`` where an annotation spells ``types.FrameType``: ninth fresh set, run 23, bdb-hints w0 on the CPU).

Seen on the H200 (run 16, a set nobody had tuned for): asked to annotate every method of a class, the 1.5B wrote
``-> Any`` and ``-> CodeType`` and was refused, "the edited file uses names nothing defines". A region reply
cannot hold the import: it is outside the region. The names are the standard library's, and only annotations
use them, so the import line is what the hints need, and the scope guard already counts an added import line as
part of a hints edit. Only names of ``typing`` and ``types`` that nothing in the file
defines and that appear in annotations alone are imported; anything else stays undefined and is refused as before.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from coder.edit.source.trees import parsed

if TYPE_CHECKING:
    from coder.edit.intent.spec import ChangeSpec

# where each name an annotation may use comes from (typing's generic aliases over collections.abc's: the 1.5B
# writes ``List[str]`` and ``Optional[int]``)
_HOMES = {
    "typing": frozenset({
        "Any", "AnyStr", "Callable", "ClassVar", "Dict", "DefaultDict", "Deque", "Final", "FrozenSet", "Generator",
        "IO", "Iterable", "Iterator", "List", "Literal", "Mapping", "MutableMapping", "MutableSequence", "NoReturn",
        "Optional", "Pattern", "Match", "Sequence", "Set", "TextIO", "BinaryIO", "Tuple", "Type", "Union",
        "Hashable", "Sized", "Collection", "Container", "Awaitable", "Coroutine", "AsyncIterator", "AsyncIterable",
        "NamedTuple", "Protocol", "TypeVar"}),
    "types": frozenset({
        "CodeType", "ModuleType", "FunctionType", "MethodType", "TracebackType", "FrameType", "SimpleNamespace",
        "GeneratorType", "BuiltinFunctionType", "MappingProxyType"}),
}


def hints_imported(old: str, new: str, spec: ChangeSpec | None) -> str:
    """``new`` with ``from typing import ...`` / ``from types import ...`` for the names its annotations gained and
    nothing defines; ``new`` itself when the spec asks no hints or any other name is undefined."""
    if spec is None or spec.action != "type_hints":
        return new
    from coder.edit.checks.result import gained_undefined

    gained = {name for name, _ in gained_undefined(old, new)}
    homes = {name: home for home, names in _HOMES.items() for name in names}
    if not gained or not gained <= homes.keys() | _HOMES.keys():  # `types.FrameType`: the module itself
        return new
    try:
        tree = parsed(new)
    except (SyntaxError, ValueError, RecursionError):
        return new
    inside = _annotation_nodes(tree)
    if any(isinstance(n, ast.Name) and n.id in gained and id(n) not in inside for n in ast.walk(tree)):
        return new  # a name used as a value too: not the hints' import to add
    lines = new.splitlines(keepends=True)
    at = _after_imports(tree)
    added = [f"import {n}\n" for n in sorted(gained & _HOMES.keys())]
    added += [f"from {home} import {', '.join(sorted(n for n in gained if homes.get(n) == home))}\n"
              for home in sorted({homes[n] for n in gained if n in homes})]
    return "".join(lines[:at] + added + lines[at:])


def _annotation_nodes(tree: ast.Module) -> set[int]:
    """The ids of every node inside an annotation (parameters, returns, annotated assignments)."""
    notes: list[ast.expr] = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            a = node.args
            notes += [p.annotation for p in [*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg]
                      if p is not None and p.annotation is not None]
            notes += [node.returns] if node.returns is not None else []
        elif isinstance(node, ast.AnnAssign):
            notes.append(node.annotation)
    return {id(n) for note in notes for n in ast.walk(note)}


def _after_imports(tree: ast.Module) -> int:
    """The line index (0-based) after the module's opening docstring and imports, where an import goes."""
    end = 0
    for i, node in enumerate(tree.body):
        docstring = i == 0 and isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
        if not (docstring or isinstance(node, (ast.Import, ast.ImportFrom))):
            break
        end = node.end_lineno or node.lineno
    return end
