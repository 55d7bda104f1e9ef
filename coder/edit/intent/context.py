"""Names said for context, not as targets: an aside in parentheses, a comparison ("the same as in encode").

"add type hints to _keep_alive (memo is the dict deepcopy passes around)" edits _keep_alive only:
deepcopy explains what memo is. "encodestring needs a docstring (quotetabs means the same as in
encode)" documents encodestring. Taking such a name as a second target made the region span both
defs and the reply was refused as shrunk (seen on the H200). Such a name may still say *where*
("move it there (just before the timeit function)"): the anchor is read from every mention. For a
comment, a docstring or hints, a method called in a statement the wording quotes is context too, and so is
a name in the description of the line a comment goes on ("the line in _wrap_chunks that takes the indent off
the width": indent is a function of the file, and a word on that line), and, for text added to the code, a name
after the colon that follows the first one ("Document f: it is what g falls back to when ...").
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from coder.edit.intent.names import ARTICLES, KIND_WORDS

if TYPE_CHECKING:
    from coder.edit.intent.names import Mention, Tok
    from coder.edit.intent.spec import Action

# "like g", "the same as in g", "as with g", "similar to g", "unlike g": g is compared with, not edited
_COMPARED = frozenset({("like",), ("unlike",), ("as", "in"), ("as", "with"), ("as", "for"), ("same", "as"),
                       ("similar", "to"), ("as", "does"), ("as", "do"), ("way",)})  # "the way randrange does"
# "looks like done() marks ...": a guess at the culprit, not a comparison
_GUESSING = frozenset({"look", "looks", "looked", "seem", "seems", "seemed", "sounds", "feels"})
# an aside that opens on where the change happens ("maxsize=1000 (in __init__)") locates it: not context
_LOCATING = frozenset({"in", "inside", "within"})
# "the line (in f) that|which|with ...": what follows describes a line by what is on it, up to the clause's end
_LINE_WORDS = frozenset({"line", "statement", "assignment"})
_DESCRIBING = frozenset({"that", "which", "where", "with", "containing", "holding"})
_CLAUSE_END = frozenset({".", ";", ":", "!", "?", ","})


def _aside_spans(toks: list[Tok]) -> list[tuple[int, int]]:
    """Token ranges inside parentheses that stand apart ("f (x is ...)"), not a call's arguments ("f(x)")."""
    spans, opened = [], -1
    for i, t in enumerate(toks):
        if t.text == "(" and opened < 0:
            call = i > 0 and toks[i - 1].word and toks[i - 1].start + len(toks[i - 1].text) == t.start
            located = i + 1 < len(toks) and toks[i + 1].text.lower() in _LOCATING
            opened = -1 if call or located else i
        elif t.text == ")" and opened >= 0:
            spans.append((opened, i))
            opened = -1
    if opened >= 0:  # an aside left open runs to the end
        spans.append((opened, len(toks)))
    return spans


def _line_descriptions(toks: list[Tok]) -> list[tuple[int, int]]:
    """Token ranges that describe a line by what is on it: "the line in f that puts x into seen"."""
    spans = []
    for i, t in enumerate(toks):
        if t.text.lower() not in _LINE_WORDS or i == 0 or toks[i - 1].text.lower() != "the":
            continue
        j = i + 1
        if j + 1 < len(toks) and toks[j].text.lower() in ("in", "of"):  # "the line in global_matches that ..."
            j += 2
        if j < len(toks) and toks[j].text.lower() in _DESCRIBING:
            end = next((k for k in range(j + 1, len(toks)) if toks[k].text in _CLAUSE_END), len(toks))
            spans.append((j, end))
    return spans


def _said_of(mentions: list[Mention], toks: list[Tok]) -> list[tuple[int, int]]:
    """The tokens after a colon right after the first name: "Document f: it is an openhook for C that ..."."""
    if not mentions:
        return []
    after = mentions[0].index + mentions[0].size
    after += 2 if toks[after:after + 2] and [t.text for t in toks[after:after + 2]] == ["(", ")"] else 0
    return [(after, len(toks))] if after < len(toks) and toks[after].text == ":" else []


