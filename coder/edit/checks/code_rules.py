"""Exact rules on a proposal's new code, beyond parsing: what a small model gets wrong and pyflakes misses.

* A new or changed method reads ``self.NAME`` where nothing ever sets NAME: the class does not
  assign it on ``self`` in any method, has no member of that name, and inherits nothing unknown
  (a base class defined in another file, a metaclass, or dynamic attributes end the check: the
  name may come from there). Calling the method raises AttributeError. Only reads the method
  did not already make are judged, so a class that already relies on a subclass is not blamed.
* An instruction to extract code into a new function F: F must be defined and called from each
  function the instruction names (or, when it names none that exists, from somewhere outside
  F). A defined but uncalled F leaves the old code where it was, which is not the extraction.
  With a change spec it is read from the spec (``extract``, ``new_names``, ``targets``), in any wording.
* A call to a function or method of the same file whose arguments no longer bind to its
  parameters (too many, a missing one, an unknown keyword): it raises TypeError. Only names that
  surely mean that def are judged (bound once, undecorated; ``self.m`` of the class's own method),
  and only mismatches the file did not have before.
* A new or changed method reads an attribute of one of its class's methods (``self.__init__.maxother``,
  seen on the H200 in a "reset to the defaults" method): a method object has only a function's
  attributes, so the read raises AttributeError, unless the module sets that attribute somewhere.
"""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Iterable
from functools import lru_cache
from typing import TYPE_CHECKING

from coder.edit.checks.call_fit import constructor_problems, instance_call_problems, mismatch
from coder.edit.source.attrs import FUNC as _FUNC
from coder.edit.source.attrs import attributes_set, listed, sets_own_attributes
from coder.edit.source.attrs import self_attrs as _self_attrs
from coder.edit.source.attrs import self_name as _self_name
from coder.edit.source.trees import every_node, parsed, same_node

if TYPE_CHECKING:
    from coder.edit.intent.spec import ChangeSpec

# what ``object`` gives every instance: ``self.__class__`` is always there
_OBJECT = frozenset(dir(object))
# a class that computes its attributes: nothing can be said about a name it does not set
_DYNAMIC = frozenset({"__getattr__", "__getattribute__", "__slots__"})


class _Probe:
    def method(self) -> None:
        """A method, to ask what attributes a method object has."""


# what a bound method has: its own attributes and, passed through, its function's
_METHOD_ATTRS = frozenset(dir(_Probe().method)) | frozenset(dir(_Probe.method))


def _classes(tree: ast.Module) -> dict[str, ast.ClassDef]:
    """Every class of the module by dotted name (nested classes too)."""
    out: dict[str, ast.ClassDef] = {}

    def visit(body: list[ast.stmt], prefix: str) -> None:
        for node in body:
            if isinstance(node, ast.ClassDef):
                out[prefix + node.name] = node
                visit(node.body, f"{prefix}{node.name}.")

    visit(tree.body, "")
    return out


