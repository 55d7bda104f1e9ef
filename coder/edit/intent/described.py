"""A def described instead of named: "the private helper that picks TIMESTAMP or CHECKED_HASH depending on
whether SOURCE_DATE_EPOCH is set", "a dead function in codeop that compares the reprs of two syntax errors",
"the enum in py_compile that says how a .pyc gets checked".

Users describe what they cannot spell. Such a description names no symbol, so the grammar found no target, and a
targeted request (rename it, move it, document it) became a change of the whole file, or took a plain word of
the description ("grouped statistics", "close()") for the target. Seen on the H200 in runs 15 to 17, on the
fresh sets: five pairs, each read wrong.

A description is an article, at most three adjectives, a kind word (helper, function, method, class, enum,
property), then what it does: a clause opened by "that" or "which", perhaps after where it is ("in codeop",
"near the top of gzip.py"). It runs to the sentence's end. The def meant is the one of that kind whose own code
shares the most words with the clause, each word weighted by how rare it is among the file's defs (BM25 over
the parts of the identifiers, the words of the strings and of the docstring; a word of the def's own name counts
twice). "private" keeps the ``_`` names, "dead" the defs nothing else in the file names, "enum" the ``Enum``
classes; a name after "in" ("the helper in _strptime") is where the def is, never the def. A def is taken only when
it matches at least two words of the clause (or is the only one of its kind) and scores :data:`RATIO` times the
next; else, when nothing else is the target, the :data:`MODEL_PICKS` best go to the model's reading
(:mod:`coder.edit.intent.model_read`), whose answer is an enum of them. Once a def is taken, the description's own
words are no verb, no target and no extraction's new name.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass

from coder import lazy
from coder.edit.intent.names import Mention, Tok
from coder.edit.intent.spec import Action, Symbol
from coder.edit.intent.symbols import SymbolTable
from coder.edit.intent.words import looks_like_code

RATIO = 1.5  # the def taken scores this many times the next one at least
MODEL_PICKS = 4  # else the model reader chooses among this many best (when a model runs)
_KINDS = {"helper": ("function", "method"), "function": ("function", "method"), "func": ("function", "method"),
          "fn": ("function", "method"), "routine": ("function", "method"), "method": ("method",),
          "property": ("method",), "class": ("class",), "enum": ("class",)}
_ADJECTIVES = r"(?:(?!(?:to|of|in|for|every|each|all|and|with)\b)[\w-]+\s+){0,3}?"  # "every method of": no adjective
# "the little helper near the top of gzip.py that packs ...": article, adjectives, kind, where, then what it does
_DESCRIPTION = lazy.regex(r"\b(?:the|a|an|one|its|[\w.]+'s)\s+(" + _ADJECTIVES + r")(" + "|".join(_KINDS)
                          + r")\s+(?:(?:in|of|near|at|inside|from)\s+((?:[^.;:!?]|\.(?=\w)){0,40}?)\s+)?"
                          r"(?:that|which)\s+"
                          r"(.+?)(?=[;:!?]|\.(?:\s|$)|$)", re.I | re.S)
_NEW_NAME = lazy.regex(r"\b(?:(?:to\s+)?be|is|are)\s+(?:called|named|renamed)\b|\b(?:call|name|rename)\s+it\b", re.I)
_CALLED = lazy.regex(r"\b(?:(?:to\s+)?be\s+(?:called|named|renamed\s+to)|(?:call|name|rename)\s+it(?:\s+to)?)\s+"
                     r"`?([A-Za-z_]\w*)`?", re.I)
_RENAME_TO = lazy.regex(r"\brenam(?:e|ing)\b.*\bto\s+`?([A-Za-z_]\w*)`?", re.I | re.S)
_STOP_WORDS = (
    "a an the and or of in on at to for from by with as is are was be been being it its this that these those "
    "which who whose what when where how whether if then than so not no do does did has have had get gets got "
    "make makes just only also very some any all each every one two there here into out up down about over under "
    "near top bottom file module code says say said used uses use using called named name instead like would "
    "should could can may might will i we you they me my our your their depending between after before above "
    "below next sits sit lives live defined little small tiny big private public dead unused")
_STOP = frozenset(_STOP_WORDS.split())
_WORD = lazy.regex(r"[A-Za-z]+|\d+")
_PARTS = lazy.regex(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")


@dataclass(frozen=True)
class Described:
    """The def a description means, the description's token span, and why (said in the notes)."""

    symbol: Symbol | None  # None: no def leads clearly; ``candidates`` are those that match the most
    start: int  # first token of the description (its article)
    end: int  # the token after its last
    why: str  # "'the helper that packs a 32-bit int' read as write32u (pack, 32)"
    candidates: tuple[Symbol, ...] = ()
    clause: int = 0  # first token of what it does (after "that"): words there are no verb, no request

    @property
    def said(self) -> set[int]:
        """The tokens of what it does ("that turns the raw tables into ... objects")."""
        return set(range(self.clause, self.end))


