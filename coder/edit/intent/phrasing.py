"""Phrasings that say an action or its extent without the usual words, read from the instruction.

Beside :mod:`coder.edit.intent.words` (the wording's details the checks hold a change to): a move said
without a verb of moving, every method of a class asked for, the comment above a def named with it.
"""

from __future__ import annotations

import re

from coder import lazy
from coder.edit.intent.words import MORE_THAN_MOVE

# "f should sit above class C", "f belongs right after g": where a def is to be, said without a verb of moving
_PLACED = lazy.regex(r"\b(?:(?:should|must|ought\s+to|needs?\s+to|has\s+to)\s+(?:sit|go|live|be|come|belong)|belongs)"
                     r"\s+(?:right\s+|just\s+|directly\s+|immediately\s+)?(?:above|below|before|after)\b", re.I)


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
