"""The (old, new) name pairs of a rename, however it is said.

"rename X to Y", "X -> Y", "X should be named Y", "X is a confusing name. call it Y", "a variable named X; call
it Y": each spelling gives the same pairs, read once here for the planner, the guard and the prompts
(:func:`rename_pairs`). Beside :mod:`coder.edit.intent.words`, the wording's other details.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from coder import lazy
from coder.edit.intent.spec import Symbol
from coder.edit.intent.vocab import NOT_NAMES
from coder.edit.intent.words import IDENT as _IDENT
from coder.edit.intent.words import looks_like_code
from coder.edit.source.trees import assigned_names

# the words that may stand around the old name ("the module-level regex X", "the X method of C", "f.py's X")
_DESCRIBED = (r"(?:(?:the|a|module|module-level|top-level|local|instance|class|global|private|public|helper|regex|"
              r"regexp|pattern|function|method|variable|var|attribute|parameter|argument|constant|field|name|property|"
              r"alias|import|imported)"
              r"\s+)*"
              r"(?:[\w./-]+(?:\.pyi?)?'s\s+)?")  # "f.py's X", "the console's X"
_AFTER_OLD = (r"(?:\s+(?:function|method|class|variable|var|attribute|constant|helper|regex|field|parameter|param|"
              r"argument|arg|property|alias|import))?"
              # "the method `m` of `C` to `n`": the owner is named, not renamed; "(tomllib/_re.py)": where it is
              r"(?:\s+(?:of|from|in)\s+(?:the\s+)?(?:class\s+)?`?[A-Za-z_][\w.]*(?:\(\))?`?)?(?:\s*\([^)]*\))?"
              r"(?:\s+everywhere)?")
_RENAME_PAIR = lazy.regex(
    r"\b(?:renam(?:e|ing)|chang(?:e|ing)\s+the\s+name\s+of)\s+" + _DESCRIBED + _IDENT + _AFTER_OLD
    + r"\s+(?:to|into|as)\s+" + _IDENT, re.I)
# "X should be called Y", "X is a bad name, call it Y": the subject is the old name, a code-looking word the new
_CALLED = lazy.regex(r"(?:^|[.;!?]\s+)" + _IDENT + r"\b[^.;:!?]*?\b(?:call\s+it|(?:be\s+)?(?:called|named)|"
                     r"rename\s+it\s+to)\s+" + _IDENT, re.I)
# "X is way too long a name. call it Y": the next sentence's "it" is the subject of the one before
_CALL_IT_NEXT = lazy.regex(r"(?:^|[.;!?]\s+)" + _IDENT + r"\b[^.;:!?]*[.;!?]\s+(?:so\s+|just\s+|please\s+|pls\s+)?"
                           r"(?:call|name|rename)\s+it\s+(?:to\s+)?" + _IDENT, re.I)
# "rename the all param of find() to all_files": the kind word says it is a name, English word or not
_KIND_RENAME = lazy.regex(r"\brenam(?:e|ing)\s+(?:the\s+)?" + _IDENT + r"\s+(?:param(?:eter)?|arg(?:ument)?|variable|"
                          r"var|local|attribute|field)\b(?:\s+(?:of|in)\s+`?[A-Za-z_][\w.]*(?:\(\))?`?)?\s+to\s+"
                          + _IDENT, re.I)
# "...: the variable i should be called start": the kind word says the old one is a name, so the new one is too
_KIND_CALLED = lazy.regex(r"\b(?:variable|var|local|parameter|argument|attribute)\s+" + _IDENT
                          + r"\s+(?:should|must|could|shall)\s+be\s+(?:called|named|renamed\s+to)\s+" + _IDENT, re.I)
# "the helper called _maybe_compile should be named _try_compile": a code-looking subject of "should be named"
_SHOULD_BE_CALLED = lazy.regex(_IDENT + r"\s+(?:should|must|could|shall|ought\s+to)\s+(?:be\s+"
                               r"(?:called|named|renamed\s+to)|become)\s+" + _IDENT, re.I)
# "... is called _raw_input, which sounds like a builtin. Please call it _read_line": the name said, then the new one
_IS_CALLED_THEN = lazy.regex(r"\b(?:is|was|are)\s+(?:called|named)\s+" + _IDENT + r"[^.;:!?]*[.;:!?]?\s*"
                             r"(?:(?:can|could|would|will)\s+you\s+)?"  # "... Can you rename it to Y?"
                             r"(?:so\s+|just\s+|please\s+|pls\s+)?(?:(?:call|name|rename)\s+it\s+(?:to\s+)?|"
                             r"(?:I'd|I\s+would|we'd)\s+(?:like|prefer|want)\s+it\s+(?:to\s+be\s+)?(?:called|named)\s+)"
                             + _IDENT, re.I)
# "... has a vague name, _patch. Call it _use_thread_dict instead": "name" says the word after it is one
_NAME_THEN_CALL = lazy.regex(r"\b(?:name|named|called)[,:]?\s+" + _IDENT + r"\s*[.;!?]\s+(?:so\s+|just\s+|please\s+|"
                             r"pls\s+)?(?:call|name|rename)\s+it\s+(?:to\s+)?" + _IDENT, re.I)
# "under the private name _builtin_open so that ... I find that name clumsy; make it _open_file": "that name" refers
# back to the name said, however far ("make it" only to a code-looking word: "make it faster" renames nothing)
_THAT_NAME = lazy.regex(r"\bname[,:]?\s+" + _IDENT + r"\b.{0,200}?\bthat\s+name\b[^.;!?]*[.;!?]?\s*(?:so\s+|just\s+|"
                        r"please\s+|pls\s+)?(?:call|name|rename|make)\s+it\s+(?:to\s+)?" + _IDENT, re.I | re.S)
# ("Could we rename it to Y?": a question's modal opens the sentence, it is no old name)
_POLITE = frozenset({"please", "pls", "plz", "so", "just", "then", "now", "also", "could", "can", "would", "will",
                     "should", "shall", "may", "might", "maybe", "perhaps", "let", "lets", "we", "you"})
# "assigns to a variable named type; call it mime_type": the kind word says the old one is a name, whatever word
_KIND_NAMED_THEN = lazy.regex(r"\b(?:variable|var|local|parameter|argument|attribute|field)\s+(?:called|named)\s+"
                              + _IDENT + r"[^.:!?]*?[.;:!?]?\s*(?:so\s+|just\s+|please\s+|pls\s+)?"
                              r"(?:call|name|rename)\s+it\s+(?:to\s+)?" + _IDENT, re.I)
_KIND_BEFORE = lazy.regex(r"\b(?:param(?:eter)?|arg(?:ument)?|variable|var|local|attribute|field)\b"
                          r"(?:[^.;:!?]|\.(?=\w)){0,60}$", re.I)  # "... of gettext.find": a dotted name goes on
_AND_PAIR = lazy.regex(r"\band\s+" + _IDENT + r"\s+(?:to|into)\s+" + _IDENT, re.I)
_ARROW_PAIR = lazy.regex(_IDENT + r"\s*(?:->|→|=>)\s*" + _IDENT)
# "in textwrap, shorten() -> truncate()": both said as calls with nothing passed ("f() -> None" is a signature)
_CALL_ARROW = lazy.regex(_IDENT + r"\(\)`?\s*(?:->|→|=>)\s*" + _IDENT + r"\(\)")
# "I want dedent to be called remove_common_indent", "we'd like f to be named g"
_WANT_CALLED = lazy.regex(r"\b(?:want|like|prefer|need)\s+" + _IDENT
                          + r"\s+to\s+be\s+(?:called|named|renamed\s+to)\s+"
                          + _IDENT, re.I)
# "give wrap a better name: wrap_paragraph", "_patch needs a clearer name, like _use_thread_dict"
_BETTER_NAME = lazy.regex(r"(?:\bgive\s+" + _IDENT + r"\s+|" + _IDENT
                          + r"\s+(?:needs|deserves|could\s+use|should\s+get)\s+)an?\s+"
                          r"(?:better|clearer|new|proper|more\s+\w+)\s+name\b\s*[:,(-]?\s*"
                          r"(?:like\s+|such\s+as\s+|e\.g\.\s+|maybe\s+|say\s+|perhaps\s+)?" + _IDENT, re.I)
# a name suggested after a rename is asked: "Something like _break_long_word would be clearer", "enter_at would be
# nicer", "how about _chunk_text?"
_SUGGESTED = lazy.regex(r"(?:\bsomething\s+like|\bmaybe|\bperhaps|\bhow\s+about|\bwhat\s+about)\s+" + _IDENT
                        + r"|(?:^|[.;!?]\s+)" + _IDENT + r"\s+(?:would\s+be|sounds|reads|is)\s+"
                        r"(?:a\s+lot\s+|much\s+|far\s+)?(?:clearer|better|nicer|more\s+\w+)", re.I)
_ASKS_RENAME = lazy.regex(r"\brenam\w*|\b(?:better|clearer|new)\s+name\b", re.I)


def rename_pairs(instruction: str) -> list[tuple[str, str]]:
    """The (old, new) identifier pairs of a rename instruction; dotted names keep their last part."""
    pairs: list[tuple[str, str]] = []
    found = list(_RENAME_PAIR.finditer(instruction))
    if found:
        found += list(_AND_PAIR.finditer(instruction, found[0].end()))
    found += [m for pattern in (_CALLED, _CALL_IT_NEXT) for m in pattern.finditer(instruction)
              if looks_like_code(m.group(2)) or f"`{m.group(2)}`" in instruction]
    # "The last parameter of find is named all ... I'd like it called all_files": a kind word just before says the
    # plain word is a name
    found += [m for pattern in (_SHOULD_BE_CALLED, _IS_CALLED_THEN) for m in pattern.finditer(instruction)
              if all(looks_like_code(g) or f"`{g}`" in instruction for g in (m.group(1), m.group(2)))
              or (_KIND_BEFORE.search(instruction[:m.start()]) and looks_like_code(m.group(2)))]
    found += [m for m in _THAT_NAME.finditer(instruction) if looks_like_code(m.group(2)) or m.group(2).startswith("_")]
    found += [*_KIND_CALLED.finditer(instruction), *_KIND_NAMED_THEN.finditer(instruction),
              *_KIND_RENAME.finditer(instruction), *_NAME_THEN_CALL.finditer(instruction)]
    # "c -> b -> a" is a chain (a path, a graph), not a rename; "the _write_mode line (r -> w, rb -> wb)": an
    # aside says what the code does
    # "bases is a list instead of a tuple -> fix that pls": an arrow to an order is no rename
    found += [m for m in _ARROW_PAIR.finditer(instruction) if not re.match(r"\s*(?:->|→|=>)",
                                                                          instruction[m.end():])
              # "the same two ifs -> pull out a method": an arrow to an order is no rename either
              and not re.match(r"\s+(?:that|it|this|them|out|up|a|an|the)\b", instruction[m.end():], re.I)
              and not re.search(r"(?:->|→|=>)\s*`?$", instruction[:m.start()])
              and instruction.count("(", 0, m.start()) <= instruction.count(")", 0, m.start())]
    found += [*_CALL_ARROW.finditer(instruction), *_WANT_CALLED.finditer(instruction)]
    kinds = (_KIND_CALLED.pattern, _KIND_NAMED_THEN.pattern, _KIND_RENAME.pattern, _NAME_THEN_CALL.pattern)
    said = [(m.group(1), m.group(2), m.re.pattern in kinds) for m in found]
    said += [(m.group(1) or m.group(2), m.group(3), False) for m in _BETTER_NAME.finditer(instruction)]
    said += [(a, b, False) for a, b in _suggested(instruction, bool(said))]
    for old, new, kind_said in said:
        old, new = (g.rstrip(".").rsplit(".", 1)[-1] for g in (old, new))
        # "Please call it Y": a sentence's polite opener is not the old name (unless a kind word says it is a name)
        if old != new and (old, new) not in pairs and old != "I" and new.lower() not in NOT_NAMES and (
                kind_said or old.lower() not in NOT_NAMES | _POLITE):
            pairs.append((old, new))
    return pairs


def _suggested(instruction: str, paired: bool) -> list[tuple[str, str]]:
    """(old, new) where a rename is asked with no new name in its sentence and a later one suggests one: the old is
    the last code-looking word before the rename is asked (or before the suggestion), the new the suggested one;
    both must look like code ("Can the TextWrapper method _handle_long_word be renamed? Something like
    _break_long_word would be clearer"; "scheduler.enterabs is hard to read; enter_at would be nicer. rename")."""
    asked = _ASKS_RENAME.search(instruction)
    said = list(_SUGGESTED.finditer(instruction))
    if paired or asked is None or len(said) != 1:
        return []
    new = said[0].group(1) or said[0].group(2)
    olds = _code_words(instruction[:min(asked.start(), said[0].start())])
    if not olds and asked.start() < said[0].start():  # "Rename _munge? Something like _normalize would be clearer"
        olds = _code_words(instruction[asked.end():said[0].start()])[:1]
    if not olds or not (looks_like_code(new) or new.startswith("_")):
        return []
    return [(olds[-1], new)]


def _code_words(text: str) -> list[str]:
    return [w for w in re.findall(r"`?([A-Za-z_][\w.]*)`?", text) if looks_like_code(w) or w.startswith("_")]


def local_only(instruction: str, pairs: list[tuple[str, str]], targets: list[Symbol]) -> list[Symbol]:
    """``targets`` without the defs a rename's old name also names, when the wording says the name is a local.

    "In TextWrapper._wrap_chunks, rename the local variable indent to prefix": textwrap has a function
    ``indent`` too, but "local variable" says which ``indent`` is meant; the def named is the one it lives in.
    """
    olds = {a for a, _ in pairs}
    said = any(re.search(r"\b(?:local|variable|var)\s+(?:variable\s+|var\s+)?(?:(?:named|called)\s+)?`?"
                         + re.escape(old) + r"\b", instruction, re.I) for old in olds)
    kept = [t for t in targets if t.name not in olds]
    return kept if said and kept else targets


# "I'd prefer _StreamRedirector; please rename the class", "I would like it to be called _compare", "change its name
# to _SafeKey": a wish for a new name, said apart from the old one (sixth fresh set, run 20)
_WISHED = lazy.regex(r"\b(?:prefer|be\s+called|be\s+named|call\s+it|name\s+it|its\s+name\s+to|rename\s+it\s+to|"
                     r"(?:like|want|have)\s+it\s+(?:called|named)|"  # "I'd like it called _open_bsd_pty"
                     r"renamed\s+to|rename\w*\s+(?:the\s+\w+\s+)?to)\s+`?([A-Za-z_]\w*)`?", re.I)
_OLD_SAID = lazy.regex(r"\b(?:is\s+called|is\s+named|called|named)\s+`?([A-Za-z_]\w*)`?", re.I)


def kind_left(pairs: list[tuple[str, str]]) -> bool:
    """Whether every pair's old name is still a kind word (:func:`kind_named` found no one def of that kind): the
    wish's plainer reading may then say which ("_calibrate_inner ... is the part of calibrate() that ... rename the
    method to _measure_overhead": two methods named, the one said first is the subject)."""
    return bool(pairs) and all(old.lower() in _KIND_OLD for old, _ in pairs)


def defines(symbols: Callable[[str], list[Symbol]], text: str) -> Callable[[str], bool]:
    """Whether a word is a def of ``symbols`` or a name the module ``text`` binds at its top level (``_dateParser =
    re.compile(...)``, eighth fresh set: a rename of a module constant read nothing to rename)."""
    bound = assigned_names(text)
    return lambda word: bool(symbols(word)) or word in bound


def inferred_pair(instruction: str, defined: Callable[[str], bool], attributes: frozenset[str] = frozenset()
                  ) -> tuple[str, str] | None:
    """(old, new) when the instruction wishes one new code-shaped name and says which name it replaces: the one
    that "is called" so, else the subject of a sentence before the wish, a def, a module name or one of the file's
    ``attributes`` ("The class attribute _abc_invalidation_counter on ABCMeta is ... Can you rename it to ...":
    ninth fresh set, run 23), else the last def or module name said before it ("the class _k ... change its name
    to _K"); None when it is not that plain."""
    wishes = [m for m in _WISHED.finditer(instruction) if _code_shaped(m.group(1)) and not defined(m.group(1))
              and m.group(1).lower() not in NOT_NAMES]
    if len({m.group(1) for m in wishes}) != 1:
        return None
    new = wishes[0].group(1)
    olds = list(dict.fromkeys(m.group(1) for m in _OLD_SAID.finditer(instruction) if defined(m.group(1))))
    if len(olds) == 1:
        return olds[0], new
    # "TextWrapper._split_chunks is the part of TextWrapper.wrap ...": a dotted name is its last part; "the name
    # _scrub_removals in weakref's WeakKeyDictionary": the class says where the name is, it is not the name (ninth
    # fresh set, run 23: WeakKeyDictionary was renamed)
    said = instruction[:wishes[0].start()]
    before = [(w, d.start()) for d in re.finditer(r"\b([A-Za-z_][\w.]*\w)\b", said) if _code_shaped(
        w := d.group(1).rsplit(".", 1)[-1]) and (defined(w) or w in attributes) and not _WHERE.search(said[:d.start()])]
    # a sentence's subject ("_fail_neg in statistics.py is a cryptic name for a generator that ... raises
    # StatisticsError ... Could we rename it to ...": ninth fresh set, run 23), else the last def or module name
    subject = [w for w, at in before if _SUBJECT.search(said[:at])]
    last = [w for w, _ in before if defined(w)]
    return (subject[0] if subject else last[-1], new) if (subject or last) and not olds else None


# what may come before a sentence's subject: "The class attribute X ...", "X in statistics.py is ..."
_SUBJECT = lazy.regex(r"(?:^|[.;!?]\s+)(?:(?:the|a|an|this|that|our|its|private|public|module-level|module|level|"
                      r"class|method|function|attribute|variable|helper|constant|name|generator|property|field|"
                      r"global|regex|alias)\s+)*`?$", re.I)
# a name right after "in", "on", "of", "from" ("in weakref's", "on the class") is where the name said before it is
_WHERE = lazy.regex(r"[A-Za-z_]\w*`?\s+(?:\w+\s+)?(?:in|on|of|from|inside|within)\s+(?:the\s+)?(?:[\w.]+'s\s+)?"
                    r"(?:class\s+|module\s+)?`?$", re.I)


def _code_shaped(word: str) -> bool:
    return word.startswith("_") or looks_like_code(word)


_KIND_OLD = {"class": ("class",), "function": ("function",), "method": ("method",), "helper": ("function", "method")}
_WORDS = lazy.regex(r"`?([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)`?")


def kind_named(pairs: list[tuple[str, str]], instruction: str, lookup: Callable[[str], list[Symbol]]
               ) -> list[tuple[str, str]]:
    """Pairs whose old name is only a kind word ("Rename the class to _ClosedMapping") given the one def of that
    kind the instruction named before ("... is called _ClosedDict, but it is a MutableMapping ..."; seventh set,
    run 21: the class itself was renamed "class"). A kind word with no such def, or several, stays as it was."""
    out = []
    for old, new in pairs:
        kinds = _KIND_OLD.get(old.lower())
        said = re.search(rf"\b{re.escape(old)}\s+(?:to|into|as)\s+`?{re.escape(new)}\b", instruction)
        if kinds and said is not None:
            named = {s.qualname: s for m in _WORDS.finditer(instruction[:said.start()]) for s in lookup(m.group(1))
                     if s.kind in kinds and s.name == m.group(1).rsplit(".", 1)[-1]}
            if len(named) == 1:
                old = next(iter(named.values())).name
        out.append((old, new))
    return out
