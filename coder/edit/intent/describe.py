"""The change spec in words, for the plan notes, ``--json`` and the TUI: what coder understood, before the diff."""

from __future__ import annotations

from coder.edit.intent.spec import Anchor, ChangeSpec, Symbol

_VERB = {
    "rename": "rename", "delete": "delete", "move": "move", "add_parameter": "add a parameter",
    "add_method": "add a method", "add_function": "add a function", "extract": "extract",
    "docstring": "docstrings", "comment": "comments", "type_hints": "type hints",
    "change": "change", "transform": "change the whole file", "unknown": "an ordinary request",
}


def _name(s: Symbol) -> str:
    kind = "class" if s.kind == "class" else s.kind
    return f"{kind} {s.qualname}"


def _what(spec: ChangeSpec, main: bool) -> str:
    """The objects: the renames, else the targets (and the ``__main__`` block a deletion takes too)."""
    if spec.renames:
        return ", ".join(f"{a} -> {b}" for a, b in spec.renames)
    block = "the __main__ block" if main else ""
    if spec.targets:
        # "delete glob0 and glob1 and the comment line above them": the comment block above the first goes too
        extra = [w for w in ("the comment above" if spec.facts.with_comment else "", block) if w]
        names = ", ".join(_name(s) for s in spec.targets)
        return names + (f"{', ' if len(extra) > 1 else ' and '}{' and '.join(extra)}" if extra else "")
    if spec.facts.statements and spec.anchor is not None and spec.anchor.symbol is not None:
        # "move the cache globals (a, b) above def f": they move, the def is where
        return f"the assignments of {', '.join(spec.facts.statements)} {spec.anchor.where} {_name(spec.anchor.symbol)}"
    if spec.facts.statements:  # "move functools after os": the first moves, the next is where
        first, *rest = spec.facts.statements
        where = spec.anchor.where if spec.anchor is not None else "after"
        return f"the statement of {first}" + (f" {where} the statement of {rest[0]}" if rest and spec.action == "move"
                                              else "")
    return block


def _reach(spec: ChangeSpec, main: bool) -> str:
    """How far the change reaches, in words ("" for the named symbols)."""
    if spec.action == "rename" and spec.renames:
        # a rename changes the name's every use in the file: "and its callers", "in the whole file" add nothing
        return "everywhere" if spec.reach == "everywhere" else ""
    if spec.reach in ("everywhere", "callers"):
        return "everywhere" if spec.reach == "everywhere" else "and its callers"
    # a new function is no change of the file's defs: it goes beside one, wherever the file is long
    if (not spec.targeted and spec.action not in ("unknown", "transform", "add_function") and not main
            and not spec.facts.statements):
        return "in the whole file"
    return ""


def _where(anchor: Anchor) -> str:
    """``after function g``, ``at the end of the file``, ``above each `while lo < hi:```."""
    if anchor.line is not None:
        return f"above {'each ' if anchor.each else ''}`{anchor.line}`"
    where = anchor.where.replace("_", " ")
    return (f"{where} {_name(anchor.symbol)}" if anchor.symbol else
            {"end": "at the end of the file", "top": "at the top of the file"}.get(anchor.where, where))


def describe(spec: ChangeSpec, how: str = "") -> str:
    """``delete method C.m (cut mechanically)``: the action, its targets and anchor, its reach, and ``how``."""
    main = spec.action == "delete" and bool({"__main__", "__name__"} & {*spec.facts.code_words, *spec.facts.ticked})
    parts = [_VERB[spec.action]]
    if what := _what(spec, main):
        parts.append(what)
    if spec.params:
        # the parameters by name: a default or annotation spelled or not is the same plan
        parts.append("(" + ", ".join(dict.fromkeys(p.split(":")[0].split("=")[0].strip() for p in spec.params)) + ")")
    elif spec.action in ("add_method", "add_function", "extract") and spec.new_names:
        parts.append(("into " if spec.action == "extract" else "") + ", ".join(spec.new_names))
    if spec.facts.none_default:  # "change the default of P from [] to None": the idiom, however worded
        parts.append(f"(default of {spec.facts.none_default} to None)")
    if spec.owner is not None:
        parts.append(f"to class {spec.owner.qualname}")
    if spec.anchor is not None and not spec.facts.statements:
        parts.append(_where(spec.anchor))
    if spec.dest is not None:  # a move to another file: where there, and the source's import of it
        there = (f"to the end of {spec.dest.rel}" if spec.dest.name is None
                 else f"{spec.dest.where} {spec.dest.name} in {spec.dest.rel}")
        source = spec.targets[0].rel if spec.targets else "the source"
        parts.append(there + (f" and import it in {source}" if spec.dest.imports else ""))
    if spec.lines:
        parts.append(", ".join(f"lines {a}-{b}" for a, b in spec.lines))
    if reach := _reach(spec, main):
        parts.append(reach)
    only = spec.only
    if (only is not None and spec.action not in ("docstring", "comment", "type_hints")) or (
            only is not None and len(only) > 1):
        parts.append("(" + " and ".join(sorted(only)) + " only)")
    if spec.ambiguous:
        parts.append(f"({', '.join(spec.ambiguous)} ambiguous)")
    text = " ".join(parts)
    return f"{text} ({how})" if how else text


def read_line(spec: ChangeSpec, how: str = "") -> str:
    """The plan note: ``read: ...``, or ``read by the model in 0.8s: ...``."""
    if spec.read_by == "model":
        return f"read by the model in {spec.seconds:.1f}s: {describe(spec, how)}"
    return f"read: {describe(spec, how)}"