_PRONOUNS = frozenset({"it", "this", "they", "these", "its", "their"})


def _described_after(mentions: list[Mention], toks: list[Tok]) -> list[tuple[int, int]]:
    """The sentences after the first name's that open on a pronoun: "Write a class docstring for Module. It is the
    record ModuleFinder keeps for every module": what Module is, ModuleFinder no target (fifth fresh set)."""
    if not mentions:
        return []
    first = mentions[0].index
    end = next((k for k in range(first, len(toks) - 1) if toks[k].text in (".", "!", "?")
                and toks[k + 1].text.lower() in _PRONOUNS), None)
    return [(end + 1, len(toks))] if end is not None else []


# "Say that it ... calls g", "mention how g is used", "explaining why": what the text says, from there on
_CONTENT_VERBS = frozenset({"say", "says", "saying", "mention", "mentions", "mentioning", "explain", "explains",
                            "explaining", "note", "notes", "noting", "state", "states", "stating", "describe",
                            "describes", "describing"})
_CONTENT_OPENERS = frozenset({"that", "how", "why", "what", "when", ":"})
_TEXT_NOUNS = frozenset({"comment", "comments", "docstring", "docstrings", "note"})


def _content_said(mentions: list[Mention], toks: list[Tok]) -> list[tuple[int, int]]:
    """From the first "say that" / "explain how" after the first name to the end: the text's content (fifth fresh
    set, run 19: "Give f a docstring. Say that it ... calls g to ..." made g a second target, with its callers)."""
    if not mentions:
        return []
    first = mentions[0].index
    start = next((k for k in range(first + 1, len(toks) - 1) if (toks[k].text.lower() in _CONTENT_VERBS
                  and toks[k + 1].text.lower() in _CONTENT_OPENERS) or (  # "add a comment above it: <its text>"
                      toks[k].text == ":" and any(t.text.lower() in _TEXT_NOUNS for t in toks[max(0, k - 4):k]))),
                 None)
    return [(start, len(toks))] if start is not None else []


def _between(toks: list[Tok], i: int) -> bool:
    """Name ``i`` is one end of "between A and B"."""
    before = [t.text.lower() for t in toks[max(0, i - 3):i]]
    return bool(before) and (before[-1] == "between" or (before[-1] == "and" and "between" in before[:-1]))


def _made(mentions: list[Mention], toks: list[Tok]) -> set[int]:
    """The names that "make" takes as its object ("make add_type put the dot on", "Make wrap and fill default to")."""
    made: set[int] = set()
    last = -1
    for m in mentions:
        joined = last in made and all(t.text.lower() in ("and", "or", ",", "both") for t in toks[last + 1:m.index])
        if m.before in ("make", "makes") or joined:
            made.add(m.index)
        last = m.index
    return made


def _compared(toks: list[Tok], i: int) -> bool:
    """The words before name ``i`` (articles and kind words skipped) make it a comparison's other side."""
    before: list[str] = []
    j = i - 1
    while j >= 0 and len(before) < 3 and toks[j].word:
        low = toks[j].text.lower()
        if low not in ARTICLES and low not in KIND_WORDS:
            before.insert(0, low)
        j -= 1
    if before[-2:-1] and before[-2] in _GUESSING:
        return False
    return tuple(before[-1:]) in _COMPARED or tuple(before[-2:]) in _COMPARED


def _of_expression(toks: list[Tok], i: int) -> bool:
    """Word ``i`` is an attribute of an expression, in a statement the instruction quotes: ``indents[-1].less(x)``.

    A name's own attribute (``self.less``, ``C.m``) is one dotted token; after ``]`` or ``)`` the receiver
    is a value of the code.
    """
    return (i > 1 and toks[i - 1].text == "." and toks[i - 1].start + 1 == toks[i].start
            and toks[i - 2].text in (")", "]"))


