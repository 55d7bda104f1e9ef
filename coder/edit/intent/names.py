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
from dataclasses import dataclass, replace

from coder import lazy
from coder.edit.intent import words
from coder.edit.intent.dunders import BUILTIN_DUNDERS, builtin_calls
from coder.edit.intent.phrases import phrases
from coder.edit.intent.spec import Symbol
from coder.edit.intent.symbols import SymbolTable
from coder.edit.intent.vocab import NOT_NAMES

# --- tokens --------------------------------------------------------------------------------------

TOKEN = lazy.regex(r"`(?P<tick>[^`]+)`|(?P<word>[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)(?P<call>\(\))?|(?P<p>[^\w\s])")
ARTICLES = frozenset({"the", "a", "an", "its", "this", "that", "new", "existing", "whole", "entire"})
KIND_WORDS = frozenset({"function", "func", "def", "method", "class", "helper", "functions", "methods"})
RELATIONS = frozenset({"to", "of", "from", "in", "into", "inside", "within", "on", "for", "after", "before",
                        "below", "above", "under", "following", "follows", "follow", "precedes", "precede", "than",
                        "at", "called", "named", "between"})
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
    "move": "move", "relocate": "move", "reorder": "move", "reorganise": "move", "reorganize": "move", "paste": "move",
    "extract": "extract", "document": "docstring", "annotate": "type_hints",
    "fix": "change", "repair": "change", "correct": "change", "debug": "change",
    "change": "change", "update": "change", "modify": "change", "make": "change", "simplify": "change",
    "refactor": "change", "rewrite": "change", "improve": "change", "optimize": "change", "optimise": "change",
    "replace": "change", "handle": "change", "let": "change", "convert": "transform", "use": "transform",
}
# words after which an adjective is said of something ("is hidden", "counts as hidden", "not empty")
_PREDICATIVE = frozenset({"as", "is", "are", "be", "being", "not", "t", "considered", "deemed"})
_CONSTRUCTOR = frozenset({"constructor", "initializer", "initialiser"})
# "to be able to tell me when ...", "so it can read them": a plain word between these is a verb, not a def
_MODAL = frozenset({"to", "can", "could", "will", "would", "should", "must", "may", "might"})
_OBJECT = frozenset({"me", "us", "you", "them", "him", "her", "it", "whether", "if", "when", "how", "what", "why"})
_SUBJECTVERBS = frozenset({"needs", "should", "must", "is", "does", "doesn", "has", "lacks", "raises", "returns",
                            "crashes", "fails", "breaks", "ignores", "drops", "loses", "misses", "can", "cannot",
                            "never", "always", "gives", "accepts", "takes", "belongs", "sits", "goes"})
@dataclass(frozen=True)
class Tok:
    """One word, backticked span or punctuation of the instruction."""

    text: str  # the identifier (no backticks, no "()"), or the punctuation
    start: int
    code: bool  # backticked, called, dotted, snake_case, camelCase or dunder
    word: bool  # an identifier, not punctuation
    called: bool = False  # called with arguments right there ("quote('')", `glob(b'*')`): an example call
    phrase: int = -1  # the quoted phrase of several words it stands in ('Calendar for <year>'), by its start