def _known(cls: ast.ClassDef, classes: dict[str, ast.ClassDef], seen: set[str]) -> set[str] | None:
    """The names an instance of ``cls`` has for sure; None when it may have others (unknown inheritance)."""
    if cls.keywords or (cls.decorator_list and any(not isinstance(d, ast.Name) for d in cls.decorator_list)):
        return None  # a metaclass or a configured decorator may add anything
    names: set[str] = set()
    for base in cls.bases:
        key = ast.unparse(base)
        if key == "object":
            continue
        parent = classes.get(key)
        if parent is None or key in seen:
            return None
        inherited = _known(parent, classes, seen | {key})
        if inherited is None:
            return None
        names |= inherited
    for node in cls.body:
        if isinstance(node, (*_FUNC, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names |= {t.id for target in targets for t in ast.walk(target) if isinstance(t, ast.Name)}
        if isinstance(node, _FUNC):
            names |= _self_attrs(node, store=True)
    # run 19: a new method's invented self.find_missing was applied while another object's setattr excused the class
    if names & _DYNAMIC or sets_own_attributes(cls):
        return None
    return names


def unset_self_reads(old: str, new: str) -> str | None:
    """Why ``new`` has a new or changed method reading an attribute its class never sets (None: it has none)."""
    try:
        before, after = _classes(parsed(old)), _classes(parsed(new))
    except (SyntaxError, ValueError, RecursionError):
        return None
    for qual, cls in after.items():
        was = {n.name: n for n in before[qual].body if isinstance(n, _FUNC)} if qual in before else {}
        # what the class read before, in any method: a mixin's attributes its users set ("ParserBase reads
        # self.rawdata"), read again by a method renamed or lines extracted into a new one (tenth fresh set, run 24)
        had = {r for m in was.values() for r in _reads(m, cls.name)}
        known: set[str] | None = None
        looked = False
        for method in (n for n in cls.body if isinstance(n, _FUNC)):
            old_method = was.get(method.name)
            if old_method is not None and same_node(old_method, method):
                continue
            reads = _reads(method, cls.name) - had
            if not reads:
                continue
            if not looked:
                known, looked = _known(cls, after, {qual}), True
            if known is None:
                break
            if missing := sorted(reads - {(who, a) for a in known for who in ("self", cls.name)}):
                return (f"{qual}.{method.name} reads {'.'.join(missing[0])}, which {qual} never sets "
                        f"(calling it raises AttributeError){_what_it_sets(cls)}")
    return None


def _reads(method: ast.FunctionDef | ast.AsyncFunctionDef, cls: str) -> set[tuple[str, str]]:
    """("self", a) for each ``self.a`` the method reads, and (C, a) for each ``C.a`` of its own class ``C``: the 1.5B
    wrote ``self.__flags & Symbol.CELL_FLAG`` in a new method of symtable's Symbol, which has no such constant
    (2-core CPU, run 18)."""
    own = {(cls, n.attr) for n in ast.walk(method) if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)
           and n.value.id == cls and isinstance(n.ctx, ast.Load)}
    return {("self", a) for a in _self_attrs(method, store=False) - _OBJECT} | own


def _what_it_sets(cls: ast.ClassDef) -> str:
    """``; it sets self.a, self.b`` for the reason, so a retried request names the attributes there are.

    Seen on the 2-core CPU: the 1.5B, shown only the end of TopologicalSorter for a new method, read
    ``self.nodes`` twice; the class keeps its graph in ``self._node2info``, set in ``__init__``.
    """
    sets = attributes_set(cls)
    return f"; it sets {listed(sets)}" if sets else ""


def _method_attribute_reads(method: ast.FunctionDef | ast.AsyncFunctionDef, methods: set[str]) -> list[str]:
    """``self.m.X`` reads in ``method`` where ``m`` is one of ``methods`` and X no method object has."""
    me = _self_name(method)
    if me is None:
        return []
    return [f"{me}.{n.value.attr}.{n.attr}" for n in ast.walk(method)
            if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Load) and isinstance(n.value, ast.Attribute)
            and isinstance(n.value.value, ast.Name) and n.value.value.id == me and n.value.attr in methods
            and n.attr not in _METHOD_ATTRS]


def method_attribute_reads(old: str, new: str) -> str | None:
    """Why a new or changed method of ``new`` reads an attribute of a method object that has none such."""
    try:
        before, tree = _classes(parsed(old)), parsed(new)
    except (SyntaxError, ValueError, RecursionError):
        return None
    after = _classes(tree)
    for qual, cls in after.items():
        # plain methods only (a property's value is not a method)
        plain = {n.name for n in cls.body if isinstance(n, _FUNC) and all(
            isinstance(d, ast.Name) and d.id in ("staticmethod", "classmethod") for d in n.decorator_list)}
        was = {n.name: n for n in before[qual].body if isinstance(n, _FUNC)} if qual in before else {}
        for method in (n for n in cls.body if isinstance(n, _FUNC)):
            if method.name in was and same_node(was[method.name], method):
                continue  # the same code reads the same: none of its reads is new
            reads = _method_attribute_reads(method, plain)
            for old_read in _method_attribute_reads(was[method.name], plain) if reads and method.name in was else []:
                if old_read in reads:
                    reads.remove(old_read)
            if reads and (why := _no_such_method_attribute(tree, cls, after, qual, f"{qual}.{method.name}", reads)):
                return why
    return None


