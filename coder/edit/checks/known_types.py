"""An attribute read on a value whose type the code fixes, and which that type does not have.

Seen applied on the H200 (Qwen2.5-Coder-1.5B): asked for lowercase hex digits in quopri's ``quote``,
the model wrote ``HEX[c%16].lower()``. ``HEX`` is the module constant ``b'0123456789ABCDEF'``, and an
item of a bytes object is an int, which has no ``lower``: every call raises AttributeError. Pyflakes
sees nothing (the names are all defined), and the file parses.

A type is known only where the code leaves no doubt: a literal (``'x'``, ``b''``, ``3``, ``[...]``,
an f-string), a module-level name bound once in the whole module to such a literal, and an item or
slice of a known ``str``, ``bytes`` or ``bytearray``; in a class's own methods, ``self.x`` that the class
sets once, to such a value or to a new builtin or ``collections`` container (``deque()``, ``dict()``).
Only reads the edit adds are judged.

Seen applied on the H200: asked for ``Queue.clear``, the model wrote ``while not self.queue.empty()``;
``Queue._init`` sets ``self.queue = deque()``, and a deque has no ``empty``.
"""

from __future__ import annotations

import ast
import builtins
import collections
from collections import Counter
from functools import lru_cache

from coder.edit.checks.code_rules import module_bindings
from coder.edit.source.trees import every_node, parsed

_LITERAL: dict[type[ast.AST], type] = {
    ast.JoinedStr: str, ast.List: list, ast.ListComp: list, ast.Tuple: tuple, ast.Dict: dict,
    ast.DictComp: dict, ast.Set: set, ast.SetComp: set,
}
_SEQUENCES = (str, bytes, bytearray)


def _constants(tree: ast.Module) -> dict[str, type]:
    """Module-level names assigned a literal (the caller keeps those bound only once in the module): their type."""
    out: dict[str, type] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            kind = _type(node.value, {})
            if kind is not None:
                out[node.targets[0].id] = kind
    return out


def _type(node: ast.expr, constants: dict[str, type]) -> type | None:
    """The type ``node`` surely evaluates to (None: not known)."""
    if isinstance(node, ast.Constant):
        return type(node.value)
    if type(node) in _LITERAL:
        return _LITERAL[type(node)]
    if isinstance(node, ast.Name):
        return constants.get(node.id)
    if isinstance(node, ast.Subscript):
        seq = _type(node.value, constants)
        if seq in _SEQUENCES:
            if isinstance(node.slice, ast.Slice):
                return seq
            return str if seq is str else int
    return None


_CONTAINERS = {"list", "dict", "set", "tuple", "bytearray", "frozenset", "deque", "OrderedDict", "defaultdict",
               "Counter"}


def _makers(module: ast.Module, bound: Counter[str]) -> dict[str, type]:
    """The container makers a bare name surely calls in ``module``: ``deque`` imported from ``collections`` (and
    bound by nothing else: ``bound``, the module's bindings), ``dict`` and the other builtins the module does not
    bind itself. Read once a file."""
    imported = {a.asname or a.name for n in module.body if isinstance(n, ast.ImportFrom)
                and n.module == "collections" for a in n.names}
    out: dict[str, type] = {}
    for name in _CONTAINERS:
        kind = getattr(collections, name, None) if name in imported else getattr(builtins, name, None)
        if isinstance(kind, type) and bound.get(name, 0) == (1 if name in imported else 0):
            out[name] = kind
    return out


def _made(node: ast.expr, makers: dict[str, type]) -> type | None:
    """The type of ``deque()``, ``collections.OrderedDict()``, ``dict()``: a new container whose maker is sure."""
    if not isinstance(node, ast.Call):
        return None
    f = node.func
    if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == "collections":
        kind = getattr(collections, f.attr, None)
        return kind if f.attr in _CONTAINERS and isinstance(kind, type) else None
    return makers.get(f.id) if isinstance(f, ast.Name) else None


def _self_types(cls: ast.ClassDef, makers: dict[str, type], constants: dict[str, type]) -> dict[str, type]:
    """``self.x`` the class's own methods set exactly once, to a value of a sure type: that type."""
    sets: Counter[str] = Counter()
    kinds: dict[str, type | None] = {}
    for fn in cls.body:
        if not isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        for node in ast.walk(fn):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
                node, ast.AugAssign | ast.AnnAssign) else []
            for t in targets:
                if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self":
                    sets[t.attr] += 1
                    value = node.value if isinstance(node, ast.Assign) and len(node.targets) == 1 else None
                    kinds[t.attr] = (_type(value, constants) or _made(value, makers)) if value is not None else None
    return {name: kind for name, kind in kinds.items() if sets[name] == 1 and kind is not None}


@lru_cache(maxsize=16)  # the file as it is, asked again for each reply judged (a retry, a plan's steps)
def _bad_reads(text: str) -> Counter[tuple[str, str, str]]:
    """``(expression, its type, attribute)`` for each read of an attribute its known type lacks (shared: do not
    change it)."""
    tree = parsed(text)
    every = every_node(text)
    constants = _constants(tree)
    out: Counter[tuple[str, str, str]] = Counter()
    for node in every:
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
            kind = _type(node.value, constants)
            if kind is not None and not hasattr(kind, node.attr):
                out[(ast.unparse(node.value), kind.__name__, node.attr)] += 1
    classes = [n for n in every if isinstance(n, ast.ClassDef)]
    makers = _makers(tree, module_bindings(text)) if classes else {}
    for cls in classes:
        own = _self_types(cls, makers, constants)
        for fn in (f for f in cls.body if isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef)):
            for node in ast.walk(fn):
                if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load) \
                        and isinstance(v := node.value, ast.Attribute) and isinstance(v.value, ast.Name) \
                        and v.value.id == "self" and (kind := own.get(v.attr)) is not None \
                        and not hasattr(kind, node.attr):
                    out[(f"self.{v.attr}", kind.__name__, node.attr)] += 1
    if not out:
        return out
    once = {name for name, n in module_bindings(text).items() if n == 1}  # a name bound again may hold anything then
    if constants.keys() - once:
        constants = {name: kind for name, kind in constants.items() if name in once}
        return Counter({key: n for key, n in out.items() if key[0].startswith("self.")
                        or _type(ast.parse(key[0], mode="eval").body, constants) is not None})
    return out


def missing_attributes(old: str, new: str) -> str | None:
    """Why ``new`` reads an attribute its value's known type does not have, where ``old`` did not (None: none)."""
    try:
        gained = _bad_reads(new) - _bad_reads(old)
    except (SyntaxError, ValueError, RecursionError):
        return None
    if not gained:
        return None
    expr, kind, attr = next(iter(gained))
    node = ast.parse(expr, mode="eval").body
    why = ""
    if isinstance(node, ast.Subscript) and not isinstance(node.slice, ast.Slice):
        why = f" (an item of {ast.unparse(node.value)})"
    article = "an" if kind[0] in "aeiou" else "a"
    return f"{expr} is {article} {kind}{why}, which has no attribute {attr} (reading it raises AttributeError)"
