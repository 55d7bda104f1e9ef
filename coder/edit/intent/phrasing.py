"""Phrasings that say an action or its extent without the usual words, read from the instruction.

Beside :mod:`coder.edit.intent.words` (the wording's details the checks hold a change to): a move said
without a verb of moving, every method of a class asked for, the comment above a def named with it.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence

from coder import lazy
from coder.edit.intent.names import Tok
from coder.edit.intent.words import MORE_THAN_MOVE, statement_names

# "f should sit above class C", "f belongs right after g": where a def is to be, said without a verb of moving
_PLACED = lazy.regex(r"\b(?:(?:should|must|ought\s+to|needs?\s+to|has\s+to)\s+(?:sit|go|live|be|come|belong)|belongs"
                     # "the _PySimpleQueue class goes after PriorityQueue": a def said with its kind word
                     r"|(?:class|function|method|def|helper)`?\s+(?:goes|sits|lives))"
                     r"\s+(?:right\s+|just\s+|directly\s+|immediately\s+)?(?:above|below|before|after)\b", re.I)


_GET_RID = lazy.regex(r"\b(?:get\s+rid\s+of|do\s+away\s+with|throw\s+away|take\s+out|strip\s+out)\b", re.I)
# "take the Grail class out of webbrowser.py", "rip dedent out": a def said between the verb and "out" (one named,
# or a kind word), never a parameter ("take width out of its kwargs" changes the def that has it)
_TAKE_OUT = lazy.regex(r"\b(?:take|rip)\s+((?:[\w`.()]+\s+){1,4}?)out\b", re.I)
_DEF_KINDS = frozenset({"class", "function", "method", "helper", "def", "property", "classmethod", "staticmethod"})


def gets_rid(instruction: str, toks: Sequence[Tok], names: Collection[int]) -> re.Match[str] | None:
    """A verb of deleting said in several words ("get rid of", "do away with"; "take X out" where X is a def the
    tokens ``names`` name, or is said with its kind), or None."""
    if (m := _GET_RID.search(instruction)) is not None:
        return m
    m = _TAKE_OUT.search(instruction)
    said = [i for i, t in enumerate(toks) if m is not None and m.start(1) <= t.start < m.end(1) and t.word]
    return m if any(i in names or toks[i].text.lower() in _DEF_KINDS for i in said) else None


_TOLD = frozenset({"people", "users", "callers", "everyone", "folks", "them", "us", "you", "me", "clients"})


def reported(texts: Sequence[str], i: int) -> bool:
    """Whether word ``i`` is a verb someone was told or asked to do ("has told people to use openpty() instead"),
    not the request's own verb (eighth fresh set: "... Please remove that function" read as a change)."""
    return i >= 2 and texts[i - 1].lower() == "to" and texts[i - 2].lower() in _TOLD


_DETERMINERS = frozenset({"a", "an", "the", "its", "their", "our", "my", "your", "this", "that", "these", "those",
                          "each", "every", "no"})


def attributive(texts: Sequence[str], i: int) -> bool:
    """Whether word ``i`` names a thing, not an order: after a determiner, one word between at most, and before a word
    ("a bool delete flag or None", "the move count": ninth fresh set, run 23, a request for hints read as a delete)."""
    before = texts[i - 1].lower() if i >= 1 else ""
    return (i + 1 < len(texts) and texts[i + 1][:1].isalpha() and (before in _DETERMINERS or (
        i >= 2 and texts[i - 2].lower() in _DETERMINERS and before.isalpha()
        and before not in ("to", "please", "and", "or", "then", "also", "just", "now"))))


def placed(instruction: str) -> bool:
    """Where a def should be, said without a verb of moving ("get_class_members should sit above class C")."""
    return bool(_PLACED.search(instruction)) and not MORE_THAN_MOVE.search(instruction)


# "every method in the C class", "all the methods of C": the class's methods, whatever member is named beside it
_EVERY_MEMBER = lazy.regex(r"\b(?:every|each|all(?:\s+(?:of\s+)?the)?)\s+(?:of\s+(?:its|the)\s+)?methods?\b", re.I)


