"""The wording's details a change spec carries beside its action and targets (:class:`.spec.Facts`): the names it
spells as code and those the files lack, and the yes/no details the checks hold the change to.
:func:`coder.edit.intent.read.grammar_read` asks, once.
"""

from __future__ import annotations

import builtins
import re

from coder import lazy
from coder.edit.intent import extraction, mutable_default, uses, words
from coder.edit.intent.spec import Action, Facts
from coder.edit.intent.symbols import SymbolTable

_RETURN_ONLY = lazy.regex(r"\breturn\s+(?:type|annotation|hint)s?\b", re.I)
_PARAMS_SAID = lazy.regex(r"\b(?:param(?:eter)?s?|arg(?:ument)?s?|inputs?)\b", re.I)
_CALLERS_NOUN = lazy.regex(r"\b(?:callers?|call\s+sites?|every\s+call)\b", re.I)
BUILTINS = frozenset(dir(builtins))


def facts_of(instruction: str, table: SymbolTable, known: set[str], action: Action, *, fault: bool = False) -> Facts:
    """The wording's details; ``known``: names created or resolved (a report's "PriorityQueue.get()": its class);
    ``fault``: the instruction reports a fault."""
    rename = action == "rename"
    named = words.code_names(instruction)
    renamed = words.renamed_olds(instruction)
    sure = [n for n in named if n.explicit and n.kind != "lines" and not n.creating]
    explicit = tuple(n.name for n in sure)
    # "opens anything else with plain open()": a builtin is no name the file should define
    # the user's own example code ("for def f(a): ...") and a builtin's method in an error ("type.__new__()") too
    mine = words.example_defs(instruction)
    missing = tuple(f"{n.kind} {n.name}" if n.kind else n.name for n in sure
                    if not table.lookup(n.name) and n.name not in known and n.name not in renamed
                    and not (n.name.rpartition(".")[2] in known and table.lookup(n.name.rpartition(".")[0]))
                    and not words.is_new_name(instruction, n.name) and n.name.split(".")[0] not in BUILTINS
                    and n.name not in mine and not _called_on_values(n.name, table))
    f = words.flags(instruction)
    return Facts(
        code_words=tuple(n.name for n in named if n.kind != "lines"), explicit=explicit, missing=missing,
        ticked=words.ticked_words(instruction, lambda name: bool(table.lookup(name))), returns=f["returns"],
        gone=words.asked_gone(instruction), ignored=words.asked_ignored(instruction), uses_new=f["uses_new"],
        delete_defs=words.delete_defs(instruction), confined=words.confined_to(instruction),
        param=words.param_request(instruction), moves=words.is_move(instruction), files=words.named_files(instruction),
        extract_into=extraction.extract_into(instruction), signatures=extraction.signatures(instruction),
        returned=extraction.returned(instruction),
        handles=f["handles"], uses=uses.asked_uses(instruction, table, known),
        keeps_names=f["keeps_names"], module_doc=f["module_doc"], members=f["members"], shrinks=f["shrinks"],
        # "extract ... into g, and have f call it": f is the def extracted from, its callers are not asked
        # "a docstring saying it ... calls _siftdown": what the text says, not its callers (run 19)
        every_def=f["every_def"], callers=f["callers"] and action != "extract" and not (
            # "a main() that only calls other functions shows 0.000": a report's verb describes, asks no callers
            (action in ("docstring", "comment") or fault) and not _CALLERS_NOUN.search(instruction)),
        errors=f["errors"],
        none_default=mutable_default.none_default(instruction, table.lookup),
        return_hint_only=bool(_RETURN_ONLY.search(instruction)) and not _PARAMS_SAID.search(instruction),
        # "rename X in a.py and b.py": the names' files, not one
        everywhere=f["everywhere"] or (rename and any(p != table.home and not table.home.endswith("/" + p)
                                                      for p in words.named_files(instruction))))


def _called_on_values(name: str, table: SymbolTable) -> bool:
    """``name`` is no def the file must have: a method the file calls on some value ("the pop() line": ``.pop(``),
    or an attribute of a value the user's own code names ("compare_digest(h.digest(), ...)": ``h`` is no name of
    the file). Seen on the sixth fresh set (run 20): both were refused as names the file does not define."""
    text = table.texts.get(table.home, "")
    head, _, attr = name.rpartition(".")
    if head:
        bound = rf"^(?:import|from)\b.*\b{re.escape(head)}\b|^{re.escape(head)}\s*="
        return not table.lookup(head) and not re.search(bound, text, re.M)
    return bool(re.search(rf"\.{re.escape(attr)}\s*\(", text))
