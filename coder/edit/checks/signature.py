"""The new-signature check: a new or changed def gains no parameter that nobody asked for.

A small model asked to "add a method m to C that returns ..." may come back with
``def m(self, year)``: ``year`` is named nowhere in the instruction and the body never reads
it, yet every call the instruction describes (``c.m()``) now raises TypeError. Pyflakes sees
nothing wrong, the file parses, and the edit would be applied. Two rules, both read from the
change spec (:class:`~coder.edit.intent.spec.ChangeSpec`), never from the instruction's text:

* **unasked and unused**: a parameter a def gains (a new def: all of its parameters but
  ``self``/``cls``) that the spec does not name (``params``, ``new_names``, a rename's new
  name) and that its body never reads;
* **callable as described**: when the spec names the parameters of the def it adds or
  changes, that def requires no other parameter (the described call gives only those).

Signatures someone else dictates are left alone: dunder methods (``__exit__`` takes its three
arguments whether it reads them or not), a method overriding one of a base class in the same
file, a def passed somewhere as a callback rather than called, and names starting with ``_``
(the usual spelling of "unused on purpose").
"""

from __future__ import annotations

import ast
import builtins

from coder.edit.intent.spec import ChangeSpec
from coder.edit.source.trees import every_node, parsed

_FUNC = (ast.FunctionDef, ast.AsyncFunctionDef)
Def = ast.FunctionDef | ast.AsyncFunctionDef
_ADDS = frozenset({"add_method", "add_function", "add_parameter"})


def param_names(spec: ChangeSpec) -> set[str]:
    """The parameter names ``spec.params`` gives (each entry as written: ``"strict: bool = False"``, ``"*args"``)."""
    names = (p.split(":", 1)[0].split("=", 1)[0].strip().lstrip("*").strip() for p in spec.params)
    return {n for n in names if n.isidentifier()}


def named_anyhow(spec: ChangeSpec) -> set[str]:
    """Names the instruction speaks of as code, or as ones to remove, rename or ignore: a def may lose or stop
    using a parameter of these (that may be what it asks), never another."""
    return ({w.rsplit(".", 1)[-1] for w in spec.facts.code_words} | set(spec.facts.gone) | param_names(spec)
            | {a for a, _ in spec.renames} | set(spec.facts.ignored))


def defs(tree: ast.Module) -> dict[str, tuple[Def, ast.ClassDef | None]]:
    """Every def of the module by qualified name (``f``, ``C.m``, ``C.Inner.m``), with its class (None: a function)."""
    out: dict[str, tuple[Def, ast.ClassDef | None]] = {}

    def visit(body: list[ast.stmt], prefix: str, owner: ast.ClassDef | None) -> None:
        for node in body:
            if isinstance(node, _FUNC):
                out.setdefault(prefix + node.name, (node, owner))
            elif isinstance(node, ast.ClassDef):
                visit(node.body, f"{prefix}{node.name}.", node)

    visit(tree.body, "", None)
    return out


def _bound(fn: Def, owner: ast.ClassDef | None) -> bool:
    """True when the first parameter is the instance or the class (a method that is not static)."""
    if owner is None:
        return False
    return not any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in fn.decorator_list)


def _params(fn: Def, owner: ast.ClassDef | None) -> list[tuple[str, bool]]:
    """``(name, required)`` for each parameter a caller passes (``self``/``cls`` left out)."""
    a = fn.args
    positional = [*a.posonlyargs, *a.args]
    first_default = len(positional) - len(a.defaults)
    out = [(p.arg, i < first_default) for i, p in enumerate(positional)]
    if _bound(fn, owner):
        out = out[1:]
    out += [(p.arg, d is None) for p, d in zip(a.kwonlyargs, a.kw_defaults, strict=True)]
    out += [(v.arg, False) for v in (a.vararg, a.kwarg) if v is not None]
    return out


