"""The wording's details the checks hold a change to, read once (their only home in ``coder/edit``).

The action, targets and anchor come from :mod:`coder.edit.intent.read`; this module reads the
rest: the names spelled as code (backticks, calls, kind words), the substitutions (``rename X
to Y``, ``from 70 to 80``), the objects of "delete"/"remove"/"move", and the small clauses that
change what a check allows ("and use it", "in the function X only", "and handle None").
Instructions are English, so they are scanned with patterns; the code is never read here.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from dataclasses import dataclass

from coder import lazy
from coder.edit.intent.vocab import BEFORE_KIND, NOT_NAMES, PROSE_AFTER_KIND

IDENT = r"`?([A-Za-z_][\w.]*)`?"

# --- names spelled as code ---------------------------------------------------------------------

# "function split", "the method Foo.bar", "class `Foo`", "def load"
_KIND_WORD = lazy.regex(r"\b(function|func|def|method|class)\s+`?([A-Za-z_][\w.]*)`?(\(\))?")
_CALL = lazy.regex(r"`?\b([A-Za-z_][\w.]*)\(\)`?")
_TICKED = lazy.regex(r"`([A-Za-z_][\w.]*)(?:\(\))?`")
_BACKTICKED = lazy.regex(r"`([^`]+)`")
_WORD = lazy.regex(r"[A-Za-z_]\w*")
LINES = lazy.regex(r"\blines?\s+(\d+)\s*(?:-|–|—|to|through|until)\s*(\d+)\b|\bline\s+(\d+)\b", re.I)


def said_words(instruction: str) -> frozenset[str]:
    """Every word of the instruction, lower case: what a check may hold a change to ("marks it closed")."""
    return frozenset(w.lower() for w in re.findall(r"[A-Za-z_]\w*", instruction))


def line_spans(instruction: str) -> tuple[tuple[int, int], ...]:
    """The line spans the instruction names ("lines 10-14", "line 7"), first line and last."""
    return tuple((int(m.group(1) or m.group(3)), int(m.group(2) or m.group(3))) for m in LINES.finditer(instruction))


_CODE_WORD = lazy.regex(r"(?<![\w.`])([A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)*)(?![\w`(])")
# Words right before a name that mean the symbol is new: not finding it is then expected.
_CREATE = lazy.regex(r"(\b(add|create|write|introduce|insert|define|implement)\s+(an?\s+|the\s+)?(new\s+)?"
                     r"|\bnew\s+)$", re.I)
_MAIN_BLOCK = lazy.regex(r"\bmain\s+(?:block|guard|section|clause)\b", re.I)
_RENAME_OLD = lazy.regex(r"\brename\s+(?:the\s+)?(?:(?:function|method|class)\s+)?`?([A-Za-z_][\w.]*)", re.I)
@dataclass(frozen=True)
class Named:
    """A name or line range the instruction spells as code."""

    name: str  # "split", "Foo.bar", "10-40"
    kind: str | None  # "function" | "class" | "lines" | None (a bare code-looking word)
    explicit: bool  # named as code (kind word, call): a miss is an error
    creating: bool = False  # preceded by "add"/"new"/...: the symbol may not exist yet


_KINDS = {"function": "function", "func": "function", "def": "function", "method": "function", "class": "class"}


def code_names(instruction: str) -> list[Named]:
    """Everything ``instruction`` spells as code, most explicit first, without duplicates."""
    out: dict[str, Named] = {}

    def add(item: Named) -> None:
        if item.name not in out:
            out[item.name] = item

    for m in LINES.finditer(instruction):
        a, b = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(3))
        add(Named(f"{a}-{b}", "lines", True))
    for m in _RENAME_OLD.finditer(instruction):
        if m.group(1).lower() not in NOT_NAMES:
            add(Named(m.group(1).rstrip("."), None, True))
    taken = _kind_words(instruction, add)
    # "parse_binding()" must exist; a backticked name may be a variable ("rename `lines`").
    for pattern, sure in ((_CALL, True), (_TICKED, False)):
        for m in pattern.finditer(instruction):
            if any(a <= m.start() < b for a, b in taken):
                continue
            before = instruction[max(0, m.start() - 24):m.start()]
            add(Named(m.group(1).rstrip("."), None, sure, bool(_CREATE.search(before))))
    if _MAIN_BLOCK.search(instruction):  # "the main block at the bottom": the ``if __name__ == '__main__':`` block
        add(Named("__main__", None, False))
    for m in _CODE_WORD.finditer(instruction):
        word = m.group(1).rstrip(".")
        if looks_like_code(word):
            add(Named(word, None, False))
    return list(out.values())


def _kind_words(instruction: str, add: Callable[[Named], None]) -> list[tuple[int, int]]:
    """Names after "function", "method", "class", "def"; returns the spans they cover."""
    taken: list[tuple[int, int]] = []
    for m in _KIND_WORD.finditer(instruction):
        before = instruction[max(0, m.start() - 24):m.start()]
        name, kind = m.group(2).rstrip("."), _KINDS[m.group(1)]
        if name.lower() in NOT_NAMES | PROSE_AFTER_KIND:  # "the class that parses", "the base class does" name nothing
            continue
        # "the scheduler class saying what it does": the name came before the kind word, a plain word after it
        prev = re.findall(r"[\w`]+", before)
        if prev and not looks_like_code(name) and prev[-1].strip("`").lower() not in NOT_NAMES | BEFORE_KIND:
            continue
        # "locals inside a function report True": any function, then a verb; "add a function foo" creates one
        if prev and prev[-1].lower() in ("a", "an") and not looks_like_code(name) and not _CREATE.search(before):
            continue
        add(Named(name, kind, True, bool(_CREATE.search(before))))
        taken.append(m.span())
    return taken


_EXAMPLE_DEF = lazy.regex(r"\b(?:def|class)\s+([A-Za-z_]\w*)\s*[(:]")


def example_defs(instruction: str) -> frozenset[str]:
    """The defs the instruction's own example code defines ("for def f(a): y = a, ..."): the user's code, not the
    file's, so no name the file must define."""
    return frozenset(m.group(1) for m in _EXAMPLE_DEF.finditer(instruction))


