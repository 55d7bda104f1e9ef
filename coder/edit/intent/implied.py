"""Additions said without a verb of adding: a new method by its signature or as a member of its class, a new
parameter by an example call that passes it.

People ask for a new def by showing it: "Cmd needs a way to list its commands. something like
commands(self) -> sorted list of names", "dircmp.is_identical() please", "let me pick the column separator in
Cmd.columnize, e.g. columnize(names, sep=' | ')". No "add" and no "method" or "parameter" is said, so the
grammar's verbs read a change of Cmd, of dircmp, of columnize; the 1.5B, shown the whole class, then made no
change, or rewrote it short (the fresh set's first runs on the H200). What the code says settles it:

- ``NAME(self`` where the files define no ``NAME`` and the edited file's code uses no attribute of that name: a
  new method;
- ``C.NAME`` where ``C`` is a class of the edited file and ``NAME`` is new the same way: a new method of ``C``
  ("TextWrapper.width should default to 80" names an attribute the class sets: no new method);
- ``f(..., kw=...)`` where ``f`` is one def of the edited file that takes neither ``kw`` nor any keyword: ``f``
  gains the parameter ``kw``, its default not the example's value ("default stays two spaces").

Each applies only where the grammar read a change or nothing: "rename C.a to C.b" names a C.b that does not
exist, and is a rename. An example call also names the parameter an "add that parameter" leaves unnamed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from coder import lazy
from coder.edit.intent.reach import reach_of
from coder.edit.intent.spec import Action, ChangeSpec
from coder.edit.intent.symbols import SymbolTable

_SIGNATURE = lazy.regex(r"(?<![\w.])([A-Za-z_]\w*)\(\s*self\b")
_MEMBER = lazy.regex(r"(?<![\w.])([A-Za-z_]\w*)\.([A-Za-z_]\w*)\b(?!\.)")
# a call with its arguments, no nested parentheses: "columnize(names, sep=' | ')"
_CALL = lazy.regex(r"(?<![\w.])((?:[A-Za-z_]\w*\.)?[A-Za-z_]\w*)\(((?:'[^']*'|\"[^\"]*\"|[^()'\"])*)\)")
_KEYWORD = lazy.regex(r"(?:^|,)\s*([A-Za-z_]\w*)\s*=(?!=)")


@dataclass(frozen=True)
class Shown:
    """An addition the instruction shows: a new method (of ``where``, a class, when shown as its member) or a new
    parameter (of ``where``, the def the example calls)."""

    action: Action  # "add_method" or "add_parameter"
    name: str
    where: str  # a qualified name, or "" when the instruction shows no owner

    def settle(self, spec: ChangeSpec, table: SymbolTable) -> ChangeSpec:
        """``spec``, read with the action, with the name, owner or target the instruction shows."""
        named = spec.new_names if self.name in spec.new_names else (*spec.new_names, self.name)
        found = [s for s in table.lookup(self.where) if s.rel == table.home] if self.where else []
        if self.action == "add_method":
            owner = next((s for s in found if s.kind == "class"), spec.owner)
            # a method of a class shown is a change of that class: its reach is the class, not the file
            reach = reach_of(spec.instruction, spec.facts, bool(spec.targets), owner is not None,
                             everywhere=spec.facts.everywhere)
            return replace(spec, new_names=named, owner=owner, reach=reach)
        defs = tuple(s for s in found if s.kind != "class")[:1]
        return replace(spec, new_names=named, params=spec.params or (self.name,), targets=defs or spec.targets)


def implied(instruction: str, action: Action, table: SymbolTable) -> Shown | None:
    """The addition the instruction shows without a verb of adding; None when it shows none, or when the grammar
    read another action."""
    if action not in ("change", "unknown", "add_parameter"):
        return None
    plain = instruction.replace("`", "")
    # "e.g. getuser(env_vars=[...]). Add that parameter": the verb is said, the parameter only in the example
    for m in _SIGNATURE.finditer(plain) if action != "add_parameter" else ():
        if _new(m.group(1), table):
            return Shown("add_method", m.group(1), "")
    for m in _MEMBER.finditer(plain) if action != "add_parameter" else ():
        owner = [s for s in table.lookup(m.group(1)) if s.kind == "class" and s.rel == table.home]
        if len(owner) == 1 and _new(m.group(2), table) and not _module(m.group(1), table):
            return Shown("add_method", m.group(2), owner[0].qualname)
    for m in _CALL.finditer(plain):
        defs = [s for s in table.lookup(m.group(1)) if s.kind != "class" and s.rel == table.home]
        # a bare call is of the module's def, not of a method of the same name ("open_new_tab(url, autoraise=True)
        # in webbrowser": the function, not BaseBrowser.open_new_tab; seventh set, run 23: applied wrong to open)
        defs = [s for s in defs if "." not in s.qualname] if "." not in m.group(1) and len(defs) > 1 else defs
        if len(defs) != 1:
            continue
        taken = table.params.get((defs[0].rel, defs[0].qualname), ())
        if any(p.startswith("**") for p in taken):
            continue
        for kw in _KEYWORD.finditer(_strings_blanked(m.group(2))):
            if kw.group(1) not in taken:
                return Shown("add_parameter", kw.group(1), defs[0].qualname)
    return None


def _new(name: str, table: SymbolTable) -> bool:
    """Nothing of the files defines ``name``, and it is no attribute of the edited file's code ("TextWrapper.width"
    is one its methods set, not a method to add)."""
    return not table.lookup(name) and name not in table.attributes


def _module(word: str, table: SymbolTable) -> bool:
    """``word`` is the edited file's module name ("base64.encode" names encode, not a member of a class)."""
    return table.module == word.lower()


def _strings_blanked(args: str) -> str:
    """The arguments with their string literals' insides blanked, so "sep=' = '" has one keyword."""
    return re.sub(r"'[^']*'|\"[^\"]*\"", "''", args)
