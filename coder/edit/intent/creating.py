"""Which names a change that creates defs leaves as targets, and which words name its new defs at all.

"Add an is_cell() method to Symbol that returns True when ... some inner function closes over": ``inner`` and
``closes`` say what the method is about. "Into a module level fn _add_to_stats(stats, traceback, size)": the
parameters name no ``Trace.size``. "Add a clear method to scheduler that drops every event in the queue": the
names of the clause that says what it does are not edited. :func:`coder.edit.intent.read.grammar_read` asks.
"""

from __future__ import annotations

import re

from coder import lazy
from coder.edit.intent.context import context_only
from coder.edit.intent.names import ENGLISH, Mention, Tok
from coder.edit.intent.spec import Action, Symbol
from coder.edit.intent.symbols import SymbolTable

# what a new def should do is said after these: the plain words there describe, they name no target
# ("new C.m(x) -- ...": a dash, tokenised "-" and "-", opens the description too)
_DESCRIBES = frozenset({"that", "which", "returning", "so", "saying", "where", "whose", "afterwards", ":", ";", "-",
                        "—", "–"})
_SHAPED = lazy.regex(r"_|\d|[a-z][A-Z]")  # is_cell, b64, camelCase: a name no English word is
_DESCRIPTION = lazy.regex(r"\b(?:that|which|returning|so|saying|where|whose|i\.e\.?)\b|[:;]", re.I)

# "new pkgutil.list_submodules(pkg): ...", "add copyreg.extension_code(module, name): ..." (a signature then ":" or
# "->", a lower-case module before it: "add UUID.is_nil() -> bool" is a method): a request that opens with the new
# def's signature (its name: group 1)
NEW_SIGNED = (r"^\W*(?:new|add(?=\s+`?(?-i:[a-z_][a-z0-9_]*\.)?[A-Za-z_]\w*\([\w\s,=*]*\)`?\s*(?::|->)))\s+"
              r"`?(?:[A-Za-z_]\w*\.)?([A-Za-z_]\w*)\((?!\s*self\b)[\w\s,=*]*\)")


# "bdb: new Bdb.disable_file_breaks(filename) -- ...", "add Bdb.disable_file_breaks(filename) -> None": a new member of
# a class (a capitalised name), signed, after "new" that opens the request (past a "module:" prefix) or after "add";
# "cached_property.reset(self, instance): ..." opening the request: `self` says a method, whatever the class's case
_OWNER = (r"(?:(?:^\W*(?:[\w.]+:\s*)?new|\badd)\s+`?(?-i:[A-Z]\w*)"
          r"|^\W*(?:[\w.]+:\s*)?(?:(?:new|add)\s+)?`?(?=[A-Za-z_]\w*\.[A-Za-z_]\w*`?\(\s*self\b)[A-Za-z_]\w*)")
NEW_MEMBER = _OWNER + r"\.([A-Za-z_]\w*)`?\("
_NEW_MEMBER = lazy.regex(NEW_MEMBER, re.I)
_LEAD = lazy.regex(r"^\W*(?:[\w.]+:\s*)?(?:(?:new|add)\s+)?`?|^.*\b(?:new|add)\s+`?", re.I)  # before the class


def signed_owner(instruction: str, table: SymbolTable) -> list[Symbol]:
    """The class whose new member :data:`NEW_MEMBER` signs, when the file defines it (else nothing)."""
    m = _NEW_MEMBER.search(instruction)
    said = _LEAD.sub("", instruction[m.start():m.start(1) - 1]) if m else ""  # what stands before ".member("
    return [s for s in table.lookup(said) if s.kind == "class" and s.qualname == said][:1] if said else []


def settled(action: Action, instruction: str, table: SymbolTable) -> Action:
    """``action``, but a change where it is "add_method" and :data:`NEW_MEMBER` signs a member the class already has
    ("cached_property.__set_name__(self, owner, name): raise a clearer error" changes ``__set_name__``)."""
    m = _NEW_MEMBER.search(instruction) if action == "add_method" else None
    owner = signed_owner(instruction, table) if m else []
    return "change" if m and owner and table.member(owner[0], m.group(1)) else action


def not_in_description(instruction: str, found: list[tuple[int, str]]) -> list[str]:
    """The new names of ``found`` (position, name), less plain words said after a code-shaped one's description began.

    "Add an is_cell() method to Symbol that returns True when ... some inner function closes over": ``inner``
    and ``closes`` are what the method is about (2-core CPU, run 18: three methods were asked for)."""
    def shaped(at: int, name: str) -> bool:
        return bool(_SHAPED.search(name)) or instruction[at + len(name):at + len(name) + 1] in ("(", "`")
    first = next((at for at, name in found if shaped(at, name)), None)
    said = _DESCRIPTION.search(instruction, first) if first is not None else None
    return [name for at, name in found if said is None or at < said.start() or shaped(at, name)]


def not_aside(picked: list[tuple[Mention, Symbol]], mentions: list[Mention], toks: list[Tok],
               action: Action) -> list[tuple[Mention, Symbol]]:
    """The picks that are targets, not names said for context.

    "add hints to f (memo is the dict deepcopy passes around)": memo and deepcopy are context. An extraction's
    source is a code-spelled def or a module function: "Snapshot._group_by ... adds a trace to the Statistic
    kept for a traceback" names no Trace, Statistic or Trace.traceback to change.
    """
    aside = context_only(mentions, toks, action)
    picked = [(m, s) for m, s in picked if m.index not in aside] or picked
    if action == "extract":  # a module function named bare stays ("getopt and gnu_getopt both convert ...")
        picked = [(m, s) for m, s in picked if toks[m.index].code or s.kind == "function"] or picked
    return picked


def created(found: list[Mention], toks: list[Tok], new_names: tuple[str, ...]) -> list[Mention]:
    """The mentions that may be targets of a change creating ``new_names``: none of those, nor a name inside the
    parentheses right after one ("into a module level fn _add_to_stats(stats, traceback, size)": no Trace.size)."""
    inside: set[int] = set()
    for i, t in enumerate(toks[:-1]):
        if t.text.rsplit(".", 1)[-1] in new_names and toks[i + 1].text == "(":
            j = i + 2
            while j < len(toks) and toks[j].text != ")":
                inside.add(j)
                j += 1
    # a parameter named in the signature stays one wherever it is said again ("weekday uses the module's
    # MONDAY..SUNDAY numbering" after "nth_weekday(year, month, weekday, n)": no calendar.weekday, run 20)
    params = {toks[j].text for j in inside if toks[j].word}
    return [m for m in found if m.word not in new_names and m.index not in inside and m.word not in params]


def not_described(mentions: list[Mention], toks: list[Tok], new_names: tuple[str, ...]) -> list[Mention]:
    """The mentions that may be targets of a new def: none from the clause that says what it does.

    "add a clear method to scheduler that drops every event in the queue", "...; afterwards empty()
    should be True": the names there describe the new def's behaviour, they are not edited.
    """
    first = next((i for i, t in enumerate(toks) if t.text.rsplit(".", 1)[-1] in new_names), len(toks))  # "mod.f"
    said = next((i for i, t in enumerate(toks) if i > first and t.text.lower() in _DESCRIBES), len(toks))
    # "to empty a Queue at once: add clear(self)": a plain word says what the new def is for, no target
    return [m for m in mentions if m.index < said and (toks[m.index].code or m.word.lower() not in ENGLISH)]
