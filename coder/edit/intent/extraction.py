"""The words of an extraction: what asks for one, and the name of the new def it fills.

One home for the vocabulary the reading's action (:mod:`coder.edit.intent.read`) and the spec's facts
(:mod:`coder.edit.intent.facts`) share: "factor it out into", "a private module-level helper", "in one place: a
helper f(x)", and the signatures the instruction spells.
"""

from __future__ import annotations

import re

from coder import lazy
from coder.edit.intent.vocab import NOT_NAMES

# "factor out X", "factor it into a helper", "factor it out into ..."
FACTOR = (r"factor(?:s|ed)?\s+(?:out|(?:it|them|this|that)\s+(?:out\s+)?into|(?:it|them|this|that)\s+out"
          r"|(?:that|this|these|those)\s+\w+(?:\s+\w+)?\s+(?:out\s+)?into)")  # "factor that comparison into"
# the adjectives of a new def: "a private module function", "its own module-level helper"
DEF_ADJ = (r"(?:own\s+|new\s+|separate\s+|small\s+|shared\s+|private\s+|module[-\s]level\s+|module\s+|"
           r"top[-\s]level\s+)*")
DEF_NOUN = r"(?:helper|function|fn|func)"
# "make a helper _matches(item, value) for that test and use it in both"; "I want that chain in a module-level
# function _parse_mode(mode)": a new def that the code named goes into (fifth fresh set, run 19)
USE_IT = (r"\b(?:make|write|create|add|introduce)\s+(?:an?\s+)?" + DEF_ADJ + DEF_NOUN + r"\s+`?[A-Za-z_]\w*\([^)]*\)"
          r"[^.;]*?\b(?:use|call)\s+it\s+(?:in|from)\s+(?:both|each|all|them|those|the\s+two)\b"
          r"|\b(?:that|this|those|these)\s+\w+(?:\s+\w+)?\s+in(?:to)?\s+(?:an?\s+)?" + DEF_ADJ + DEF_NOUN
          + r"\s+`?[A-Za-z_]\w*\(")
# "they repeat the check. I'd like it in one place: a module-level helper f(x) ...": an extraction into f
ONE_PLACE = r"\bin\s+one\s+place\b[^.;]{0,6}[:,]?\s*(?:an?\s+)?" + DEF_ADJ + DEF_NOUN + r"\b"
# "into one private function", "into its own helper": the new def an extraction fills
INTO_DEF = r"\binto\s+(?:(?:an?|one|a\s+single|its|their)\s+)?" + DEF_ADJ + DEF_NOUN + r"\b"
# an extraction asked, as the reading's action ("pull the loop in f out into its own function": the object of "pull
# ... out" runs to the clause's end; "... I'd like it in one place: a module-level helper f(x)", "make a helper f(x)
# for that test and use it in both", "I want that chain in a module-level function f(x)")
# "pull the guard of f and g into _check(obj, name)", "factor the choice out of dumps into _encoder(how)": lines
# taken into a new function spelled with its signature
INTO_SPELLED = (r"(?:pull|factor|lift|hoist)(?:s|ed|ing)?\b(?:[^.;]|\.(?=\w))*?\binto\s+`?(?:[A-Za-z_]\w*\.)?"
                r"[A-Za-z_]\w*\(")
# "move that into a method _command_line(self, url) ... and have both call it": lines said by a pronoun go into a def
MOVED_INTO_DEF = (r"(?:move|put|pull|turn)(?:s|ed|ing)?\s+(?:that|this|it|them|(?:those|these)\s+\w+(?:\s+\w+)?)\s+"
                  r"into\s+(?:an?\s+)?" + DEF_ADJ + r"(?:method|function|helper|fn|func)\b")
# "I'd like the first part as a module-level function _abstract_names(cls, namespace, bases)": code said, wished
# as a new def spelled with its signature (ninth fresh set, run 23)
AS_DEF = (r"\b(?:like|want|need|prefer|have)\s+(?:it|them|(?:the|that|this|those|these)\s+\w+(?:\s+\w+)?)\s+as\s+"
          r"(?:an?\s+)?" + DEF_ADJ + r"(?:method|function|helper|fn|func)\s+`?[A-Za-z_]\w*\(")
