"""How far a change reaches: the named symbols, their callers, the whole file, or every file using the names.

The wording says it ("throughout", "and its callers", "everywhere"); the repository settles a reach
"everywhere" whose names no other file uses: it is the file's (:func:`only_here`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import replace

from coder import lazy
from coder.edit.intent.spec import ChangeSpec, Facts, Reach, Symbol
from coder.edit.intent.symbols import used_elsewhere

# "every method in the C class" is C's: of a file or module only ("every function in this file") is it throughout
_OF_ONE = r"(?!\s+(?:in|of|on)\s+(?:(?:the|this)\s+)?+(?!(?:file|module)\b)\w)"
THROUGHOUT = lazy.regex(r"\b(?:throughout|every\s+(?:function|method|def|class)" + _OF_ONE + r"|all\s+(?:functions|"
                        r"methods|defs|classes)" + _OF_ONE + r"|(?:in|across)\s+(?:the\s+)?(?:whole|entire)\s+"
                        r"(?:file|module)|everywhere)\b", re.I)


def reach_of(instruction: str, facts: Facts, targets: bool, named: bool, *, everywhere: bool) -> Reach:
    """"everywhere", the callers, the whole file ("throughout", nothing named) or the named symbols."""
    if everywhere:
        return "everywhere"
    if facts.callers and targets:
        return "callers"
    return "file" if THROUGHOUT.search(instruction) or not named else "symbol"


def only_here(spec: ChangeSpec, files: Mapping[str, str], home: str) -> ChangeSpec:
    """A reach "everywhere" whose names no other file of the repository uses: the reach of this file.

    "rename read_token to next_token everywhere" is the same plan as "... everywhere in this file" when
    nothing else uses read_token, and is read the same.
    """
    names = [a for a, _ in spec.renames] or [s.name for s in spec.targets]
    if spec.reach != "everywhere" or not names or used_elsewhere(files, home, names):
        return spec
    reach = reach_of(spec.instruction, spec.facts, bool(spec.targets), spec.targeted, everywhere=False)
    return replace(spec, reach=reach, notes=(*spec.notes, f"no other file uses {', '.join(names)}: {home} only"))


def rename_home(said: str | None, targets: list[Symbol], renames: list[tuple[str, str]],
                params: Mapping[tuple[str, str], tuple[str, ...]], module_names: frozenset[str] = frozenset()
                ) -> str | None:
    """The one def a rename of a name local to it stays in: the planner's regions and the guard's, read once.

    "pieces -> parts in Repr._repr_iterable": that def's local. Of two defs named ("... (repr_dict keeps its own
    pieces)"), the one it is confined to ("in _repr_iterable rename ...") wins; else none (the H200 renamed both).
    A parameter of the def is never confined to it: its callers' keywords follow it ("rename the all param of
    find() to all_files" changes translation's ``find(..., all=True)`` too), nor is a name the module binds at its
    top level (``module_names``)."""
    olds = {a for a, _ in renames}
    if any(t.name in olds for t in targets):  # a def renamed (its calls elsewhere follow it), not a local
        return said
    if olds & module_names:  # "_builtin_cvt ... check_builtin has to use the new name": a module-level name, and
        return said          # the def said is one that uses it (tenth fresh set, run 24: the rename was flagged)
    defs = [t for t in targets if t.kind != "class" and t.name not in olds]
    hit = [t for t in defs if said is not None and (t.qualname == said or t.qualname.endswith("." + said))]
    home = hit[0] if len(hit) == 1 else defs[0] if said is None and len({t.qualname for t in defs}) == 1 else None
    if home is not None and olds & {p.lstrip("*") for p in params.get((home.rel, home.qualname), ())}:
        return None  # a parameter: even "in find, rename ..." names where it is, and its callers must follow
    return home.qualname if home is not None else said