def looks_like_code(word: str) -> bool:
    """snake_case, camelCase, dotted or dunder: never a plain English word."""
    return "_" in word.strip("_") or "." in word or word.startswith("__") or any(c.isupper() for c in word[1:])


# a string or bytes literal inside a backticked span (`b'.git'`, `'[!a]'`): its words are text, not names
_STRING = lazy.regex(r"""(?<!\w)[rRbBuUfF]{0,2}(?:'[^']*'|"[^"]*")""")
# a backticked call (`f('')`, `C.m(x)`): its callee is group 1 (the names reader and ticked_words share it)
CALL_SPAN = lazy.regex(r"([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)\(.*\)", re.S)
_QUOTED = lazy.regex(r"'[^'`]*'|\"[^\"`]*\"")
_FROM_MODULE = lazy.regex(r"^\s*from\s+[.\w]+\s+import\b")


def ticked_words(instruction: str, defined: Callable[[str], bool] = lambda _: False) -> tuple[str, ...]:
    """The identifiers inside `backticks` (``strict`` and ``bool`` of `strict: bool = False`).

    The text of a string literal is not one (`b'.git'`, `{'b': ['a']}`, `is_hop_by_hop('Connection')`
    name no b, git or Connection), nor the module of `from m import x` (x is the code asked about), nor a
    word the instruction quotes as a value elsewhere ("with `{'b': ['a']}` ... `b` never becomes ready"),
    nor the arguments of a call to a def that exists (``defined``): `request_uri(env)` is an example,
    `_hue(r, g, b)` a new def's signature.
    """
    values = {v[1:-1] for v in _QUOTED.findall(instruction)}
    out = []
    for span in _BACKTICKED.findall(instruction):
        # `from ._re import (...)`: the names imported are the code, the module is where they come from
        code = _FROM_MODULE.sub(" ", _STRING.sub(" ", span)).strip()
        call = CALL_SPAN.fullmatch(code)
        out += _WORD.findall(call.group(1) if call and defined(call.group(1)) else code)
    return tuple(dict.fromkeys(w for w in out if w not in values))


def renamed_olds(instruction: str) -> set[str]:
    """The names after "rename" (the old names, as written)."""
    return {m.group(1).rstrip(".") for m in _RENAME_OLD.finditer(instruction)}


def is_new_name(instruction: str, name: str) -> bool:
    """``name`` is the new name of a rename ("rename a to b") or a def made by the edit ("pull that into one private
    function f(x)", "out into a C._f() helper"): it cannot exist yet."""
    said = re.escape(name)
    made = rf"\binto\s+(?:an?|one|a\s+single|its\s+own|their\s+own)\s+(?:[\w-]+\s+){{0,3}}`?{said}\b"
    if re.search(made, instruction, re.I):
        return True
    return bool(re.search(rf"\b(to|into|as)\s+`?{said}\b", instruction)) and bool(
        re.search(r"\brenam(e|es|ed|ing)\b", instruction, re.I))