def tokens(instruction: str) -> list[Tok]:
    """The instruction as words (backticked spans whole) and punctuation.

    A backticked span is a word only when it is a name (`f`, `C.m`) or a call (`f('')`: the callee);
    a literal (`b'.git'`, `{'b': ['a']}`) or a statement names nothing. A word right before "(" is
    called ("quote('') gives ''"), so it is code, whatever English word it also is.
    """
    out = []
    phrases = [(m.start(), m.end()) for m in _QUOTED_PHRASE.finditer(instruction)]
    for m in TOKEN.finditer(instruction):
        if m.group("tick") is not None:
            inner = m.group("tick").strip().removesuffix("()")
            called = words.CALL_SPAN.fullmatch(inner)
            inner = called.group(1) if called else inner
            ident = re.fullmatch(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*", inner)
            out.append(Tok(inner, m.start(), True, bool(ident), bool(called)))
        elif m.group("word") is not None:
            w, args = m.group("word"), instruction.startswith("(", m.end())
            out.append(Tok(w, m.start(), bool(m.group("call")) or args or words.looks_like_code(w), True, args))
        else:
            out.append(Tok(m.group("p"), m.start(), False, False))
    # a word in a quoted phrase is its text ('Calendar for <year>', 'TextWrapper for <x>'), unless it reads as code
    # there: called, dotted or with an underscore ('fill() got an unexpected keyword', 'name _foo is not defined')
    return [replace(t, phrase=next(a for a, b in phrases if a < t.start < b))
            if t.word and not t.called and re.fullmatch(r"[A-Za-z]+", t.text)
            and not instruction.startswith("(", t.start + len(t.text)) and any(a < t.start < b for a, b in phrases)
            else t for t in out]


def _quoted_text(toks: list[Tok], table: SymbolTable) -> set[int]:
    """The words of quoted phrases that are text: a phrase with a word that names nothing ('Calendar for <year>');
    a quoted list of names ('dedent and indent') names them."""
    out: set[int] = set()
    for phrase in {t.phrase for t in toks if t.phrase >= 0}:
        held = [j for j, t in enumerate(toks) if t.phrase == phrase]
        if any(toks[j].text.lower() not in ("and", "or") and not table.lookup(toks[j].text) for j in held):
            out.update(held)
    return out


# a quoted phrase: words with a space between, in quotes ('Calendar for <year>', "Hello, world")
_QUOTED_PHRASE = lazy.regex(r"(?<![\w`])'[^'\n`]*\s[^'\n`]*'(?![\w`])|\"[^\"\n`]*\s[^\"\n`]*\"")


# --- names ---------------------------------------------------------------------------------------

@dataclass
class Mention:
    """A word that names a symbol: where it stands and what it could mean."""

    index: int  # its token
    word: str
    hits: list[Symbol]
    sure: bool  # code-looking or in a name position: not an English word by chance
    before: str  # the relation word before it ("to", "after", "of"...), "" when none
    size: int = 1  # its tokens: several for words that together spell a name ("the RGB to HLS conversion")


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
    possessive = nxt == "'" and i + 2 < len(toks) and toks[i + 2].text.lower() == "s"  # "quote's docstring"
    if prev in KIND_WORDS or nxt in KIND_WORDS:
        return True
    if i > 2 and prev == "s" and toks[i - 2].text == "'" and not toks[i - 3].code:
        return False  # "the INDENT branch's check:": a plain word's noun (C's m is qualified where C is code)
    if nxt == ":" or possessive:
        return True
    before, _ = prev_word(toks, i)
    if before == "" and nxt in _SUBJECTVERBS:  # "join needs a docstring", "parse crashes on #"
        return True
    return (before in RELATIONS or before in VERBS or before in ("put", "place", "give")
            or (before == "" and nxt in ("", ".", ":")))


def _class_by_case(toks: list[Tok], i: int, table: SymbolTable) -> bool:
    """A common word that is a class of the file, spelled as it: "a class docstring for Module", "Module class
    needs a docstring" (modulefinder's class Module; "module" alone is the file). Capitalized mid-sentence or
    said with "class"."""
    word = toks[i].text
    if not word[:1].isupper() or not any(h.kind == "class" and h.name == word for h in table.lookup(word)):
        return False
    near = {toks[j].text.lower() for j in (i - 1, i + 1) if 0 <= j < len(toks)}
    return "class" in near or (i > 0 and toks[i - 1].text not in (".", "!", "?", ":"))


def _a_verb(toks: list[Tok], i: int) -> bool:
    """Token ``i`` is a verb by its place: after "to" or a modal, before an object ("to tell me when")."""
    prev = toks[i - 1].text.lower() if i > 0 else ""
    nxt = toks[i + 1].text.lower() if i + 1 < len(toks) else ""
    return prev in _MODAL and nxt in _OBJECT


def mentions(toks: list[Tok], table: SymbolTable, *, everywhere: bool) -> list[Mention]:
    """Every word that names a symbol of ``table`` (the home file's only, unless ``everywhere``)."""
    out: list[Mention] = []
    dunders: list[int] = []  # mentions that are a builtin's call of the file's special method
    spans = phrases(toks, table, everywhere=everywhere)
    covered = {j for start, (end, _) in spans.items() for j in range(start, end)}
    # "titles the page 'Calendar for <year>'": a plain word of a quoted phrase is text, not a name
    covered |= _quoted_text(toks, table)
    for i, t in enumerate(toks):
        if i in spans:  # "the RGB to HLS conversion": the words together name rgb_to_hls
            end, hits = spans[i]
            out.append(Mention(i, hits[0].name, hits, True, prev_word(toks, i)[0], end - i))
            continue
        if not t.word or i in covered:
            continue
        low = t.text.lower()
        if low in NOT_NAMES and not t.code and not _class_by_case(toks, i, table):
            continue
        if low == table.module and ((i + 1 < len(toks) and toks[i + 1].text.lower() in ("'s", "'", "module")) or (
                i > 0 and toks[i - 1].text.lower() in ("m", "import", "python", "python3"))):
            # "gettext's _as_int helper", "the gettext module itself", "python -m random": the module, not a def
            continue
        hits, builtin = _lookup(toks, i, table)
        hits = _kept(hits, t.text, table, everywhere=everywhere)
        if not hits or (not t.code and _a_verb(toks, i)):
            continue
        sure = (t.code or low not in ENGLISH or name_position(toks, i) or low in _CONSTRUCTOR) and not (
            not t.code and _modifies(toks, i))
        # a verb that begins the instruction is the verb ("Add ...", "Fix ..."), never a name
        if i == 0 and low in (*VERBS, "add", "give", "create", "write") and not t.code:
            continue
        if builtin:
            dunders.append(len(out))
        out.append(Mention(i, t.text, hits, sure, prev_word(toks, i)[0]))
    if dunders:
        out = builtin_calls(out, dunders)
    # "wrap and fill", "of wrap, fill": a plain word coordinated with a name is a name too
    for a, b in itertools.pairwise(out):
        if a.sure and not b.sure and b.index - a.index == 2 and toks[a.index + 1].text.lower() in ("and", "or", ","):
            b.sure = True
    return out


# nouns that say the word before them is code ("a shlex object", "the queue property"), besides NOT_NAMES' own
# ("call", "docstring", "attribute", "parameter" ...)
_INSTANCE = frozenset({"object", "objects", "instance", "instances", "subclass", "subclasses", "property",
                       "properties", "attributes", "decorator", "generator", "callback", "wrapper", "iterator",
                       "coroutine", "classmethod", "staticmethod", "param", "arg"})
_NOUN_ADJ = frozenset({"same", "other", "different", "given", "whole", "entire", "current", "previous", "initial",
                       "default", "fixed", "random", "original"})


def _modifies(toks: list[Tok], i: int) -> bool:
    """A plain word said as an adjective: after a determiner, before a plain word that is no kind word ("picking the
    one with the median age": statistics' median is not meant; "the parse function" names parse)."""
    nxt = toks[i + 1] if i + 1 < len(toks) else None
    # "the two indent strings": one plain word may stand between
    det = (i > 0 and toks[i - 1].text.lower() in ("the", "a", "an")) or (
        i > 1 and toks[i - 2].text.lower() in ("the", "a", "an") and toks[i - 1].word and not toks[i - 1].code
        and toks[i - 1].text.islower() and toks[i - 1].text not in RELATIONS | KIND_WORDS
        and toks[i - 1].text not in VERBS)
    # "for the same seed", "with a different key": a noun after a determiner and one of these adjectives
    if (toks[i].text.islower() and i > 1 and toks[i - 2].text.lower() in ("the", "a", "an")
            and toks[i - 1].text.lower() in _NOUN_ADJ):
        return True
    return (toks[i].text.islower() and det and nxt is not None
            and nxt.word and not nxt.code and nxt.text.islower() and nxt.text not in KIND_WORDS | NOT_NAMES
            and nxt.text not in _INSTANCE and nxt.text not in RELATIONS and nxt.text not in _SUBJECTVERBS)


def _lookup(toks: list[Tok], i: int, table: SymbolTable) -> tuple[list[Symbol], bool]:
    """The symbols word ``i`` could name, and whether it is a builtin's call of the file's special method."""
    t, low = toks[i], toks[i].text.lower()
    # "pty.f": f of the module pty (the case counts: "MimeTypes.f" in mimetypes is the class's); not in a call shown
    # ("mimetypes.guess_type('A.HTML') gives None": the API used, its other words say where the fault is)
    said = t.text[len(table.module) + 1:] if t.text.startswith(table.module + ".") and not _shown_call(toks, i) \
        and not table.lookup(table.module) else t.text  # "netrc.authenticators": class netrc's method
    hits = table.lookup("__init__" if low in _CONSTRUCTOR and not _own_def(toks, i, table) else said)
    hits = [s for s in hits if s.qualname == said] if said != t.text else hits  # the module's own f, no method f
    if not hits and not t.code and name_position(toks, i) and len(low) > 2:
        hits = table.lookup("_" + t.text)  # "Fix parse: ..." where the file defines _parse
    if not hits and not t.code and prev_word(toks, i)[0] in _PREDICATIVE and len(low) > 2:
        # "b'.git' is not seen as hidden": the file's predicate of that word decides it (_ishidden)
        hits = next((h for p in ("is", "_is", "is_", "_is_") if (h := table.lookup(p + low))), [])
    if not hits and t.code and low in BUILTIN_DUNDERS:
        # "round(Fraction(5, 2)) gives 3": the builtin runs the file's __round__ (a report's call, not its def)
        return [s for s in table.lookup(BUILTIN_DUNDERS[low]) if s.rel == table.home], True
    return hits, False


def _shown_call(toks: list[Tok], i: int) -> bool:
    return i + 1 < len(toks) and toks[i + 1].text == "("


def _own_def(toks: list[Tok], i: int, table: SymbolTable) -> bool:
    """"constructor" said of the file's def of that name ("move def constructor up", copyreg), not of __init__."""
    said_as_def = toks[i].code or prev_word(toks, i)[0] == "def" or (
        i + 1 < len(toks) and toks[i + 1].text.lower() in KIND_WORDS)
    return bool(table.lookup(toks[i].text)) and (said_as_def or not table.lookup("__init__"))


def _kept(hits: list[Symbol], word: str, table: SymbolTable, *, everywhere: bool) -> list[Symbol]:
    """The hits a word keeps: one file's edit names its own symbols only, and the module's own name ("remove the
    CLI from mimetypes") names the module, not a symbol spelled the same in another case (class MimeTypes)."""
    if not everywhere:
        hits = [s for s in hits if s.rel == table.home]
    return [s for s in hits if s.name == word] if word.lower() == table.module else hits


def qualify(m: Mention, mentions: list[Mention], toks: list[Tok], table: SymbolTable, *,
            behaviour: bool = False) -> list[Symbol]:
    """``m``'s symbols, narrowed by a class named next to it ("m of the class C", "the method m from C", "C's m").

    ``behaviour``: the instruction changes what code does (a wrapper's name is then no sure pick)."""
    hits = m.hits
    for other in mentions:
        if other is m or not any(s.kind == "class" for s in other.hits):
            continue
        near = other.index - m.index
        rel = other.before
        # "m of the class C", "C's m", and "the Filter constructor": a class right before its member's word
        owns = (0 < near <= 5 and rel in ("of", "from", "in", "inside", "within", "on")) or near == -1 or (
            near < 0 and m.index - other.index <= 3 and any(t.text == "'s" or t.text == "'" for t in
                                                             toks[other.index + 1:m.index]))
        if not owns:
            continue
        for cls in (s for s in other.hits if s.kind == "class"):
            member = table.member(cls, "__init__" if m.word.lower() in _CONSTRUCTOR else m.word)
            if member is not None:
                return [member]
    kind = kind_hint(toks, m.index)
    if kind is not None and any(s.kind == kind for s in hits):
        hits = [s for s in hits if s.kind == kind]
    # a bare name that is exactly a top-level symbol means it ("fill": the function, not TextWrapper.fill), but
    # not for a change of behaviour when that function only wraps the method. When every return of the wrapper
    # hands back the method's call as it is, what it returns is built there: the method is meant, and the
    # wrapper gets the change through it ("repeat() should hand back its results sorted" is Timer.repeat, where
    # the list is made; on the H200, run 8, the model's reading picked the wrapper and only it was sorted).
    # Otherwise which one does the work is for the reading to decide.
    exact = [s for s in hits if s.qualname == m.word]
    wrapped = [w for s in exact for w in _wrapped(table, s, hits, toks, mentions)] if behaviour else []
    if wrapped:
        calls = table.calls.get((exact[0].rel, exact[0].qualname))
        return wrapped if calls is not None and calls.hands_back else hits
    return exact or hits


def _wrapped(table: SymbolTable, function: Symbol, hits: list[Symbol], toks: list[Tok],
             mentions: list[Mention]) -> list[Symbol]:
    """The methods of its own name among ``hits`` that ``function`` only stands for (a convenience wrapper the
    words do not pin down): none when they name a parameter only the function takes ("the default width of
    wrap"), nor when they name the method's class too (its member would be read, and the class dropped)."""
    calls = table.calls.get((function.rel, function.qualname))
    methods = [s for s in hits if s.kind == "method" and s.rel == function.rel and s.name == function.name]
    if calls is None or not calls.wraps_method or not methods:
        return []
    own = set(table.params.get((function.rel, function.qualname), ())) - {function.name}
    own -= {p for s in methods for p in table.params.get((s.rel, s.qualname), ())}
    named = {s.qualname for o in mentions for s in o.hits if s.kind == "class"}
    if own & {t.text for t in toks} or any(s.qualname.rpartition(".")[0] in named for s in methods):
        return []
    return methods


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


def resolve(mentions: list[Mention], toks: list[Tok], table: SymbolTable, renames: list[tuple[str, str]], *,
            behaviour: bool = False) -> tuple[dict[int, Symbol], list[str], list[str]]:
    """(the symbol each sure mention names, the words that could name several, the plain words left in doubt);
    ``behaviour`` as for :func:`qualify`."""
    chosen: dict[int, Symbol] = {}
    ambiguous: list[str] = []
    doubtful: list[str] = []
    olds = {a for a, _ in renames}
    for m in mentions:
        hits = qualify(m, mentions, toks, table, behaviour=behaviour)
        if not m.sure:
            doubtful.append(m.word)
        elif len(hits) == 1:
            chosen[m.index] = hits[0]
        elif len({(s.rel, s.qualname) for s in hits}) > 1 and m.word not in olds:
            # "Queue should default to maxsize=1000 (in __init__)": the member of the class named beside it
            classes = {s.qualname for o in mentions if o is not m and o.sure for s in o.hits if s.kind == "class"}
            owned = [s for s in hits if s.qualname.rpartition(".")[0] in classes] or list(dict.fromkeys(
                s for c in classes for s in table.inherited(f"{c}.{m.word}") if s in hits))  # a base's member
            if len(owned) == 1:
                chosen[m.index] = owned[0]
            elif not (olds and all(len(table.lookup(o)) == 1 for o in olds)):
                # a rename changes every definition of the name: not ambiguous; and where the one def renamed is
                # called ("called from the select() of every selector class") leaves nothing to choose either
                ambiguous.append(m.word)
    return chosen, ambiguous, doubtful
