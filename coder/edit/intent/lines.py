"""The code line a comment is asked above, resolved against the target's own lines.

"Add a comment above `if _find_unsafe(s) is None:` in quote", "above each while loop in bisect_left",
"above the return in capwords", "at the top of the body of _v": each names a line of the function, and a
comment anywhere else in it is not what was asked. On the H200 (runs 7 and 8) the 1.5B put such
comments under the line, inside its block, in 15 of the comment pairs, and the placement check held only
places relative to defs. The spec's :class:`~coder.edit.intent.spec.Anchor` now carries the line, as
its text (line numbers would go stale): the placement check holds the comment to it, and a comment with
a line anchor is written by coder, the model asked only for its words (:mod:`coder.edit.plan.comment_asked`).

A line is named when the instruction spells it (backticks or not, its trailing colon optional; eight
characters at least, so "else:" or "return" alone never match), by a name said as "the NAME check" (call,
condition, line, branch) when one line of the function reads it, or by its statement's keyword when the
function has exactly one such line ("the while loop", "each while loop" over identical ones, "the
return"). "The top (start) of the body" is the line of its first statement after the docstring. A line
described by what is on it ("the line in global_matches that puts __builtins__ into seen", "the line
with seen.add(word)") is the one line of the function that holds every word of the description found in
the function's code (Python's keywords aside), when two words at least are found there; "the loop that walks
_features" is the one for or while line that holds the words found on such lines, one at least; "the statement
that increases shift" is the one ``+=`` line that reads ``shift``. A (dotted) name said as "the self.__init__
call", "the shift line", "why __init__ is called", "the call to _put" is the one line that reads (calls) it; of
several, the one holding strictly more of the instruction's other words ("the shift line ... why it's len - 1").
A comment "in _patch about why __init__ is called there" goes in ``_patch`` (:func:`comment_home`).
"""

from __future__ import annotations

import io
import re
import tokenize
from dataclasses import replace
from keyword import kwlist

from coder import lazy
from coder.edit.intent.spec import Anchor, ChangeSpec

MIN_CHARS = 8
# "the _find_unsafe check", "the self.__init__ call", "the `shift` line": a (dotted) name and what holds it
_NAMED_LINE = lazy.regex(r"\bthe\s+`?([A-Za-z_][\w.]*?)`?(?:\(\))?\s+(check|call|test|condition|line|branch|"
                         r"statement|assignment|update)\b")
# "why __init__ is called there", "the call to self.flush", "where it calls _cleanup": the line calling it
_CALLED = lazy.regex(r"\b(?:`?([A-Za-z_][\w.]*)`?(?:\(\))?\s+(?:is|gets|being)\s+(?:called|invoked|run)|"
                     r"(?:the\s+)?call(?:s|ing)?\s+(?:to\s+|of\s+)?`?([A-Za-z_][\w.]*)`?(?:\(\))?)\b")
# where a comment's own words begin: "a comment that ...", "a comment saying ...", "comment: ..."
_COMMENT_SAYS = lazy.regex(r"\bcomment\s*(?:that|saying|which\s+says|to\s+say|explaining\s+that|:)\s", re.I)
# "above the first h_append", "before the last yield": the line of that rank among those reading the name
_NTH = lazy.regex(r"\b(?:above|before|over|on|at|comment)\s+the\s+(first|last|second)\s+`?([A-Za-z_][\w.]*)`?"
                  r"(?:\(\))?", re.I)
_SWITCHED = r"\b(?:switch|turn)(?:s|es|ed|ing)?\b(?:[^.;,]|\.(?=\w))*?"  # "switches self.writeback (off)"
# "the statement that increases shift": which augmented assignment a verb names
_VERB_OPS = (("+=", lazy.regex(r"\b(?:increase[sd]?|increment(?:s|ed)?|bumps?|adds?\s+to|grows?)\b", re.I)),
             ("-=", lazy.regex(r"\b(?:decrease[sd]?|decrement(?:s|ed)?|subtracts?\s+from|lowers?)\b", re.I)),
             # "the line that switches self.writeback off", "the assignment that enables it": a flag set
             ("= False", lazy.regex(_SWITCHED + r"\boff\b|\bdisabl(?:e|es|ed|ing)\b", re.I)),
             ("= True", lazy.regex(_SWITCHED + r"\bon\b|\benabl(?:e|es|ed|ing)\b", re.I)))
# "the line (in f) that puts __builtins__ into seen", "the statement where word is added to seen": its description
_DESCRIBED = lazy.regex(r"\b(?:the|a|one)\s+(line|statement|assignment|call|loop)\s+(?:(?:in|of)\s+`?[\w.]+`?\s+)?"
                        r"(?:that|which|where|with|containing|holding)\b(.*?)(?=[.;:!?,](?:\s|$)|$)", re.I)