def _reads(fn: Def) -> set[str]:
    """The names the def's body (nested code included) and its defaults read."""
    return {n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def _callbacks(text: str) -> set[str]:
    """Names used other than as the function of a call (``key=f``, ``signal(SIG, handler)``, ``self.m`` passed on)
    in ``text``."""
    every = every_node(text)
    called = {id(n.func) for n in every if isinstance(n, ast.Call)}
    out = set()
    for node in every:
        if id(node) in called:
            continue
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            out.add(node.id)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
            out.add(node.attr)
    return out


def _overrides(fn: Def, owner: ast.ClassDef | None, classes: dict[str, ast.ClassDef], asked: bool) -> bool:
    """True when a base class may dictate the method's signature.

    A base of this file is looked at, a builtin one asked (``hasattr``); one from elsewhere may define
    anything, except that a method the instruction asks for by name is judged as the instruction describes it.
    """
    if owner is None:
        return False
    for base in owner.bases:
        key = ast.unparse(base)
        parent = classes.get(key)
        if parent is None:
            known = getattr(builtins, key, None)
            if isinstance(known, type):
                if hasattr(known, fn.name):
                    return True
                continue
            if not asked:
                return True
            continue
        if any(isinstance(n, _FUNC) and n.name == fn.name for n in parent.body):
            return True
        if parent is not owner and _overrides(fn, parent, classes, asked):
            return True
    return False


def _previous(qual: str, fn: Def, before: dict[str, tuple[Def, ast.ClassDef | None]],
              renames: dict[str, str]) -> tuple[Def, ast.ClassDef | None] | None:
    """The def ``qual`` was before the edit: the same name, a renamed one, or one moved to another class."""
    if qual in before:
        return before[qual]
    head, _, name = qual.rpartition(".")
    for old, new in renames.items():
        if new == name and (f"{head}.{old}" if head else old) in before:
            return before[f"{head}.{old}" if head else old]
    moved = [d for q, d in before.items() if q.rpartition(".")[2] == fn.name]
    return moved[0] if len(moved) == 1 else None


def unasked_parameters(old: str, new: str, spec: ChangeSpec) -> str | None:
    """Why a def of ``new`` has a parameter ``spec`` does not ask for (None: every def is callable as asked)."""
    try:
        tree = parsed(new)
        before = defs(parsed(old))
    except (SyntaxError, ValueError, RecursionError):
        return None
    after = defs(tree)
    renames = dict(spec.renames)
    named = param_names(spec)
    allowed = named | set(spec.new_names) | set(renames.values())
    classes: dict[str, ast.ClassDef] = {}
    passed: set[str] | None = None  # both read only when a signature changed: most replies change none
    asked = {s.qualname for s in spec.targets} | set(spec.new_names)
    # "add p to f and pass it at its calls in g": g's calls pass p, g does not gain it
    callers_pass = spec.action == "add_parameter" and spec.facts.callers and bool(spec.targets)
    callee = ", ".join(s.qualname for s in spec.targets)
    for qual, (fn, owner) in after.items():
        was = _previous(qual, fn, before, renames)
        params = _params(fn, owner)
        if was is not None and [p for p, _ in params] == [p for p, _ in _params(*was)]:
            continue  # the signature did not change
        is_asked = qual in asked or fn.name in asked
        had = {p for p, _ in _params(*was)} if was is not None else set()
        if callers_pass and not is_asked and (took := [p for p, _ in params if p in named and p not in had]):
            # seen on the H200 (timeit-param): "have both calls in Timer.__init__ pass char=' '" came back with
            # Timer.__init__ taking a char of its own (a dunder: checked before protocols are let through)
            return (f"{qual} gained the parameter {took[0]}, which the instruction adds to {callee} only: "
                    f"where {qual} calls it, it passes {took[0]}, it does not take it")
        if passed is None:
            classes = {node.name: node for node in every_node(new) if isinstance(node, ast.ClassDef)}
            passed = _callbacks(new)
        if (fn.name.startswith("__") and fn.name.endswith("__")) or fn.name in passed \
                or _overrides(fn, owner, classes, is_asked):
            continue  # a protocol, a caller elsewhere or a base class dictates this signature
        reads = _reads(fn)
        for name, required in params:
            if name in had or name in allowed or name.startswith("_"):
                continue
            if name not in reads:
                return (f"{qual} gained a parameter {name} that the instruction does not ask for and its body "
                        f"never uses (a call as the instruction describes it raises TypeError)"
                        if required else
                        f"{qual} gained a parameter {name} that the instruction does not ask for and its body "
                        "never uses")
            if named and required and spec.action in _ADDS and is_asked:
                return (f"{qual} requires {name}, which the instruction does not describe (it describes the "
                        f"parameters {', '.join(sorted(named))}): a call as described raises TypeError")
    return None


def lost_parameters(old: str, new: str, spec: ChangeSpec) -> str | None:
    """Why a def that is still there takes a parameter fewer (or one renamed) that the instruction does not name.

    Applied on the H200 (Qwen2.5-Coder-1.5B): asked again to make ``indent`` leave blank lines alone after a
    reply that ignored ``predicate``, the model dropped it: ``def indent(text, prefix)``. Every caller that
    passes a predicate now raises TypeError. A deletion, and a rewrite that keeps only the name, are not held.
    """
    if spec.action == "delete" or spec.facts.keeps_names:
        return None
    try:
        before, after = defs(parsed(old)), defs(parsed(new))
    except (SyntaxError, ValueError, RecursionError):
        return None
    named = named_anyhow(spec)
    for qual, (fn, owner) in after.items():
        if qual not in before:
            continue
        now = {p for p, _ in _params(fn, owner)}
        lost = [p for p, _ in _params(*before[qual]) if p not in now and p not in named]
        if lost:
            return (f"{qual} no longer takes its parameter {lost[0]}, which the instruction does not ask to remove: "
                    f"a caller that passes {lost[0]} now raises TypeError")
    return None


def signature_hint(spec: ChangeSpec) -> str:
    """What a retry is told to do about an unasked parameter."""
    named = sorted(param_names(spec))
    if named:
        return f"Give it exactly the parameters the instruction describes ({', '.join(named)}) and no others."
    return "Remove that parameter: the instruction describes no such argument."


def asked_parameter_problem(old: str, new: str, spec: ChangeSpec,
                            within: tuple[int, int] | None = None) -> str | None:
    """Why the parameter ``spec`` adds to its target defs is not there, or is never used (None: it is both).

    ``within``: only the targets whose lines (in ``old``) lie in that span are judged, as one region of a
    plan is, so a reply that left the parameter unused is asked again before the plan is spliced whole.

    Seen applied on the H200 (Qwen2.5-Coder-1.5B): "a sep parameter defaulting to ' ', used in place
    of the literal space" came back with ``sep`` in the signature and the body unchanged, and "add a
    placeholder parameter to shorten" with no parameter at all.
    """
    if spec.action != "add_parameter" or not (names := param_names(spec)):
        return None
    try:
        before, after = defs(parsed(old)), defs(parsed(new))
    except (SyntaxError, ValueError, RecursionError):
        return None
    gained_any, first = False, None
    for target in spec.targets:
        if target.kind == "class" or target.qualname not in after:
            continue
        if within is not None and not within[0] <= target.start <= target.end <= within[1]:
            continue
        fn, owner = after[target.qualname]
        had = {p for p, _ in _params(before[target.qualname][0], owner)} if target.qualname in before else set()
        if had & names:
            continue  # already takes it: a change of it, not an addition
        first = first or target.qualname
        gained = (names - had) & {p for p, _ in _params(fn, owner)}
        gained_any = gained_any or bool(gained)
        body_reads = {n.id for stmt in fn.body for n in ast.walk(stmt)
                      if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
        for name in sorted(gained - body_reads):
            return f"{name} is never used in {target.qualname}"
        if (wrong := _other_default(fn, gained, spec)) is not None:
            return wrong
        if (wrong := _effect(before.get(target.qualname, (None, None))[0], fn, gained, spec)) is not None:
            return wrong
    if first is not None and not gained_any:  # the other targets are where it is passed or mentioned
        return f"{first} has no parameter {', '.join(sorted(names))}"
    return None


def _effect(old_fn: Def | None, fn: Def, gained: set[str], spec: ChangeSpec) -> str | None:
    """Why a gained parameter's default changes the existing calls, or its value is never used (None: neither).

    A default the instruction spells ("sep=' '") is the user's to choose, so only the use is judged then."""
    from coder.edit.checks.param_effect import default_changes_calls, param_defaults, value_unused

    spelled = {e.partition("=")[0].split(":", 1)[0].strip() for e in spec.params if "=" in e}
    defaults = param_defaults(fn)
    for name in sorted(gained & defaults.keys()):
        if old_fn is not None and name not in spelled and (
                why := default_changes_calls(old_fn, fn, name, defaults[name])) is not None:
            return why
        if (why := value_unused(fn, name, defaults[name])) is not None:
            return why
    return None


def _other_default(fn: Def, gained: set[str], spec: ChangeSpec) -> str | None:
    """Why a parameter ``fn`` gained defaults to another value than the instruction gives ("x=True").

    Seen applied on the H200 (glob-callers w1): "add an include_hidden=True parameter to _listdir" came back as
    ``include_hidden=False``, which turns the behaviour every existing call had into the new one.
    """
    for name, given, asked in other_defaults(fn, gained, spec):
        return (f"{name} defaults to {ast.unparse(given)} in {fn.name}; "
                f"the instruction asks for {name}={ast.unparse(asked)}")
    return None


def other_defaults(fn: Def, gained: set[str], spec: ChangeSpec) -> list[tuple[str, ast.Constant, ast.Constant]]:
    """``(name, default given, default asked)`` of each parameter ``fn`` gained with a literal default other than
    the literal the instruction gives it."""
    a = fn.args
    positional = [*a.posonlyargs, *a.args]
    defaults = dict(zip([p.arg for p in positional[len(positional) - len(a.defaults):]], a.defaults, strict=True))
    defaults |= {p.arg: d for p, d in zip(a.kwonlyargs, a.kw_defaults, strict=True) if d is not None}
    out = []
    for entry in spec.params:
        head, eq, value = entry.partition("=")
        name = head.split(":", 1)[0].strip()
        if not eq or name not in gained or name not in defaults:
            continue
        try:
            asked = ast.parse(value.strip(), mode="eval").body
        except (SyntaxError, ValueError, RecursionError):
            continue  # "placeholder=' [" as a wording cut it: nothing to compare
        given = defaults[name]
        if isinstance(asked, ast.Constant) and isinstance(given, ast.Constant) and ast.dump(asked) != ast.dump(given):
            out.append((name, given, asked))
    return out
