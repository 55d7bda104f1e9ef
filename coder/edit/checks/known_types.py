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

from coder.edit.checks.code_rules import bindings, module_bindings
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
    return _module_bad_reads(text) + _local_bad_reads(parsed(text), module_bindings(text))


# builtins whose result has one type whatever they are given: ``c = ord(c)`` makes c an int
_SURE_CALLS: dict[str, type] = {"ord": int, "len": int, "chr": str, "hex": str, "oct": str, "bin": str, "repr": str}


def _local_bad_reads(tree: ast.Module, bound: Counter[str]) -> Counter[tuple[str, str, str]]:
    """Reads of an attribute a local lacks, where the def's body (at its top level, so it runs once, before every
    later line) bound the local to a builtin's sure result and nothing binds it again.

    Seen applied on the 2-core CPU (Qwen2.5-Coder-1.5B, quopri's ``quote``): after ``c = ord(c)`` the retry wrote
    ``c = c.lower()``; c is an int there, and the call raises AttributeError.
    """
    out: Counter[tuple[str, str, str]] = Counter()
    for fn in (n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)):
        for i, stmt in enumerate(fn.body):
            if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)
                    and isinstance(call := stmt.value, ast.Call) and isinstance(call.func, ast.Name)
                    and (kind := _SURE_CALLS.get(call.func.id)) is not None and not bound.get(call.func.id)):
                continue
            if not _declared(fn, name := stmt.targets[0].id):
                out += _sure_reads(fn.body[i + 1:], name, kind)
    return out


def _sure_reads(later: list[ast.stmt], name: str, kind: type) -> Counter[tuple[str, str, str]]:
    """The reads of ``name.attr`` (``kind`` lacking ``attr``) in ``later`` that run while ``name`` is still ``kind``:
    statement by statement, up to and including the first that binds it again, where only the reads before that
    binding count (a statement with no loop runs in source order; an assignment binds after its value is read)."""
    out: Counter[tuple[str, str, str]] = Counter()
    for j, stmt in enumerate(later):
        binds = _binding_spots(stmt, name)
        loops = any(isinstance(n, ast.For | ast.AsyncFor | ast.While) for n in ast.walk(stmt))
        rebound_later = bool(bindings(ast.Module(body=later[j + 1:], type_ignores=[])).get(name))
        for node, nested in _attribute_reads(stmt, name):
            sure = not binds or (not loops and not nested and (node.lineno, node.col_offset) < min(binds))
            if sure and not (nested and (binds or rebound_later)) and not hasattr(kind, node.attr):
                out[(name, kind.__name__, node.attr)] += 1
        if binds:
            break
    return out


def _binding_spots(stmt: ast.stmt, name: str) -> list[tuple[int, int]]:
    """Where ``stmt`` binds ``name``, as the point in source order it takes effect (an assignment: its end)."""
    spots, assigned = [], set()
    for node in ast.walk(stmt):
        if isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            named = [t for tgt in targets for t in ast.walk(tgt) if isinstance(t, ast.Name) and t.id == name]
            assigned |= {id(t) for t in named}
            if named:
                spots.append((node.end_lineno or node.lineno, node.end_col_offset or 0))
        elif id(node) in assigned:
            continue
        elif (isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load) and node.id == name) \
                or (isinstance(node, ast.arg) and node.arg == name) \
                or (isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and node.name == name) \
                or (isinstance(node, ast.alias) and (node.asname or node.name.split(".")[0]) == name):
            spots.append((getattr(node, "lineno", 0), getattr(node, "col_offset", 0)))
    return spots


def _attribute_reads(stmt: ast.stmt, name: str) -> list[tuple[ast.Attribute, bool]]:
    """Each ``name.attr`` read in ``stmt``, and whether it sits in a nested def or lambda (it runs later)."""
    out: list[tuple[ast.Attribute, bool]] = []

    def visit(node: ast.AST, nested: bool) -> None:
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load) and isinstance(node.value, ast.Name) \
                and node.value.id == name:
            out.append((node, nested))
        inner = nested or isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
        for child in ast.iter_child_nodes(node):
            visit(child, inner)

    visit(stmt, False)
    return out


def _declared(fn: ast.FunctionDef | ast.AsyncFunctionDef, name: str) -> bool:
    """Whether ``name`` is bound in ``fn`` in a way :func:`bindings` does not count (global, nonlocal, except as)."""
    return any((isinstance(n, ast.Global | ast.Nonlocal) and name in n.names)
               or (isinstance(n, ast.ExceptHandler) and n.name == name) for n in ast.walk(fn))


@lru_cache(maxsize=16)  # the file as it is, asked again for each reply judged (a retry, a plan's steps)
def _module_bad_reads(text: str) -> Counter[tuple[str, str, str]]:
    """The reads :func:`_bad_reads` finds on module constants, their items, and a class's own attributes (shared:
    do not change it)."""
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
    types = {id(cls): _self_types(cls, makers, constants) for cls in classes}
    for cls in classes:
        out += _class_bad_reads(cls, classes, types)
    if not out:
        return out
    once = {name for name, n in module_bindings(text).items() if n == 1}  # a name bound again may hold anything then
    if constants.keys() - once:
        constants = {name: kind for name, kind in constants.items() if name in once}
        return Counter({key: n for key, n in out.items() if key[0].startswith("self.")
                        or _type(ast.parse(key[0], mode="eval").body, constants) is not None})
    return out