_WORD = lazy.regex(r"[A-Za-z_][A-Za-z0-9_]*")
_KEYWORDS = (  # (statement keyword, the words that name it: group 1 ("each") or 2 (a plural) says every one)
    ("while", lazy.regex(r"\b(each\s+|every\s+|all\s+(?:the\s+)?)?while[- ]loop(s)?\b", re.I)),
    ("for", lazy.regex(r"\b(each\s+|every\s+|all\s+(?:the\s+)?)?for[- ]loop(s)?\b", re.I)),
    ("return", lazy.regex(r"\b(?:the|its)\s+return(?:\s+(?:line|statement))?\b()()", re.I)),
)


def line_anchor(spec: ChangeSpec, instruction: str, text: str) -> Anchor | None:
    """``spec``'s anchor, with the line of its one target a comment is asked above when the instruction names one."""
    anchor = spec.anchor
    if spec.action != "comment" or len(spec.targets) != 1 or spec.targets[0].kind == "class" or not text:
        return anchor
    if anchor is not None and anchor.where not in ("inside",):
        return anchor  # above or after the def itself, the file's top...: placed by the def, as before
    target = spec.targets[0]
    lines = _code_lines(text, target.start, target.end)
    if not lines:
        return anchor
    plain = instruction.replace("`", "")
    spelled = [code for _, code in lines if len(code) >= MIN_CHARS and (
        code in plain or (code.endswith(":") and len(code) > MIN_CHARS and code[:-1] in plain))]
    if spelled:  # a line spelled out is that line: where it occurs twice, above one of them
        return Anchor("above", target, line=max(spelled, key=len))
    if (holding := _fragment(plain, lines[1:])) is not None:
        return Anchor("above", target, line=holding)
    if (found_line := _named(plain, lines[1:]) or _described(plain, lines[1:])) is not None:
        return Anchor("above", target, line=found_line)
    for keyword, words in _KEYWORDS:
        if (said := words.search(plain)) is not None:
            found = {code for _, code in lines if code == keyword or code.startswith((keyword + " ", keyword + "("))}
            if len(found) == 1:  # "above each while loop": both of bisect_left's identical ones
                return Anchor("above", target, line=found.pop(), each=bool(said.group(1) or said.group(2)))
            return anchor
    if anchor is not None and anchor.where == "inside":
        first = lines[1][1] if len(lines) > 1 else None  # lines[0] is the def's header
        return replace(anchor, line=first) if first is not None else anchor
    return anchor


def comment_home(spec: ChangeSpec, instruction: str, text: str) -> ChangeSpec:
    """A comment's one target when the others are only what it says or what it calls.

    "... write a comment that join() waits on it": ``join`` is in the comment's words, named nowhere before
    them. "Explain with a comment in _patch why __init__ is called there" names ``_localimpl.__init__`` too,
    but the comment goes in ``_patch``, whose body calls it: narrowed when exactly one target's code reads
    every other target's name.
    """
    if spec.action != "comment" or len(spec.targets) < 2 or not text:
        return spec
    if (said := _COMMENT_SAYS.search(instruction)) is not None:
        before = instruction[:said.start()]
        kept = tuple(t for t in spec.targets if re.search(rf"\b{re.escape(t.name)}\b", before))
        if kept and len(kept) < len(spec.targets):
            spec = replace(spec, targets=kept)
            if len(kept) == 1:
                return spec
    homes = []
    for target in spec.targets:
        body = " ".join(code for _, code in _code_lines(text, target.start, target.end)[1:])
        if all(re.search(rf"\b{re.escape(o.name)}\b", body) for o in spec.targets if o is not target):
            homes.append(target)
    return replace(spec, targets=(homes[0],)) if len(homes) == 1 else spec


def _described(plain: str, lines: list[tuple[int, str]]) -> str | None:
    """The one line holding every word of a described line's description that the code has (two at least)."""
    for said in _DESCRIBED.finditer(plain):
        # a keyword ("if", "in", "is") is as much English as code: it tells no line from another
        words = set(_WORD.findall(said.group(2))) - set(kwlist)
        loop = said.group(1).lower() == "loop"  # "the loop that walks _features": a for or while line
        kept = [code for _, code in lines if not loop or code.startswith(("for ", "while ", "async for "))]
        # "increases shift": only the lines that do so, and the name said is enough there
        ops = [op for op, verb in _VERB_OPS if verb.search(said.group(2))]
        if ops:
            kept = [code for code in kept if ops[0] in code]
        on = {w: {code for code in kept if re.search(rf"\b{re.escape(w)}\b", code)} for w in words}
        used = [w for w, where in on.items() if where]
        if len(used) < (1 if loop or ops else 2):
            continue
        common = set.intersection(*(on[w] for w in used))
        if len(common) == 1:
            return common.pop()
    return None