def every_member(instruction: str) -> bool:
    """The instruction asks for every method of a class ("type-annotate every method in the Completer class")."""
    return bool(_EVERY_MEMBER.search(instruction))


# "and the comment line above them", "together with the comment that introduces them": a delete takes the comment too
_COMMENT_ABOVE = lazy.regex(r"\bcomments?(?:\s+(?:line|lines|block))?\s+(?:(?:right|just|directly|immediately)\s+)?"
                            r"(?:above|before|over|preceding|introducing|heading|on\s+top\s+of|"
                            r"that\s+(?:introduces?|precedes?|heads?|comes?\s+before|sits?\s+above))\b", re.I)


def comment_above(instruction: str) -> bool:
    """The instruction names the comment above its objects ("delete f and the comment line above it")."""
    return bool(_COMMENT_ABOVE.search(instruction))


# what a verb of deleting takes when it is a statement, not a def: "remove that duplicate line", "drop the extra
# one", "delete the redundant assignment in f" (seen on the H200, run 17: read as "delete method Filter.__init__",
# the whole method cut; applied)
_CUT_STATEMENT = lazy.regex(r"\s*(?:(?:the|that|this|a|an|these|those)\s+)?(?:one\s+)?"
                            r"(?:(?:extra|duplicated?|redundant|second|repeated|unused|stray|dead|useless|leftover|superfluous|needless|double|other)\s+)*"
                            r"(?:line|lines|assignment|assignments|statement|statements|call|calls|check|checks|"
                            r"print|prints|one|name|names|variable|variables|var|local|locals)\b", re.I)
_STATEMENT_ADJECTIVE = lazy.regex(r"\s*(?:(?:the|that|this|a|an)\s+)?(?:extra|duplicated?|redundant|second|repeated|"
                                  r"superfluous|double)\s+one\b", re.I)


def cuts_statement(instruction: str, toks: Sequence[Tok], at: int) -> bool:
    """Whether what follows the verb of deleting ``toks[at]`` is a statement ("that duplicate line", "the extra
    one"), not a def."""
    if not 0 <= at < len(toks) or not toks[at].word or statement_names(instruction):
        return False  # "get rid of the line insort = insort_right": a module-level statement, cut as one
    after_verb = re.sub(r"^\s*rid\s+of\b", "", instruction[toks[at].start + len(toks[at].text):], flags=re.I)
    m = _CUT_STATEMENT.match(after_verb)
    if m is None:
        return False
    # "one" alone ("delete one of the helpers") is no statement; "the extra one" is
    return not m.group(0).lower().rstrip().endswith("one") or bool(_STATEMENT_ADJECTIVE.match(after_verb))


_QUOTED = lazy.regex(r"(?<!\w)'[^'\n]*'(?!\w)|\"[^\"\n]*\"")
_DELETING = {"deleting": "delete", "removing": "remove", "dropping": "drop", "erasing": "erase"}


def quoted(instruction: str, at: int) -> bool:
    """Whether position ``at`` lies inside quoted text ('use the name attribute', "x"): words quoted are no verbs of
    the request (an apostrophe inside a word, "We're", opens none)."""
    return any(m.start() < at < m.end() for m in _QUOTED.finditer(instruction))


def verb_form(word: str) -> str:
    """A verb of deleting said in its -ing form ("We're dropping X"), as the verb itself; other words unchanged
    ("using" stays: it is rarely the request's verb)."""
    return _DELETING.get(word, word)


_WISH = frozenset({"like", "want", "need", "prefer", "have", "get"})  # "I'd like it relocated", "have them renamed"


def wished(words: list[str], i: int, verbs: Collection[str]) -> str:
    """The verb of ``verbs`` that a past participle stands for where a wish says the request ("I'd like it
    relocated to ...", "I want them sorted"): ``relocate`` of ``relocated``; else the word itself, lower case."""
    word = words[i].lower()
    if not word.endswith("ed") or i < 2 or words[i - 1].lower() not in ("it", "them", "this", "that") or (
            words[i - 2].lower() not in _WISH):
        return word
    bases = (word[:-1], word[:-2], word[:-3] + "y", word[:-3])  # relocated, sorted, copied, stopped
    return next((b for b in bases if b in verbs), word)