def _no_such_method_attribute(tree: ast.Module, cls: ast.ClassDef, classes: dict[str, ast.ClassDef], qual: str,
                              where: str, reads: list[str]) -> str | None:
    """Why one of ``reads`` (``self.m.X``) of the method ``where`` fails (None: each may work)."""
    if _known(cls, classes, {qual}) is None:
        return None  # a base from elsewhere or dynamic attributes: ``m`` may be anything there
    hidden = _known_setters(cls)  # a method name an instance attribute hides is not that method
    # attributes set on a function somewhere (``C.m.X = ...``, ``m.X = ...``): by function name and attribute
    stored = {(n.value.attr if isinstance(n.value, ast.Attribute) else getattr(n.value, "id", ""), n.attr)
              for n in ast.walk(tree) if isinstance(n, ast.Attribute) and not isinstance(n.ctx, ast.Load)}
    for read in reads:
        _, name, attr = read.split(".")
        if name not in hidden and (name, attr) not in stored:
            return (f"{where} reads {read}, but {read.rsplit('.', 1)[0]} is a method, "
                    f"which has no attribute {attr} (reading it raises AttributeError)")
    return None


def functions(tree: ast.Module) -> dict[str, ast.FunctionDef | ast.AsyncFunctionDef]:
    """Every function and method by its own name and by ``Class.name`` (the last one wins)."""
    out: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = {}
    for node in tree.body:
        if isinstance(node, _FUNC):
            out[node.name] = node
        elif isinstance(node, ast.ClassDef):
            for member in node.body:
                if isinstance(member, _FUNC):
                    out.setdefault(member.name, member)
                    out[f"{node.name}.{member.name}"] = member
    return out


def calls(node: ast.AST, name: str) -> bool:
    """True when ``node`` calls ``name`` (as a plain name or as an attribute, ``self.name``)."""
    return any(isinstance(n, ast.Call) and ((isinstance(n.func, ast.Name) and n.func.id == name)
                                            or (isinstance(n.func, ast.Attribute) and n.func.attr == name))
               for n in ast.walk(node))


def extraction(spec: ChangeSpec) -> tuple[str | None, list[str]]:
    """The new function an extraction asks for (None: none is asked) and the names it spells, callers among them."""
    # the grammar's "into a new function X", else an extract action's first new name ("pull ... out into a helper X")
    target = spec.facts.extract_into or (spec.new_names[0] if spec.action == "extract" and spec.new_names else None)
    spelled = [t.name for t in spec.targets] + [w.rsplit(".", 1)[-1] for w in spec.facts.ticked]
    return target, spelled


def extracted_uncalled(old: str, new: str, spec: ChangeSpec) -> str | None:
    """Why ``new`` does not do the extraction ``spec`` asks for (None: it does, or none is asked)."""
    target, spelled = extraction(spec)
    if target is None:
        return None
    try:
        tree = parsed(new)
        before, after = functions(parsed(old)), functions(tree)
    except (SyntaxError, ValueError, RecursionError):
        return None
    if target in before:
        return None  # not a new function: "move the code into `f`" where f exists is another request
    defined = after.get(target)
    if defined is None:
        return f"the new function {target} is not defined"
    # applied on the H200 after a retry: rgb_to_hsv deleted, its body put into rgb_to_hls, which called _hue
    if gone := [n for n in dict.fromkeys(spelled) if n != target and n in before and n not in after]:
        return f"the edit removes {gone[0]}, which should call the new function {target}"
    named = [n for n in dict.fromkeys(spelled) if n != target and n in before and n in after]
    for name in named:
        if not calls(after[name], target):
            shown = next((f" ({other} calls it: `{call}`)" for other in named if other != name
                          for call in [_call_statement(after[other], target)] if call), "")
            return f"{name} does not call the new function {target}{shown}"
    if not named:
        inside = {id(n) for n in ast.walk(defined)}
        outside = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and id(n) not in inside]
        if not any(calls(call, target) for call in outside):
            return f"the new function {target} is never called"
    return None


def extraction_undefined(new: str, spec: ChangeSpec, gained: list[tuple[str, int]]) -> str | None:
    """Why names ``new`` gained undefined (``gained``: name, line) make the extraction ``spec`` asks undone: the new
    function is called but never written, or it reads names it never sets (the lines setting them left in the
    callers, seen on the H200: ``_hue`` reading rc, gc and bc); None when neither is the case."""
    target, _ = extraction(spec)
    try:
        fn = functions(parsed(new)).get(target or "")
    except (SyntaxError, ValueError, RecursionError):
        return None
    if target is None or (fn is None and target not in {n for n, _ in gained}):
        return None
    if fn is None:
        return f"the new function {target} is not defined"
    if all(fn.lineno <= row <= (fn.end_lineno or fn.lineno) for _, row in gained):
        names = ", ".join(sorted({n for n, _ in gained}))
        return f"the new function {target} reads {names}, which it never sets"
    return None