ASKED = lazy.regex(r"\b(?:extract|dedup\w*|" + INTO_SPELLED + "|" + MOVED_INTO_DEF + "|" + AS_DEF + "|" + FACTOR
                   + r"|pull(?:s|ed)?\b[^.;]*?\bout|"
                   # "split X out into f(x)", "split X out of f into g(x)"
                   r"split(?:s)?\b(?:[^.;]|\.(?=\w))*?\bout\s+(?:of\s+(?:[^.;]|\.(?=\w))*?)?into)\b|"
                   + INTO_DEF + "|" + ONE_PLACE + "|" + USE_IT,
                   re.I)
# the same, where the new def's name is looked for: a move "into a helper f" names one too
_NAMING = lazy.regex(r"\b(?:extract|" + INTO_SPELLED + "|" + MOVED_INTO_DEF + "|" + AS_DEF + "|" + FACTOR
                     + r"|pull(?:s|ed)?\b[^.;]*?\bout|"
                     r"split(?:s)?\b(?:[^.;]|\.(?=\w))*?\bout|move[sd]?)\b|" + INTO_DEF + "|" + ONE_PLACE
                     + "|" + USE_IT,
                     re.I)
# "into a helper f", "into its own function, f(input)": the new def's name after the noun
_NEW_FUNCTION = lazy.regex(r"\b(?:new\s+(?:helper\s+)?(?:function|helper|method)"
                           r"|(?:in(?:to)?|as)\s+(?:(?:an?|its|their)\s+)?" + DEF_ADJ
                           + r"(?:helper\s+)?(?:function|helper|method|fn|func)|" + ONE_PLACE
                           + r"|\b(?:make|write|create|introduce)\s+(?:an?\s+)?" + DEF_ADJ + DEF_NOUN + ")"
                           r",?\s+(?:called\s+|named\s+)?`?([A-Za-z_]\w*)", re.I)
# "split the mode parsing out into _parse_mode(mode)": the new function spelled as a call after "into"
_INTO_CALL = lazy.regex(r"\binto\s+`?(?:[A-Za-z_]\w*\.)?([A-Za-z_]\w*)\(", re.I)  # "into C._build(x)": _build
# "Extract _apply_state(y, state) from _reconstruct", "extract _read_chunk(input) -> bytes that ...": the new
# function spelled with its signature
_EXTRACT_CALL = lazy.regex(r"\bextract\s+(?:an?\s+)?`?([A-Za-z_]\w*)\([^)]*\)", re.I)


def extract_into(instruction: str) -> str | None:
    """F of "extract ... into a new function F" (None when no extraction into a named function is asked)."""
    if not _NAMING.search(instruction):
        return None
    found = _NEW_FUNCTION.search(instruction) or _EXTRACT_CALL.search(instruction) or _INTO_CALL.search(instruction)
    return found.group(1) if found and found.group(1).lower() not in NOT_NAMES else None


# "a new function `_hue(r, g, b, maxc, rangec)`": a def's signature as spelled (or a call: the reader tells them apart)
_SIGNATURE = lazy.regex(r"\b([A-Za-z_]\w*)\(([^()]*)\)")


def signatures(instruction: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """Each ``name(a, b)`` the instruction spells, once, in its order: what its parentheses hold, split at commas."""
    found = ((m.group(1), tuple(p.strip() for p in m.group(2).split(",")) if m.group(2).strip() else ())
             for m in _SIGNATURE.finditer(instruction))
    return tuple(dict.fromkeys(found))


# "-> (xbar, ybar, sxy)", "that returns the tuple (a, b)", "returning (lo, hi)": the names a new def gives back
_RETURNED = lazy.regex(r"(?:->|\breturn(?:s|ing)?\s+(?:the\s+)?(?:tuple\s+|pair\s+)?|\bgives?\s+back\s+(?:the\s+)?"
                       r"(?:tuple\s+|pair\s+)?)\s*`?\(\s*([A-Za-z_]\w*(?:\s*,\s*[A-Za-z_]\w*)+)\s*,?\s*\)", re.I)


def returned(instruction: str) -> tuple[str, ...]:
    """The names of the one tuple a new def is said to return, in the order spelled ("-> (xbar, ybar, sxy)");
    () when none is spelled, or two are."""
    found = {tuple(n.strip() for n in m.group(1).split(",")) for m in _RETURNED.finditer(instruction)}
    return found.pop() if len(found) == 1 else ()