# --- substitutions -------------------------------------------------------------------------------

_LITERAL = r"(-?\d+(?:\.\d+)?|'[^']*'|\"[^\"]*\"|`[^`]+`)"
_FROM_TO = lazy.regex(r"\bfrom\s+" + _LITERAL + r"\s+(?:to|into)\s+" + _LITERAL)
_HANDLE = lazy.regex(r"\bhandl(?:e|es|ing)\b", re.I)
# an error the change is about: raising one, a crash, input to reject ("raise ValueError", "crashes on ''", "reject
# negative n"); without such words a fix that only adds a raise answers a report of a wrong result with an error
_ERRORS = lazy.regex(r"\b(?:rais|throw|error|exception|crash|reject|refus|invalid|illegal|validat|check|guard|assert"
                     r"|fail|traceback|complain|forbid|disallow|accept|allow|warn|abort)\w*|\w+(?:Error|Exception)\b",
                     re.I)


def value_pairs(instruction: str) -> list[tuple[str, str]]:
    """(old, new) literal pairs of "change ... from 70 to 80" (numbers, quoted strings, `code`).

    Backticked code is a value only when it is an expression: "from `rc = ...` to `h = ...`" names a
    stretch of statements (where a block starts and ends), not a substitution.
    """
    out = []
    for m in _FROM_TO.finditer(instruction):
        a, b = (g[1:-1] if g.startswith("`") else g for g in (m.group(1), m.group(2)))
        if a != b and all(_expression(g) for g in (m.group(1), m.group(2)) if g.startswith("`")):
            out.append((a, b))
    return out


def _expression(ticked: str) -> bool:
    """Whether a backticked span is one Python expression (`None`, `()`, `x.strip()`), not a statement."""
    try:
        ast.parse(ticked.strip("`").strip(), mode="eval")
    except (SyntaxError, ValueError):
        return False
    return True


# "in the function `getline` only", "only in `getline`", "the local variable x in getline": one function
_CONFINED = (
    lazy.regex(r"\bin\s+(?:the\s+)?(?:function|method)\s+" + IDENT + r"\s+only\b", re.I),
    lazy.regex(r"\bin\s+" + IDENT + r"\s+only\b", re.I),
    lazy.regex(r"\bonly\s+in\s+(?:the\s+)?(?:function|method\s+)?" + IDENT, re.I),
    lazy.regex(r"\blocal\s+(?:variable|name|parameter)\s+`?\w+`?\s+(?:of|in)\s+(?:the\s+)?(?:function|method)?\s*"
               + IDENT, re.I),
    # "in _repr_iterable rename the local pieces to parts": a sentence that opens on where it happens
    lazy.regex(r"(?:^|[.;:!?]\s+)in(?:side)?\s+(?:the\s+)?(?:function\s+|method\s+)?" + IDENT
               + r"\s*,?\s+renam", re.I),
)


def confined_to(instruction: str) -> str | None:
    """The one function or method an instruction confines its change to ("in the function X only"), else None."""
    for pattern in _CONFINED:
        if m := pattern.search(instruction):
            return m.group(1).rstrip(".")
    return None


# --- the shape of the request ----------------------------------------------------------------------

# "Move the import of X ...", "Please move `f` below `g`": a request to move, not "the window does not move"
_MOVE = lazy.regex(r"(?:^|[.;:!]\s+)(?:please\s+)?move\b|\bmove\s+(?:the\s+)?(?:import|statement|line|lines|call|"
                   r"assignment|definition|block)\b", re.I)
# Verbs that make the names they take as object go away; the object runs to a preposition that names
# where the deletion happens ("remove the print from div": div stays) or to the end of the clause.
# A dot between identifier characters is part of a qualified name (`Sorter.__bool__`), not a full stop.
_ASKS_GONE = lazy.regex(r"\b(?:delet|remov|drop|replac|merg|inlin|renam|mov|extract|split|combin|get rid of)\w*"
                        r"(?P<obj>(?:(?!\b(?:from|in|inside|within|of|into|to|with|by|so|then|because|above|"
                        r"below|before|after|around|near|at|on|for)\b)(?:[^.;:!?\n]|\.(?=[A-Za-z_])))*)", re.I)