def _stem(word: str) -> str:
    w = word.lower()
    for suffix in ("ing", "ies", "es", "ed", "s", "e"):
        if len(w) > len(suffix) + 2 and w.endswith(suffix):
            return w[: -len(suffix)] + ("y" if suffix == "ies" else "")
    return w


def _words(text: str) -> list[str]:
    """The stems of ``text``'s words and of its identifiers' parts (``write32u``: write, 32, u)."""
    out = []
    for m in _WORD.finditer(text.replace("_", " ")):
        for part in _PARTS.findall(m.group(0)) or [m.group(0)]:
            if part.lower() not in _STOP:
                out.append(_stem(part))
    return out


_DENIED = re.compile(r"\b(?:doesn'?t|does\s+not|don'?t|do\s+not|isn'?t|is\s+not|aren'?t)\s+(?:really\s+)?"
                     r"(?:exist|there|defined)\b|\bnon-?existent\b", re.I)
_CONTRACTED = re.compile(r"\b(\w+)['’](?:t|s|d|ll|re|ve|m)\b", re.I)


def find(instruction: str, toks: list[Tok], table: SymbolTable) -> Described | None:
    """The def of ``table``'s home file that a description in ``instruction`` means, if one clearly."""
    m = _DESCRIPTION.search(instruction)
    text = table.texts.get(table.home, "")
    if m is None or not text or not toks:
        return None
    adjectives, kind = m.group(1).lower().split(), m.group(2).lower()
    if "new" in adjectives or "another" in adjectives:  # "a new helper that ...": one to write, not one to find
        return None
    if any(looks_like_code(a) or table.lookup(a) for a in m.group(1).split()):  # "the _as_int helper that ...": named
        return None
    # "... to be called _default_mode", "rename the helper that ... to strip_margin": the new name says nothing of it
    cut = _NEW_NAME.search(m.group(4))  # the description ends where its name is said
    clause, stop = (m.group(4)[:cut.start()], m.start(4) + cut.start()) if cut else (m.group(4), m.end())
    clause = re.sub(rf"\b{re.escape(new)}\b", " ", clause) if (new := _new_name(instruction)) else clause
    if _DENIED.search(clause):  # "a parser class that doesn't exist": what the user looked for, not a def
        return None
    clause = _CONTRACTED.sub(r"\1", clause)  # "doesn't": no word "t" to match a def's one-letter name part
    where = set(re.findall(r"\w+", m.group(3) or ""))  # "the helper in _strptime": the container, not the helper
    pool = [s for s in _pool(table, text, kind, adjectives) if s.name not in where]
    # "sits between StatisticDiff and Frame": a def or class named in the clause says where it is, not what it does
    defined = {s.name for s in table.in_file()}
    said = Counter(_words(" ".join(w for w in re.findall(r"[\w.]+", f"{m.group(1)} {clause}")
                                   if w.rsplit(".", 1)[-1] not in defined)))  # "the factory class": factory too
    if not pool:
        return None
    scored = _scored(pool, text, said, set(_words(m.group(1)))) if len(pool) > 1 else [
        (1.0, pool[0], ("the only one",))]
    start = next(i for i, t in enumerate(toks) if t.start >= m.start())
    end = next((i for i, t in enumerate(toks) if t.start >= stop), len(toks))
    at = next((i for i, t in enumerate(toks) if t.start >= m.start(4)), end)
    shown = " ".join(m.group(0).split())
    shown = repr(shown if len(shown) <= 60 else shown[:57] + "...")
    top, second = scored[0], scored[1][0] if len(scored) > 1 else 0.0
    if (len(top[2]) >= 2 or len(pool) == 1) and top[0] >= RATIO * second:
        return Described(top[1], start, end, f"{shown} read as {top[1].qualname} ({', '.join(top[2])})", clause=at)
    near = tuple(s for score, s, _ in scored[:MODEL_PICKS] if score > 0)
    return Described(None, start, end, f"{shown} could mean {', '.join(s.qualname for s in near)}", near,
                     clause=at) if len(near) > 1 else None


def applied(described: Described | None, found: list[Mention], module: str, instruction: str,
            renames: list[tuple[str, str]], action: Action) -> tuple[list[Mention], list[tuple[str, str]], Action]:
    """The mentions, renames and action once a def is described: the description's plain words name nothing, and
    a wording that names only the new name renames the described def ("I'd like the helper that ... to be called
    _default_mode", "... should be private: name it _write_u32")."""
    if described is None:
        return found, renames, action
    inside = [m for m in found if described.start <= m.index < described.end]
    if described.symbol is None:  # "the helper in _strptime that ...": the module, not its function _strptime
        return [m for m in found if m not in inside or m.word.lower() != module], renames, action
    found = [m for m in found if m not in inside]  # what it does and where it is: no target
    if action in ("docstring", "comment"):  # "Write it a docstring: it forwards send, throw, close ...": what it says
        found = [m for m in found if m.index < described.start]
    if renames:
        return found, renames, action
    new = _new_name(instruction)
    return (found, renames, action) if new in (None, described.symbol.name) else (
        found, [(described.symbol.name, str(new))], "rename")


