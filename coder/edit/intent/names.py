"""Names resolved against the code: which words of an instruction name which symbols.

A word names a symbol when it equals a def or class of the files (qualified or by its last
parts), backticked or bare, whatever its case. A plain English word that is also a symbol
("fill", "join", "main") names it only where a name stands: next to a kind word ("the fill
function"), after a relation word or a verb ("a docstring to join", "Fix parse: ..."), or as
the sentence's subject ("join needs a docstring"). Relation words around a class qualify a
member: "m of the class C", "the method m from C", "m in C", "C's m".
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass

from coder.edit.intent import words
from coder.edit.intent.spec import Symbol
from coder.edit.intent.symbols import SymbolTable

# --- tokens --------------------------------------------------------------------------------------

TOKEN = re.compile(r"`(?P<tick>[^`]+)`|(?P<word>[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)(?P<call>\(\))?|(?P<p>[^\w\s])")
ARTICLES = frozenset({"the", "a", "an", "its", "this", "that", "new", "existing", "whole", "entire"})
KIND_WORDS = frozenset({"function", "func", "def", "method", "class", "helper", "functions", "methods"})
RELATIONS = frozenset({"to", "of", "from", "in", "into", "inside", "within", "on", "for", "after", "before",
                        "below", "above", "under", "following", "follows", "precedes", "than", "at", "called",
                        "named"})
# Plain English words that are also common function names: a bare one names a symbol only where a
# name stands (after a kind word or a relation word, or as the verb's object before a colon).
ENGLISH = frozenset({
    "add", "get", "set", "put", "make", "use", "run", "call", "read", "write", "open", "close", "check", "test",
    "find", "join", "split", "format", "print", "sort", "copy", "update", "remove", "delete", "move", "rename",
    "return", "load", "dump", "save", "start", "stop", "clear", "reset", "send", "handle", "fix", "change", "error",
    "value", "values", "name", "names", "type", "types", "list", "dict", "line", "lines", "file", "files", "key",
    "keys", "items", "item", "data", "result", "results", "self", "it", "is", "in", "to", "all", "each", "every",
    "one", "new", "old", "first", "last", "next", "empty", "full", "count", "size", "length", "index", "main",
    "help", "show", "parse", "quote", "wrap", "fill", "match", "filter", "escape", "token", "tokens", "push",
    "pop", "task", "done", "insort", "warning", "info", "debug", "version", "path",
})
# a bare name that is one of these words needs a name position; these verbs make the next word one
VERBS = {
    "rename": "rename", "renaming": "rename",
    "delete": "delete", "remove": "delete", "drop": "delete", "eliminate": "delete", "erase": "delete",
    "move": "move", "relocate": "move", "reorder": "move", "reorganise": "move", "reorganize": "move",
    "extract": "extract", "document": "docstring", "annotate": "type_hints",
    "fix": "change", "repair": "change", "correct": "change", "debug": "change",
    "change": "change", "update": "change", "modify": "change", "make": "change", "simplify": "change",
    "refactor": "change", "rewrite": "change", "improve": "change", "optimize": "change", "optimise": "change",
    "replace": "change", "handle": "change", "let": "change", "convert": "transform", "use": "transform",
}
_CONSTRUCTOR = frozenset({"constructor", "initializer", "initialiser"})
_SUBJECTVERBS = frozenset({"needs", "should", "must", "is", "does", "doesn", "has", "lacks", "raises", "returns",
                            "crashes", "fails", "breaks", "ignores", "drops", "loses", "misses", "can", "cannot",
                            "never", "always", "gives", "accepts", "takes"})
@dataclass(frozen=True)
class Tok:
    """One word, backticked span or punctuation of the instruction."""

    text: str  # the identifier (no backticks, no "()"), or the punctuation
    start: int
    code: bool  # backticked, called, dotted, snake_case, camelCase or dunder
    word: bool  # an identifier, not punctuation


def tokens(instruction: str) -> list[Tok]:
    """The instruction as words (backticked spans whole) and punctuation."""
    out = []
    for m in TOKEN.finditer(instruction):
        if m.group("tick") is not None:
            inner = m.group("tick").strip().removesuffix("()")
            ident = re.fullmatch(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*", inner)
            out.append(Tok(inner, m.start(), True, bool(ident)))
        elif m.group("word") is not None:
            w = m.group("word")
            out.append(Tok(w, m.start(), bool(m.group("call")) or words.looks_like_code(w), True))
        else:
            out.append(Tok(m.group("p"), m.start(), False, False))
    return out


# --- names ---------------------------------------------------------------------------------------

@dataclass
class Mention:
    """A word that names a symbol: where it stands and what it could mean."""

    index: int  # its token
    word: str
    hits: list[Symbol]
    sure: bool  # code-looking or in a name position: not an English word by chance
    before: str  # the relation word before it ("to", "after", "of"...), "" when none


def prev_word(toks: list[Tok], i: int) -> tuple[str, int]:
    """The nearest word before token ``i`` that is not an article or a kind word, and its index."""
    j = i - 1
    while j >= 0 and toks[j].word and (toks[j].text.lower() in ARTICLES or toks[j].text.lower() in KIND_WORDS):
        j -= 1
    if j < 0 or not toks[j].word:
        return ("", j) if j < 0 else (toks[j].text, j)
    return toks[j].text.lower(), j


def name_position(toks: list[Tok], i: int) -> bool:
    """Where a name stands: next to a kind word, after a relation word or a verb, or before a colon."""
    prev = toks[i - 1].text.lower() if i > 0 else ""
    nxt = toks[i + 1].text.lower() if i + 1 < len(toks) else ""
    if prev in KIND_WORDS or nxt in KIND_WORDS or nxt in ("'s", ":"):
        return True
    before, _ = prev_word(toks, i)
    if before == "" and nxt in _SUBJECTVERBS:  # "join needs a docstring", "parse crashes on #"
        return True
    return (before in RELATIONS or before in VERBS or before in ("put", "place", "give")
            or (before == "" and nxt in ("", ".", ":")))


def mentions(toks: list[Tok], table: SymbolTable, *, everywhere: bool) -> list[Mention]:
    """Every word that names a symbol of ``table`` (the home file's only, unless ``everywhere``)."""
    out = []
    for i, t in enumerate(toks):
        if not t.word:
            continue
        low = t.text.lower()
        if low in words.NOT_NAMES and not t.code:
            continue
        hits = table.lookup("__init__" if low in _CONSTRUCTOR else t.text)  # "the constructor": __init__
        if not hits and not t.code and name_position(toks, i) and len(low) > 2:
            hits = table.lookup("_" + t.text)  # "Fix parse: ..." where the file defines _parse
        if not everywhere:  # one file's edit: its own symbols only
            hits = [s for s in hits if s.rel == table.home]
        if not hits:
            continue
        sure = t.code or low not in ENGLISH or name_position(toks, i) or low in _CONSTRUCTOR
        # a verb that begins the instruction is the verb ("Add ...", "Fix ..."), never a name
        if i == 0 and low in (*VERBS, "add", "give", "create", "write") and not t.code:
            continue
        out.append(Mention(i, t.text, hits, sure, prev_word(toks, i)[0]))
    # "wrap and fill", "of wrap, fill": a plain word coordinated with a name is a name too
    for a, b in itertools.pairwise(out):
        if a.sure and not b.sure and b.index - a.index == 2 and toks[a.index + 1].text.lower() in ("and", "or", ","):
            b.sure = True
    return out


def qualify(m: Mention, mentions: list[Mention], toks: list[Tok], table: SymbolTable) -> list[Symbol]:
    """``m``'s symbols, narrowed by a class named next to it ("m of the class C", "the method m from C", "C's m")."""
    hits = m.hits
    for other in mentions:
        if other is m or not any(s.kind == "class" for s in other.hits):
            continue
        near = other.index - m.index
        rel = other.before
        owns = (0 < near <= 5 and rel in ("of", "from", "in", "inside", "within", "on")) or (
            near < 0 and m.index - other.index <= 3 and any(t.text == "'s" or t.text == "'" for t in
                                                             toks[other.index + 1:m.index]))
        if not owns:
            continue
        for cls in (s for s in other.hits if s.kind == "class"):
            member = table.member(cls, m.word)
            if member is not None:
                return [member]
    kind = kind_hint(toks, m.index)
    if kind is not None and any(s.kind == kind for s in hits):
        hits = [s for s in hits if s.kind == kind]
    # a bare name that is exactly a top-level symbol means it ("fill": the function, not TextWrapper.fill)
    exact = [s for s in hits if s.qualname == m.word]
    return exact or hits


_KIND_OF = {"function": "function", "functions": "function", "func": "function", "def": "function",
            "method": "method", "methods": "method", "class": "class", "classes": "class"}


def kind_hint(toks: list[Tok], i: int) -> str | None:
    """The kind word that governs name ``i``: "the functions `wrap` and `fill`", "the `run` method"."""
    nxt = toks[i + 1].text.lower() if i + 1 < len(toks) else ""
    if nxt in _KIND_OF:
        return _KIND_OF[nxt]
    j = i - 1
    while j >= 0 and (toks[j].text in (",", "and", "or") or toks[j].text.lower() in ARTICLES or (
            toks[j].code and toks[j].word)):
        j -= 1
    return _KIND_OF.get(toks[j].text.lower()) if j >= 0 else None