def _class_bad_reads(cls: ast.ClassDef, classes: list[ast.ClassDef],
                     types: dict[int, dict[str, type]]) -> Counter[tuple[str, str, str]]:
    """The reads of ``self.x.attr`` in ``cls``'s methods that ``x``'s type lacks, in ``cls`` or in a subclass."""
    out: Counter[tuple[str, str, str]] = Counter()
    own = types[id(cls)]
    subs = [c for c in classes if any(isinstance(b, ast.Name) and b.id == cls.name for b in c.bases)]
    for fn in (f for f in cls.body if isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef)):
        # a subclass that sets the attribute to another type, and does not override fn, runs fn on that value
        # (run 10, queue-method: Queue.clear calling self.queue.popleft(); LifoQueue's queue is a list)
        others = [(c.name, types[id(c)]) for c in subs if not any(
            isinstance(m, ast.FunctionDef | ast.AsyncFunctionDef) and m.name == fn.name for m in c.body)]
        for node in ast.walk(fn):
            if not (isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load)
                    and isinstance(v := node.value, ast.Attribute) and isinstance(v.value, ast.Name)
                    and v.value.id == "self"):
                continue
            if (kind := own.get(v.attr)) is not None and not hasattr(kind, node.attr):
                out[(f"self.{v.attr}", kind.__name__, node.attr)] += 1
                continue
            for name, theirs in others:
                if (kind := theirs.get(v.attr)) is not None and not hasattr(kind, node.attr):
                    out[(f"self.{v.attr}", f"{kind.__name__} in {name}", node.attr)] += 1
                    break
    return out


def missing_attributes(old: str, new: str) -> str | None:
    """Why ``new`` reads an attribute its value's known type does not have, where ``old`` did not (None: none)."""
    try:
        gained = _bad_reads(new) - _bad_reads(old)
    except (SyntaxError, ValueError, RecursionError):
        return None
    if not gained:
        return None
    # each attribute said once, two at most: run 10's queue-method reply read self.queue.empty() (a deque has no
    # empty) and self.queue.popleft() (PriorityQueue's queue is a list); told only the first, the retry kept popleft.
    # (HEX[c // 16].lower() and HEX[c % 16].lower() are one thing to say.)
    first = {attr: (expr, kind, attr) for expr, kind, attr in reversed(list(gained))}
    said = [_said(new, *key) for key in list(reversed(first.values()))[:2]]
    return "; and ".join(said)


def _said(new: str, expr: str, kind: str, attr: str) -> str:
    """What is wrong with reading ``expr.attr`` (``expr`` of type ``kind``), and what to write instead where known."""
    node = ast.parse(expr, mode="eval").body
    why, instead = "", ""
    if isinstance(node, ast.Subscript) and not isinstance(node.slice, ast.Slice):
        seq = ast.unparse(node.value)
        why = f" (an item of {seq})"
        whole = _whole_type(new, node.value)
        if whole is not None and hasattr(whole, attr):
            # seen on the H200 (run 9, quopri): told only that an item of HEX is an int, the 1.5B wrote HEX[i].upper()
            # again on the retry; what has the attribute is the whole value
            instead = (f"; {seq} itself is {_a(whole.__name__)} and has {attr}: call {seq}.{attr}() on the whole "
                       f"value (or on the {whole.__name__} built from its items), then take items")
    elif (idiom := _IDIOMS.get(attr.lower().replace("_", "").removeprefix("is"))) is not None:
        # run 10 on the H200, queue-method w1: `while not self.queue.empty()` on a deque, twice on the CPU's retry
        # when told only that a deque has no empty; the container's own idiom is what the code should say
        instead = f"; {idiom.format(expr)}"
    return (f"{expr} is {_a(kind)}{why}, which has no attribute {attr} (reading it raises AttributeError)"
            f"{instead}")


# what a reply asking a container for a method it lacks means, said as Python says it (by the attribute's
# name in lower case without underscores or a leading "is": empty, is_empty and isEmpty are one)
_IDIOMS = {
    # the CPU 1.5B, told "to test whether it is empty, write `not self.queue`", turned `while not
    # self.queue.empty():` into `while not self.queue:`, a loop that never runs: the negation is spelled out
    "empty": "{0} is true while it holds items: `not {0}` says it is empty and `while {0}:` loops until it is",
    "size": "its length is `len({0})`", "length": "its length is `len({0})`", "len": "its length is `len({0})`",
}


def _a(kind: str) -> str:
    """``an int``, ``a bytes``: the type's name with its article."""
    return f"{'an' if kind[0] in 'aeiou' else 'a'} {kind}"


def _whole_type(text: str, node: ast.expr) -> type | None:
    """The known type of the value an item is taken of (``HEX`` of ``HEX[i]``), as :func:`_bad_reads` knew it."""
    try:
        tree = parsed(text)
    except (SyntaxError, ValueError, RecursionError):
        return None
    once = {name for name, n in module_bindings(text).items() if n == 1}
    constants = {name: kind for name, kind in _constants(tree).items() if name in once}
    return _type(node, constants)
