"""Two exact rules on a proposal's new code, beyond parsing: what a small model gets wrong and pyflakes misses.

* A new or changed method reads ``self.NAME`` where nothing ever sets NAME: the class does not
  assign it on ``self`` in any method, has no member of that name, and inherits nothing unknown
  (a base class defined in another file, a metaclass, or dynamic attributes end the check: the
  name may come from there). Calling the method raises AttributeError. Only reads the method
  did not already make are judged, so a class that already relies on a subclass is not blamed.
* An instruction to extract code into a new function F: F must be defined and called from each
  function the instruction names (or, when it names none that exists, from somewhere outside
  F). A defined but uncalled F leaves the old code where it was, which is not the extraction.
"""

from __future__ import annotations

import ast
import re

_FUNC = (ast.FunctionDef, ast.AsyncFunctionDef)
# what ``object`` gives every instance: ``self.__class__`` is always there
_OBJECT = frozenset(dir(object))
# a class that computes its attributes: nothing can be said about a name it does not set
_DYNAMIC = frozenset({"__getattr__", "__getattribute__", "__slots__"})
_EXTRACT = re.compile(r"\b(?:extract|factor(?:s|ed)? out|pull(?:s|ed)? out|move[sd]?)\b", re.IGNORECASE)
_NEW_FUNCTION = re.compile(r"\bnew\s+(?:helper\s+)?(?:function|helper|method)\s+`?([A-Za-z_]\w*)", re.IGNORECASE)
_TICKED = re.compile(r"`([A-Za-z_][\w.]*)")


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


def _self_name(method: ast.FunctionDef | ast.AsyncFunctionDef) -> str | None:
    """The instance parameter's name (None for a static or class method, or one without parameters)."""
    decorators = {d.id for d in method.decorator_list if isinstance(d, ast.Name)}
    if decorators & {"staticmethod", "classmethod"}:
        return None
    params = [*method.args.posonlyargs, *method.args.args]
    return params[0].arg if params else None


def _self_attrs(method: ast.FunctionDef | ast.AsyncFunctionDef, store: bool) -> set[str]:
    """The attributes of ``self`` the method sets (``store``) or reads."""
    me = _self_name(method)
    if me is None:
        return set()
    want = (ast.Store, ast.Del) if store else (ast.Load,)
    return {n.attr for n in ast.walk(method) if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)
            and n.value.id == me and isinstance(n.ctx, want)}


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
    if names & _DYNAMIC or "setattr" in {n.id for n in ast.walk(cls) if isinstance(n, ast.Name)}:
        return None
    return names


def unset_self_reads(old: str, new: str) -> str | None:
    """Why ``new`` has a new or changed method reading an attribute its class never sets (None: it has none)."""
    try:
        before, after = _classes(ast.parse(old)), _classes(ast.parse(new))
    except (SyntaxError, ValueError, RecursionError):
        return None
    for qual, cls in after.items():
        was = {n.name: n for n in before[qual].body if isinstance(n, _FUNC)} if qual in before else {}
        known: set[str] | None = None
        looked = False
        for method in (n for n in cls.body if isinstance(n, _FUNC)):
            old_method = was.get(method.name)
            if old_method is not None and ast.dump(old_method) == ast.dump(method):
                continue
            reads = _self_attrs(method, store=False) - _OBJECT
            if old_method is not None:
                reads -= _self_attrs(old_method, store=False)
            if not reads:
                continue
            if not looked:
                known, looked = _known(cls, after, {qual}), True
            if known is None:
                break
            if missing := sorted(reads - known):
                return (f"{qual}.{method.name} reads self.{missing[0]}, which {qual} never sets "
                        "(calling it raises AttributeError)")
    return None


def _functions(tree: ast.Module) -> dict[str, ast.FunctionDef | ast.AsyncFunctionDef]:
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


def _calls(node: ast.AST, name: str) -> bool:
    """True when ``node`` calls ``name`` (as a plain name or as an attribute, ``self.name``)."""
    return any(isinstance(n, ast.Call) and ((isinstance(n.func, ast.Name) and n.func.id == name)
                                            or (isinstance(n.func, ast.Attribute) and n.func.attr == name))
               for n in ast.walk(node))


def extracted_uncalled(old: str, new: str, instruction: str) -> str | None:
    """Why ``new`` does not do the extraction ``instruction`` asks for (None: it does, or none is asked)."""
    if not _EXTRACT.search(instruction) or (found := _NEW_FUNCTION.search(instruction)) is None:
        return None
    target = found.group(1)
    try:
        tree = ast.parse(new)
        before, after = _functions(ast.parse(old)), _functions(tree)
    except (SyntaxError, ValueError, RecursionError):
        return None
    if target in before:
        return None  # not a new function: "move the code into `f`" where f exists is another request
    defined = after.get(target)
    if defined is None:
        return f"the new function {target} is not defined"
    named = [n for n in dict.fromkeys(_TICKED.findall(instruction)) if n != target and n in before and n in after]
    for name in named:
        if not _calls(after[name], target):
            return f"{name} does not call the new function {target}"
    if not named:
        inside = {id(n) for n in ast.walk(defined)}
        outside = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and id(n) not in inside]
        if not any(_calls(call, target) for call in outside):
            return f"the new function {target} is never called"
    return None