def _a_call(m: Mention, toks: list[Tok], named: set[int]) -> bool:
    """"keep the deepcopy of state where it is": a function's name used as the noun for one call of it, on a
    value that names no def (copy-extract on the H200: deepcopy taken as a second def to extract from)."""
    i = m.index
    return (i > 0 and i + 2 < len(toks) and toks[i - 1].text.lower() == "the" and toks[i + 1].text.lower() == "of"
            and toks[i + 2].word and i + 2 not in named and all(s.kind == "function" for s in m.hits))


def context_only(mentions: list[Mention], toks: list[Tok], action: Action) -> set[int]:
    """The token indices of mentions said only for context: in an aside, the other side of a comparison, a
    function named for one call of it ("the deepcopy of state"), or, for text added to the code (a comment,
    a docstring, hints), a method called in a statement it quotes.

    Seen on the H200: "add a comment above if not indents[-1].less(thisguy): in process_tokens" took
    Whitespace.less as a target, the region spanned both defs and the comment went into less. A bug report's
    ``Whitespace('\\t').indent_level(8) gives 1`` names the def at fault, and keeps it.
    """
    prose = action in ("comment", "docstring", "type_hints")
    spans = _aside_spans(toks) + (_line_descriptions(toks) if action == "comment" else [])
    if prose:  # "Document f: it is what g falls back to when ...": after the colon, what f is or does
        spans += _said_of(mentions, toks) + _described_after(mentions, toks) + _content_said(mentions, toks)
    named = {m.index for m in mentions}
    made = _made(mentions, toks) if action == "change" else set()
    typed = _types_said(mentions, toks) if action == "type_hints" else set()
    return {m.index for m in mentions if any(a < m.index < b for a, b in spans) or _compared(toks, m.index)
            or m.index in typed
            or (prose and _of_expression(toks, m.index)) or _a_call(m, toks, named)
            # "... so guess_type never finds it. make add_type put the dot on": what is made to behave is changed
            or (made and m.index not in made)
            # "move f so it is defined before g, between h and g": where it goes, not what moves
            or (action == "move" and _between(toks, m.index)) or _relative_user(toks, m.index)}


# "annotate _format_range_context, the one context_diff uses for its ranges": context_diff says which one
_USER_VERBS = frozenset({"uses", "use", "calls", "call", "needs", "wraps", "invokes", "relies", "passes", "used",
                         "called"})


def _relative_user(toks: list[Tok], i: int) -> bool:
    """Mention ``i`` is the subject of a clause that says which other def is meant: "the one g uses", "which g
    calls", "that g needs" (tenth fresh set, run 24: context_diff was annotated as well)."""
    nxt = toks[i + 1].text.lower() if i + 1 < len(toks) else ""
    if nxt not in _USER_VERBS or i < 1:
        return False
    before = toks[i - 1].text.lower()
    return before in ("which", "that", "whom") or (before == "one" and i > 1 and toks[i - 2].text.lower() == "the")


def _types_said(mentions: list[Mention], toks: list[Tok]) -> set[int]:
    """For hints: the classes said beside a function to annotate, as what its values are ("effective(file, line,
    frame) ... returns a pair: the Breakpoint to act on or None": ninth fresh set, run 23), unless called a class."""
    classes = [m for m in mentions if m.hits and all(s.kind == "class" for s in m.hits)]
    if len(classes) == len(mentions):  # only classes said: they are what is annotated
        return set()
    return {m.index for m in classes if not {"class", "classes"} & {
        toks[j].text.lower() for j in (m.index - 1, m.index + 1) if 0 <= j < len(toks)}}


def outside_context(words: list[str], mentions: list[Mention], toks: list[Tok], action: Action) -> list[str]:
    """The ambiguous ``words`` said at least once outside context: "the stream saved by the matching __enter__" in
    what a comment is to say leaves no ``__enter__`` for the model to choose (sixth fresh set, run 20: it chose
    ``_RedirectStream.__enter__`` and the comment went there)."""
    aside = context_only(mentions, toks, action)
    return [w for w in words if any(m.word == w and m.index not in aside for m in mentions)
            or not any(m.word == w for m in mentions)]