_BRACKETED = lazy.regex(r"\[[^\[\]]{6,}\]|\([^()]{6,}\)")
# "a line that replaces an out-of-range year with 2000 + year % 400": an expression with two operators at least
_EXPRESSION = lazy.regex(r"[\w.]+(?:\s*(?:\*\*|//|[-+*/%])\s*[\w.]+){2,}")


def _fragment(plain: str, lines: list[tuple[int, str]]) -> str | None:
    """The one line holding a bracketed piece of code the instruction spells ("the line that appends [next(),
    order * direction, next] to the heap") or an expression of two operators ("2000 + year % 400"), spaces aside;
    None when no line or several do."""
    squeeze = [(re.sub(r"\s+", "", code), code) for _, code in lines]
    for m in (*_BRACKETED.finditer(plain), *_EXPRESSION.finditer(plain)):
        piece = re.sub(r"\s+", "", m.group(0)).rstrip(".")  # "... with 2000 + year % 400.": the sentence's end
        found = {code for flat, code in squeeze if piece in flat}
        if len(found) == 1:
            return found.pop()
    return None


def _named(plain: str, lines: list[tuple[int, str]]) -> str | None:
    """The line "the _find_unsafe check" or "the self.__init__ call" reads, "why __init__ is called" calls, or
    "above the first h_append" is the first to read."""
    for nth in _NTH.finditer(plain):
        name = re.escape(nth.group(2))
        reading = ([code for _, code in lines if re.search(r"(?<!\w)" + name + r"\s*\(", code)]  # its calls first
                   or [code for _, code in lines if re.search(r"(?<!\w)" + name + r"\b", code)])
        rank = {"first": 0, "second": 1, "last": -1}[nth.group(1).lower()]
        if len(reading) > (rank if rank >= 0 else 0):
            return reading[rank]
    for named in _NAMED_LINE.finditer(plain):
        if (found := _reading(named.group(1), lines, plain, named.group(2) == "call")) is not None:
            return found
    for called in _CALLED.finditer(plain):
        if (found := _reading(called.group(1) or called.group(2), lines, plain, True)) is not None:
            return found
    return None


def _reading(name: str, lines: list[tuple[int, str]], plain: str, call: bool) -> str | None:
    """The one line of ``lines`` that reads ``name`` (calls it, for ``call``); of several, the one that holds
    strictly more of the instruction's other words (``shift`` on three lines, "why it's len - 1" on one)."""
    name = name.rstrip(".")
    # also as an attribute: "the join line" is '"\n".join(...)', "not_full.wait" 'self.not_full.wait()'
    pattern = r"(?<!\w)" + re.escape(name) + (r"\s*\(" if call else r"\b")
    found = list(dict.fromkeys(code for _, code in lines if re.search(pattern, code)))
    if len(found) <= 1:
        return found[0] if found else None
    said = set(_TOKEN.findall(plain)) - set(kwlist) - {name}
    scores = sorted(((len(said & set(_TOKEN.findall(code))), code) for code in found), reverse=True)
    return scores[0][1] if scores[0][0] > scores[1][0] else None


_TOKEN = lazy.regex(r"[A-Za-z_][A-Za-z0-9_]*|\d+")


def _code_lines(text: str, start: int, end: int) -> list[tuple[int, str]]:
    """(line, stripped text) of each code line of ``start``-``end``: no blank, comment, decorator or string line."""
    inside: set[int] = set()
    header_end = start
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.start[0] > end:
                break
            if tok.type == tokenize.STRING and tok.start[0] >= start and (
                    tok.end[0] > tok.start[0] or _alone(text, tok.start[0], tok.string)):
                inside.update(range(tok.start[0], tok.end[0] + 1))  # a docstring, or a string line of its own
    except (tokenize.TokenError, SyntaxError):
        return []
    all_lines = text.splitlines()
    out = []
    for n in range(start, min(end, len(all_lines)) + 1):
        code = all_lines[n - 1].strip()
        if not code or code.startswith(("#", "@")) or n in inside:
            continue
        if code.startswith(("def ", "async def ")):
            header_end = n
        out.append((n, code))
    return [(n, c) for n, c in out if n >= header_end] if out else []


def _alone(text: str, row: int, string: str) -> bool:
    """True when line ``row`` holds nothing but ``string`` (a one-line docstring)."""
    return text.splitlines()[row - 1].strip() == string
