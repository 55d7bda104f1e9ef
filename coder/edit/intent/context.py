"""Names said for context, not as targets: an aside in parentheses, a comparison ("the same as in encode").

"add type hints to _keep_alive (memo is the dict deepcopy passes around)" edits _keep_alive only:
deepcopy explains what memo is. "encodestring needs a docstring (quotetabs means the same as in
encode)" documents encodestring. Taking such a name as a second target made the region span both
defs and the reply was refused as shrunk (seen on the H200). Such a name may still say *where*
("move it there (just before the timeit function)"): the anchor is read from every mention. For a
comment, a docstring or hints, a method called in a statement the wording quotes is context too, and so is
a name in the description of the line a comment goes on ("the line in _wrap_chunks that takes the indent off
the width": indent is a function of the file, and a word on that line).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from coder.edit.intent.names import ARTICLES, KIND_WORDS

if TYPE_CHECKING:
    from coder.edit.intent.names import Mention, Tok
    from coder.edit.intent.spec import Action

# "like g", "the same as in g", "as with g", "similar to g", "unlike g": g is compared with, not edited
_COMPARED = frozenset({("like",), ("unlike",), ("as", "in"), ("as", "with"), ("as", "for"), ("same", "as"),
                       ("similar", "to"), ("as", "does"), ("as", "do")})
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
    named = {m.index for m in mentions}
    return {m.index for m in mentions if any(a < m.index < b for a, b in spans) or _compared(toks, m.index)
            or (prose and _of_expression(toks, m.index)) or _a_call(m, toks, named)}