_QUALIFIED = lazy.regex(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")
_FILE = lazy.regex(r"(?<![\w/.-])[\w./-]*\w\.pyi?\b")
_TRANSFORMS = lazy.regex(r"\b(?:conver|turn|wrap|refactor|rewrit)\w*", re.I)
MORE_THAN_MOVE = lazy.regex(r"\b(?:helper|extract|refactor|creat|new|add|renam|chang|updat|rewrit|split|"
                            r"replac|convert|wrap)\w*", re.I)
_ADD_PARAM = lazy.regex(r"\b(?:add\w*|give\w*|accept\w*|introduc\w*)\s+(?:an?\s+|the\s+)?"
                        r"(?:(?:new|optional|keyword|extra|boolean|bool)\s+)*"
                        r"(?:param(?:eter)?|arg(?:ument)?|kwarg|keyword argument)\s+`?([A-Za-z_]\w*)", re.I)
_TO_TARGET = lazy.regex(r"\b(?:to|of|for)\s+(?:the\s+)?(?:function\s+|method\s+)?`?([A-Za-z_][\w.]*)`?")
_USE_IT = lazy.regex(r"\b(?:use|uses|using|pass|passes|forward|forwards)\s+(?:it|them)\b", re.I)
_DELETE_DEF = lazy.regex(r"\b(?:delete|remove|drop)\s+(?:the\s+)?(?:function|method|class)\s+`?([A-Za-z_][\w.]*)`?",
                         re.I)
_MODULE_DOC = lazy.regex(r"\bmodule(?:-level)?\s+docstring\b|\bdocstring\s+(?:to|for|at the top of)\s+"
                         r"(?:the|this)\s+(?:module|file)\b", re.I)
# Words that make a much shorter reply plausible, matched from a word's start ("cut" is not inside
# "execute"). "replace" is not one: "replace X with Y" says nothing about losing the rest.
_SHRINK = lazy.regex(r"\b(?:remov|delet|drop|strip|shorten|trim|simplif|condens|shrink|clean|dedup|minif)\w*"
                     r"|\bcut(?:s|ting)?\b|\bget rid of\b", re.I)
EVERYWHERE = lazy.regex(r"\b(everywhere|across the (repo|repository|project|code ?base)|in all files|"
                        r"all (uses|usages|callers|call sites|references))\b", re.I)
# "everywhere in this file", "all uses in the file": the file, not the repository
_IN_THIS_FILE = lazy.regex(r"\s*(?:it\s+is\s+used\s+|it's\s+used\s+)?(?:in|of|across|throughout)\s+(?:this|the)\s+"
                           r"(?:file|module)\b", re.I)
# "where g and h call it": the callers, named; "call it Y" names the new name of a rename instead
CALLERS = lazy.regex(r"(?<!nobody )(?<!no one )(?<!nothing )(?<!never )"  # "delete f, nobody calls it": no callers
                     r"\b(callers?|call sites?|(?<!it )(?<!that )(?<!which )calls|callees|every call|its uses)\b"
                     r"|\bcall\s+(?:it|them)(?=\s*(?:[.,;:!?)]|$))"
                     # "have b32encode and b32hexencode pass pad=True": the callers, told what to pass
                     r"|\b(?:have|make|let)\s+[^.;]*?\bpass(?:es)?\s+`?[A-Za-z_]\w*\s*=(?!=)", re.I)


# "the import of os", "the functools import", "import time", "the alias insort", "the line insort = insort_right"
_NOT_BOUND = (r"(?!(?:the|a|an|of|to|after|before|below|above|under|right|directly|just|every|each|all|so|that|"
              r"should|is|comes|goes|sits|at|in|on|from)\b)")
_STATEMENTS = (lazy.regex(r"\bimport\s+(?:of\s+)?`?" + _NOT_BOUND + r"([A-Za-z_]\w*)", re.I),
               lazy.regex(r"`?\b" + _NOT_BOUND + r"([A-Za-z_]\w*)`?\s+import\b", re.I),
               lazy.regex(r"\b(?:alias|assignment)\s+`?([A-Za-z_]\w*)", re.I),
               lazy.regex(r"`?\b" + _NOT_BOUND + r"([A-Za-z_]\w*)`?\s+alias\b", re.I),
               lazy.regex(r"`?\b([A-Za-z_]\w*)\s*=\s*[A-Za-z_]\w*`?(?!\s*\()"))


def statement_names(instruction: str) -> tuple[str, ...]:
    """The names of module-level statements (imports, assignments) the instruction names, in its order.

    "the import of os", "the functools import", "import time", "the alias insort", "insort = insort_right".
    """
    found = sorted((m.start(1), m.group(1)) for p in _STATEMENTS for m in p.finditer(instruction))
    return tuple(dict.fromkeys(n for _, n in found if n.lower() not in NOT_NAMES and n.lower() not in VERB_WORDS))


# verbs that may stand before "import" without naming what is imported ("move import os")
VERB_WORDS = frozenset({"move", "put", "place", "reorder", "delete", "remove", "drop", "add", "sort"})


def asked_gone(instruction: str) -> frozenset[str]:
    """The names an instruction asks to make go away: the objects of delete, remove, merge, rename, move...

    "refactor `div` to raise ValueError" asks for none; "remove the print from div" for none either
    (div is where the removal happens); "delete f and g" for f and g.
    """
    return frozenset(w for m in _ASKS_GONE.finditer(instruction) for w in _QUALIFIED.findall(m.group("obj")))


# "make f ignore x", "stop using the x parameter", "f shouldn't read x"; "x should be ignored", "the x passed to f is
# unused": a value the instruction asks a def to stop using (its parameter may stay, for the callers)
_FILLER = r"(?:(?:the|its|their|any|an?|parameter|param|argument|arg|value|of|passed|given)\s+)*"
_IGNORES = (lazy.regex(r"(?:\bignor\w*|\bdisregard\w*|\bstop\w*\s+(?:using|reading)|\bno\s+longer\s+(?:use|read)\w*"
                       r"|(?:\bnot|n't|\bnever)\s+(?:use|read)\w*)\s+" + _FILLER + r"`?([A-Za-z_]\w*)`?", re.I),
            lazy.regex(r"`?([A-Za-z_]\w*)`?(?:\s+[\w`]+){0,3}?\s+(?:is|are|should\s+be|must\s+be|gets?|be)\s+"
                       r"(?:now\s+)?(?:ignored|unused|disregarded)\b", re.I))


def asked_ignored(instruction: str) -> frozenset[str]:
    """The names an instruction asks a def to stop using: "make indent ignore predicate" gives predicate."""
    return frozenset(m.group(1) for p in _IGNORES for m in p.finditer(instruction)
                     if m.group(1).lower() not in NOT_NAMES)


def param_request(instruction: str) -> tuple[str, str] | None:
    """(parameter, function) of "add a parameter P to F", when both are spelled."""
    m = _ADD_PARAM.search(instruction)
    if m is None:
        return None
    t = _TO_TARGET.search(instruction, m.end())
    return (m.group(1), t.group(1).rsplit(".", 1)[-1]) if t else None


def is_move(instruction: str) -> bool:
    """A pure move: "move X below Y", not "move X into a new helper"."""
    return bool(_MOVE.search(instruction)) and not MORE_THAN_MOVE.search(instruction)


def named_files(instruction: str) -> tuple[str, ...]:
    """File paths the instruction names (``tomllib/_re.py``)."""
    return tuple(dict.fromkeys(_FILE.findall(instruction)))


def delete_defs(instruction: str) -> frozenset[str]:
    """F of "delete the function F" (a kind word spelled): F must be gone."""
    return frozenset(m.group(1) for m in _DELETE_DEF.finditer(instruction))


_MEMBERS = lazy.regex(r"\bmethods?\b", re.I)  # "a docstring to every method of C": the members, not the class
# "that returns the number of nodes", "return True when ...", "-> bool": what a new def is for gives back a value
_RETURNS = lazy.regex(r"\breturns?\b(?!\s+(?:nothing|none)\b)|->\s*(?!None\b)[A-Za-z_]", re.I)
# "every function", "all the functions", "the undocumented functions": each def of the file, when none is named
_EVERY_DEF = lazy.regex(r"\b(?:every|each|all(?:\s+(?:of\s+)?the)?|the\s+undocumented)\s+(?:undocumented\s+)?"
                        r"(?:functions|function|defs|def)\b", re.I)


def flags(instruction: str) -> dict[str, bool]:
    """The yes/no details: handles, uses_new, keeps_names, module_doc, members, every_def, shrinks, callers,
    everywhere, errors, returns."""
    return {"handles": bool(_HANDLE.search(instruction)), "uses_new": bool(_USE_IT.search(instruction)),
            "errors": bool(_ERRORS.search(instruction)), "returns": bool(_RETURNS.search(instruction)),
            "members": bool(_MEMBERS.search(instruction)), "every_def": bool(_EVERY_DEF.search(instruction)),
            "keeps_names": bool(_TRANSFORMS.search(instruction)), "module_doc": bool(_MODULE_DOC.search(instruction)),
            "shrinks": bool(_SHRINK.search(instruction)), "callers": bool(CALLERS.search(instruction)),
            "everywhere": any(not _IN_THIS_FILE.match(instruction, m.end()) for m in EVERYWHERE.finditer(instruction))}