def _new_name(instruction: str) -> str | None:
    """The new name a wording gives a def it does not name ("... to be called X", "name it X", "rename ... to X")."""
    m = _CALLED.search(instruction) or _RENAME_TO.search(instruction)
    return m.group(1) if m is not None and (looks_like_code(m.group(1)) or f"`{m.group(1)}`" in instruction) else None


def targets(described: Described | None, found: list[Symbol], action: str) -> list[Symbol]:
    """``found`` led by the described def; a rename, move or delete of it alone (the rest said where it is)."""
    if described is None or described.symbol is None:
        return found
    if action in ("rename", "move", "delete"):
        return [described.symbol]
    return [described.symbol, *(s for s in found if s != described.symbol)]


def choices(described: Described | None, targets: list[Symbol], action: str, ambiguous: list[str]) -> list[str]:
    """The words the model reader settles: the defs a description could mean, when nothing else is the target."""
    if described is None or described.symbol is not None or targets or action in ("rename", "unknown"):
        return ambiguous
    return [s.qualname for s in described.candidates]


def _pool(table: SymbolTable, text: str, kind: str, adjectives: list[str]) -> list[Symbol]:
    lines = text.splitlines()
    pool = [s for s in table.in_file() if s.kind in _KINDS[kind]]
    if kind == "enum":
        pool = [s for s in pool if re.search(r"\b(?:Int|Str)?(?:Enum|Flag)\b", lines[s.start - 1] if s.start <= len(
            lines) else "")]
    if kind == "property":
        pool = [s for s in pool if any("@property" in line for line in lines[max(0, s.start - 3):s.start])]
    if "private" in adjectives:
        pool = [s for s in pool if s.name.startswith("_") and not s.name.endswith("__")]
    if "dead" in adjectives or "unused" in adjectives:
        pool = [s for s in pool if len(re.findall(rf"\b{re.escape(s.name)}\b", text)) == 1]
    return pool


def _scored(pool: list[Symbol], text: str, said: Counter[str],
            nouns: set[str]) -> list[tuple[float, Symbol, tuple[str, ...]]]:
    """BM25 of each def's words against the clause's, best first, with the words each matched; a word of the def's
    name counts twice, one the user put before the kind word ("the factory class") four times."""
    lines = text.splitlines()
    bags = {s.qualname: Counter(_words("\n".join(lines[s.start - 1:s.end]))) for s in pool}
    names = {s.qualname: set(_words(s.name)) for s in pool}
    df = Counter(w for bag in bags.values() for w in bag)
    n, avg = len(pool), sum(sum(b.values()) for b in bags.values()) / len(pool) or 1.0
    scored = []
    for s in pool:
        bag, size = bags[s.qualname], sum(bags[s.qualname].values())
        score, matched = 0.0, []
        for w in said:
            if tf := bag.get(w, 0):
                idf = math.log(1 + (n - df[w] + 0.5) / (df[w] + 0.5))
                weight = (4 if w in nouns else 2) if w in names[s.qualname] else 1
                score += idf * tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * size / avg)) * weight
                matched.append(w)
        scored.append((score, s, tuple(matched)))
    return sorted(scored, key=lambda x: -x[0])


def blanked(instruction: str, described: Described | None, toks: list[Tok]) -> str:
    """``instruction`` with what the description says the def does blanked: "turns the raw tables into Function
    objects" is what the described def does, not an extraction into a function ("Queue needs a clear method which
    drops ..." keeps its head: the new method is asked there)."""
    if described is None:
        return instruction
    start = toks[described.clause].start if described.clause < len(toks) else len(instruction)
    end = toks[described.end].start if described.end < len(toks) else len(instruction)
    return instruction[:start] + " " * (end - start) + instruction[end:]


_INSTANCE = lazy.regex(r"`?([A-Za-z_]\w*)`?\s+(?:instance|object|singleton)\b")


def instance_renamed(instruction: str, table: SymbolTable, renames: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """"the module-level SymbolTableFactory instance has a camelCase name. Please call it _new_symbol_table": the
    variable bound to the class's one module-level instance is renamed, not the class (run 18, fresh4)."""
    new = _new_name(instruction)
    m = _INSTANCE.search(instruction)
    text = table.texts.get(table.home, "")
    if (renames and not any(old == m.group(1) for old, _ in renames if m)) or new is None or m is None or not any(
            s.kind == "class" and s.name == m.group(1) for s in table.in_file()):
        return renames
    bound = re.findall(rf"^([A-Za-z_]\w*)\s*=\s*{re.escape(m.group(1))}\(", text, re.M)
    return [(bound[0], new)] if len(bound) == 1 and bound[0] != new else renames