def _call_statement(fn: ast.FunctionDef | ast.AsyncFunctionDef, target: str) -> str | None:
    """A one-line statement of ``fn`` that is a call of ``target`` or an assignment of one (None: none is).

    Said with a caller that does not call the new function: a retry that reads how another caller calls it
    (spliced there by coder, :mod:`~coder.edit.checks.extract_splice`) has the line to write."""
    for node in ast.walk(fn):
        if isinstance(node, ast.Expr | ast.Assign) and isinstance(node.value, ast.Call) \
                and isinstance(node.value.func, ast.Name) and node.value.func.id == target \
                and (text := ast.unparse(node)).count("\n") == 0:
            return text
    return None


def bindings(tree: ast.Module) -> Counter[str]:
    """How often each name is bound in the module: assigned, a parameter, a def or class, an import.

    Counted in one walk: asking per def (a walk each) cost a 2,600-line module 0.7 s.
    """
    return _count_bindings(ast.walk(tree))


@lru_cache(maxsize=16)  # the arity and attribute-type rules both ask it of each text they judge
def module_bindings(text: str) -> Counter[str]:
    """:func:`bindings` of the shared tree of ``text`` (shared: do not change it)."""
    return _count_bindings(every_node(text))


def _count_bindings(nodes: Iterable[ast.AST]) -> Counter[str]:
    out: Counter[str] = Counter()
    for node in nodes:
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            out[node.id] += 1
        elif isinstance(node, ast.arg):
            out[node.arg] += 1
        elif isinstance(node, (*_FUNC, ast.ClassDef)):
            out[node.name] += 1
        elif isinstance(node, ast.alias):
            out[node.asname or node.name.split(".")[0]] += 1
    return out


@lru_cache(maxsize=16)  # the file as it is, asked again for each reply judged (a retry, a plan's steps)
def _arity_problems(source: str) -> Counter[str]:
    """Each call to a function or method of this file whose arguments cannot bind to its signature (shared:
    do not change it)."""
    tree = parsed(source)
    every = every_node(source)
    out: Counter[str] = Counter()
    bound = module_bindings(source)  # a def's own name is one binding: any other means it may not be that def
    top = {n.name: n for n in tree.body if isinstance(n, _FUNC) and not n.decorator_list and bound[n.name] == 1}
    for node in every:
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in top):
            continue
        if (why := mismatch(top[node.func.id], node, bound=False)) is not None:
            out[f"{node.func.id} {why}"] += 1
    out += constructor_problems(tree, every, bound)
    classes = [n for n in every if isinstance(n, ast.ClassDef)]
    # how many classes define each method name: another one (a subclass here) may override it
    owners = Counter(name for c in classes for name in {n.name for n in c.body if isinstance(n, _FUNC)})
    for cls in classes:
        methods = {n.name: n for n in cls.body if isinstance(n, _FUNC)}
        assigned = _known_setters(cls)  # a method name assigned over on self is not that method
        for method in methods.values():
            me = _self_name(method)
            if me is None:
                continue
            for call in (n for n in ast.walk(method) if isinstance(n, ast.Call)):
                f = call.func
                if not (isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == me):
                    continue
                callee = methods.get(f.attr)
                if callee is None or owners[f.attr] > 1 or f.attr in assigned:
                    continue
                kinds = {d.id for d in callee.decorator_list if isinstance(d, ast.Name)}
                if len(kinds) != len(callee.decorator_list) or kinds - {"staticmethod", "classmethod"}:
                    continue  # a property or a wrapping decorator: the signature is not the def's
                if (why := mismatch(callee, call, bound="staticmethod" not in kinds)) is not None:
                    out[f"{cls.name}.{f.attr} {why}"] += 1
    return out + instance_call_problems(tree, bound)


def _known_setters(cls: ast.ClassDef) -> set[str]:
    """The attributes any method of ``cls`` sets on self."""
    return set(attributes_set(cls))


def broken_calls(old: str, new: str) -> str | None:
    """Why ``new`` has a call that no longer fits its callee's signature in the same file (None: none new)."""
    try:
        before, after = _arity_problems(old), _arity_problems(new)
    except (SyntaxError, ValueError, RecursionError):
        return None
    gained = after - before
    if not gained:
        return None
    first = next(iter(gained))
    return f"a call no longer fits its definition: {first} (it raises TypeError)"
