"""The parameters an instruction adds: "add a parameter P", "a P=1 parameter", "f should take P=1", "P (new parameter)".

Spelled with or without the word "parameter", with or without a default; :func:`params_of` gives each
once, in its fullest spelling, and :func:`existing` tells a parameter the defs already take (its default
changes: no parameter is added).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from coder import lazy
from coder.edit.intent.names import ARTICLES, Mention, Tok
from coder.edit.intent.spec import Facts, Symbol
from coder.edit.intent.symbols import SymbolTable
from coder.edit.intent.vocab import NOT_NAMES

_TAKES_NAMED = (r"\b(?:take|takes|accept|accepts)\s+(?:an?\s+)?(?:(?:new|optional|extra)\s+)*`?([A-Za-z_]\w*)`?\s+"
                r"(?:keyword|kwarg|keyword\s+argument)\b"
                r"|\b(?:take|takes|accept|accepts)\s+an?\s+optional\s+`?([A-Za-z_]\w*)`?\s+(?:list|sequence|string|"
                r"str|dict|mapping|int|float|bool|value|callable|object|path|iterable|"
                r"function|func|callback|hook|argument|arg|parameter|param|flag)\b"  # "an optional key function"
                # "shorten should accept a placeholder_first flag": a flag, option or switch named before its noun
                r"|\b(?:take|takes|accept|accepts)\s+an?\s+(?:(?:new|extra|boolean|bool)\s+)*(?:`?([A-Za-z_]\w*)`?\s+flag"
                # an option or switch only by a code-looking name: "accepts a long option prefix" is the user's input
                r"|`?([A-Za-z]\w*_\w*)`?\s+(?:option|switch))\b"
                # "could random.randint take an optional step, the way randrange does?": the name, then the clause ends
                r"|\b(?:take|takes|accept|accepts)\s+an?\s+optional\s+`?([A-Za-z_]\w*)`?"
                r"(?=\s*[,.;?!)]|\s+(?:the\s+way|like|as|so|too|which|that)\b)")
_VALUE = r"(?:'[^']*'|\"[^\"]*\"|[^\s`,;()]+)"
# "take an optional keep, default None", "accept an extra limit (default 0)", "take a new p defaulting to 1"
_TAKES_DEFAULT = (r"\b(?:take|takes|accept|accepts)\s+(?:an?\s+)?(?:(?:new|optional|extra)\s+)+`?([A-Za-z_]\w*)`?"
                  r"(?:\s*,\s*(?:with\s+)?(?:a\s+)?default(?:ing|s)?(?:\s+(?:to|of|is)|:)?"
                  r"|\s*\(\s*default(?:s\s+to|\s+is|:)?|\s+defaulting\s+to|\s+that\s+defaults\s+to)\s+(" + _VALUE + ")")
# "could shutdown take an optional timeout (None by default, meaning ...)": the default said before its words
_TAKES_BY_DEFAULT = (r"\b(?:take|takes|accept|accepts)\s+(?:an?\s+)?(?:(?:new|optional|extra)\s+)+`?([A-Za-z_]\w*)`?"
                     r"\s*\(\s*(" + _VALUE + r")\s+by\s+default")
# "allow a custom page title (title=None -> keep 'Calendar for YEAR')": the new parameter spelled in brackets
_CUSTOM_SPELLED = (r"\b(?:allow|allows|support|supports|let|lets)\s+(?:an?\s+|the\s+)?(?:custom|optional|own|"
                   r"different|caller-supplied|user-supplied)\s+[^.;()]{0,40}\(\s*`?([A-Za-z_]\w*)\s*=\s*("
                   + _VALUE + ")")
# "give textwrap.fill() a strict parameter": a dotted name does not end the clause
ADD_PARAM = lazy.regex(r"\b(?:add|adds|adding|give|introduce|extend|extends)\b"
                       r"(?:'[^']*'|\"[^\"]*\"|[^.;!?'\"]|\.(?=\w))*?"
                       r"\b(?:param(?:eter)?s?|arg(?:ument)?s?|kwargs?|"
                        r"keyword\s+arg\w*)\b"
                        # "add an optional pad flag to f": a flag named and given to a def (not "a --verbose flag")
                        r"|\b(?:add|adds|adding|give|introduce)\s+(?:an?\s+)?(?:new\s+|optional\s+|boolean\s+|bool\s+)*"
                        r"`?[A-Za-z_]\w*`?\s+flag(?:\s+(?:to|for|on)\b|\s*,\s*(?:off|on|false|true|default)|"
                        r"\s+(?:defaulting|that\s+defaults|off\s+by\s+default)\b)"
                        # "add a keyword-only strict=False": a name given its default
                        r"|\b(?:add|adds|adding|give|introduce)\s+(?:an?\s+)?(?:new\s+|optional\s+|keyword-only\s+)*"
                        r"`?[A-Za-z_]\w*`?\s*(?:=\s*[\w'\"]|\(\s*default)"  # "add optional start (default 0) to f"
                        r"|\b(?:take|takes|accept|accepts)\s+(?:an?\s+)?(?:new\s+|optional\s+|extra\s+)*"
                        r"(?:param(?:eter)?|arg(?:ument)?|keyword|flag)\b"
                        # "f should take flags=0", "accept p (default 1)", "take a separator: a sep parameter"
                        r"|\b(?:take|takes|accept|accepts)\s+`?[A-Za-z_]\w*`?\s*(?:=|\(default)"
                        r"|\b(?:take|takes|accept|accepts)\b[^.;]*?\b(?:param(?:eter)?|arg(?:ument)?)\b"
                        r"|\bnew\s+(?:param(?:eter)?|arg(?:ument)?|keyword\s+arg\w*)\b"
                        # "let f take an optional sep, default None", "accept an extra p defaulting to 0"
                        r"|" + _TAKES_DEFAULT + r"|" + _TAKES_BY_DEFAULT +
                        # "allow a custom page title (title=None -> keep the current one)"
                        r"|" + _CUSTOM_SPELLED +
                        # "accept a filename keyword", "take an optional argv list": the name before its noun
                        r"|" + _TAKES_NAMED, re.I)
_PARAM = lazy.regex(r"\b(?:param(?:eter)?|arg(?:ument)?|kwarg|keyword(?:\s+argument)?|flag),?\s+"
                    r"(?:called\s+|named\s+)?`?([A-Za-z_]\w*(?:\s*:\s*[\w\[\]|., ]+?)?(?:\s*=\s*[^`,;]+?)?)`?"
                    r"(?=\s+(?:to|for|of|in|on|that|which|and)\b|[,.;]|$)"
                    r"|`([A-Za-z_]\w*(?:\s*:\s*[^`=]+)?(?:\s*=\s*[^`]+)?)`\s+(?:param(?:eter)?|arg(?:ument)?|flag)\b",
                    re.I)
# the parameter spelled without the word "parameter" after it: "take flags=0", "a sep=' ' parameter",
# "accept placeholder (default ' [...]')", "include_hidden (new parameter, default True)", "a sep parameter"
_PARAM_MORE = (
    lazy.regex(r"\b(?:take|takes|accept|accepts)\s+`?([A-Za-z_]\w*\s*=\s*" + _VALUE + ")"),
    lazy.regex(r"`?\b([A-Za-z_]\w*(?:\s*=\s*" + _VALUE + r")?)`?\s+(?:param(?:eter)?|arg(?:ument)?)\b"),
    lazy.regex(r"\b(?:take|takes|accept|accepts)\s+`?([A-Za-z_]\w*)`?\s*\((?:default|new\s+param)"),
    lazy.regex(r"`?\b([A-Za-z_]\w*)`?\s*\(new\s+(?:param(?:eter)?|arg(?:ument)?)"),
    # "add an optional pad flag to f": the flag's name before the noun
    lazy.regex(r"(?<!-)\b([A-Za-z_]\w*)`?\s+flag\s+(?:to|for|on)\b"),
    # "add a strict flag, off by default": a flag's name before its default said
    lazy.regex(r"(?<!-)\b([A-Za-z_]\w*)`?\s+flag(?:\s*,\s*(?:off|on|false|true|default)|"
               r"\s+(?:defaulting|that\s+defaults|off\s+by\s+default)\b)", re.I),
    lazy.regex(_TAKES_NAMED, re.I),
    # "as a parameter too: add char=' '": the parameter spelled with its default after the verb
    lazy.regex(r"\b(?:add|adds|adding)\s+(?:an?\s+)?(?:new\s+|optional\s+|keyword-only\s+)*`?([A-Za-z_]\w*\s*=\s*"
               + _VALUE + ")", re.I),
)
# "a char parameter (default ' ')", "include_hidden (new parameter, default True)": the default said after it,
# in parentheses
_DEFAULT_AFTER = lazy.regex(r"`?\b([A-Za-z_]\w*)`?\s*(?:\s(?:param(?:eter)?|arg(?:ument)?)\s*\(|"
                            r"\(\s*new\s+(?:param(?:eter)?|arg(?:ument)?)\s*,)\s*default(?:s\s+to)?\s+("
                            + _VALUE + r")\s*\)")

# "add optional start (default 0) to indexOf": a name given to a def with its default in brackets
_ADDED_DEFAULT = lazy.regex(r"\b(?:add|adds|adding|give|introduce)\s+(?:an?\s+)?(?:new\s+|optional\s+|keyword-only\s+)*"
                            r"`?([A-Za-z_]\w*)`?\s*\(\s*default(?:s\s+to|\s+is|:)?\s+(" + _VALUE + r")\s*\)", re.I)

_TAKES_DEFAULT_RE = lazy.regex(_TAKES_DEFAULT, re.I)
_TAKES_BY_DEFAULT_RE = lazy.regex(_TAKES_BY_DEFAULT, re.I)
_CUSTOM_SPELLED_RE = lazy.regex(_CUSTOM_SPELLED, re.I)

_NOT_PARAMS = NOT_NAMES | ARTICLES | {"new", "optional", "extra", "keyword", "boolean", "bool", "default",
                                            "defaulting", "defaults", "first", "second", "third", "fourth",
                                            "another", "last", "final",
                                            # "take it as a parameter too", "as a parameter as well": no name
                                            "too", "also", "as", "well", "either", "instead", "here", "there"}
# "pass it on to `re.compile`", "forward it to TextWrapper": what the new parameter is handed to is no target
_HANDED_TO = lazy.regex(r"\b(?:pass|passes|passing|forward|forwards|forwarding|hand|hands|handing)\s+(?:it|them)\s+"
                        r"(?:on\s+|through\s+|along\s+|down\s+)?to\b", re.I)  # "pass it through to Shelf"


def params_of(instruction: str) -> tuple[str, ...]:
    """The parameters ``instruction`` adds, each once in its fullest spelling (``sep=' '`` over ``sep``)."""
    out = []
    for pattern in _PARAM_MORE:
        for m in pattern.finditer(instruction):
            said = next(g for g in m.groups() if g)  # _TAKES_NAMED has five spellings, one group each
            word = said.split("=")[0].strip().lower()
            if word not in _NOT_PARAMS:
                out.append(re.sub(r"\s+", " ", said).replace(" = ", "="))
    out += [f"{m.group(1)}={m.group(2).rstrip('.:')}" for pattern in (_DEFAULT_AFTER, _ADDED_DEFAULT, _TAKES_DEFAULT_RE,
                                                                      _TAKES_BY_DEFAULT_RE, _CUSTOM_SPELLED_RE)
            for m in pattern.finditer(instruction) if m.group(1).lower() not in _NOT_PARAMS]
    for m in _PARAM.finditer(instruction):
        p = (m.group(1) or m.group(2) or "").strip().rstrip(".")
        if p and p.split(":")[0].split("=")[0].strip().lower() not in _NOT_PARAMS:
            out.append(re.sub(r"\s+", " ", p))
    # one parameter spelled twice ("sep" and "sep=' '"): keep its fullest spelling
    names = [p.split(":")[0].split("=")[0].strip() for p in out]
    out = [p for p, n in zip(out, names, strict=True) if not any(
        q != p and names[j] == n and len(q) > len(p) for j, q in enumerate(out))]
    if not out:
        ticked = [t for t in re.findall(r"`([^`]+)`", instruction) if re.match(r"[A-Za-z_]\w*\s*(?::|=)", t)]
        out += ticked
    return tuple(dict.fromkeys(out))




# "pass include_hidden=include_hidden at its calls", "have both calls pass char=' ' explicitly": what each call passes
_PASSES = lazy.regex(r"\bpass(?:es|ing)?\s+`?([A-Za-z_]\w*\s*=\s*" + _VALUE + ")", re.I)


def passes_of(instruction: str, params: Sequence[str]) -> tuple[str, ...]:
    """The keyword arguments ``name=value`` the instruction has the calls pass, for the parameters it adds."""
    names = {name_of(p) for p in params}
    out = []
    for m in _PASSES.finditer(instruction):
        name, _, value = m.group(1).partition("=")
        value = value.strip().rstrip(".`")
        if name.strip() in names and value:
            out.append(f"{name.strip()}={value}")
    return tuple(dict.fromkeys(out))


# where a clause of the instruction ends: a sentence's end (not the dot of ``Timer.__init__``), a semicolon
_CLAUSE_END = lazy.regex(r"[.;](?=\s|$)")
# where the clause that spells the calls begins, inside its sentence: ", and pass", "; update its calls to pass"
_JOINED = lazy.regex(r",?\s+and\s+$|,\s*$")


def with_calls(facts: Facts, instruction: str, params: Sequence[str]) -> Facts:
    """``facts`` with what the calls pass, as spelled (:func:`passes_of`), and then the instruction without it."""
    passes = passes_of(instruction, params)
    own = without_calls(instruction) if passes else instruction
    return replace(facts, passes=passes, own_words=own if own != instruction else "")


def without_calls(instruction: str) -> str:
    """The instruction without the clauses that spell what its calls pass ("Pass `p=p` at its calls in g and h.",
    "..., and pass char=' ' from the two places that call it"); the instruction itself when none does.

    Seen on the H200 and the 2-core CPU (run 9, glob-callers w0): shown ``_listdir`` with the whole instruction,
    the 1.5B added ``include_hidden`` and left the body alone, retry included; asked without the sentence on
    the calls (coder writes those), it wrote the filter the instruction asks for.
    """
    spans = []
    for m in _PASSES.finditer(instruction):
        ends = [e.end() for e in _CLAUSE_END.finditer(instruction, 0, m.start())]
        start = ends[-1] if ends else 0
        said = m.start() + len(m.group(0).rstrip(".`"))  # "pass strict=strict." ends at the sentence's dot
        stop = next((e.end() for e in _CLAUSE_END.finditer(instruction, said)), len(instruction))
        if (joint := _JOINED.search(instruction, start, m.start())) is not None:
            # "add a char parameter ..., and pass char=' ' ...": the sentence is the def's up to the joint
            start, stop = joint.start(), min(stop, len(instruction[:stop].rstrip(".;")))
        if not _only_where(instruction[start:m.start()] + " " + instruction[said:stop]):
            return instruction  # the clause asks more than what the calls pass: the def is asked all of it
        spans.append((start, stop))
    out, last = [], 0
    for a, b in spans:
        out.append(instruction[last:a])
        last = max(last, b)
    out.append(instruction[last:])
    left = re.sub(r"\s+", " ", "".join(out)).strip()
    if left and not left.endswith((".", ";")) and instruction.rstrip().endswith((".", ";")):
        left += "."
    return left.rstrip(";,").strip() or instruction


# what a clause on the calls may say besides the keyword: where they are ("at its calls in `_glob1` and
# `_rlistdir`", "from the two places that call it", "have both calls in Timer.__init__ ... explicitly")
_WHERE_WORDS = frozenset({
    "pass", "passes", "passing", "update", "have", "make", "change", "at", "its", "the", "a", "calls", "call",
    "caller", "callers", "in", "inside", "where", "from", "of", "both", "two", "all", "places", "place", "that",
    "it", "and", "explicitly", "each", "every", "site", "sites", "to", "so", "they", "them", "too", "also", "as",
    "well", "with", "now", "there", "which", "calling"})


def _only_where(words: str) -> bool:
    """Whether ``words`` say only where the calls are: the words above, and names spelled as code (``_glob1``,
    ``Timer.__init__``, anything in backticks). A plain word ("and raise ValueError on a bad line", "main") may
    ask more of the def, so the clause is not cut."""
    for token in re.findall(r"`[^`]*`|[\w.]+", words.strip(" ,;.")):
        if not (token.startswith("`") or token.lower() in _WHERE_WORDS or "_" in token or "." in token.strip(".")):
            return False
    return True


def name_of(param: str) -> str:
    """``sep`` of ``sep: str = ' '``."""
    return param.split(":")[0].split("=")[0].strip()


def existing(params: Sequence[str], targets: Sequence[Symbol], table: SymbolTable) -> bool:
    """Every parameter is one every named def takes already ("getopt should take longopts=None")."""
    defs = [s for s in targets if s.kind != "class"]
    return bool(params and defs) and all(table.has_param(s, name_of(p)) for s in defs for p in params)


# ": when it is false, leave out names that `_ishidden` says are hidden.": what the parameter does, to its
# sentence's end; the defs named there are used, not changed
_EFFECT = lazy.regex(r"[:;,]\s*(?:when|whenever|if|unless)\b[^.;]*", re.I)


_TAKE_VERBS = frozenset({"take", "takes", "accept", "accepts"})
_ASKING = frozenset({"could", "can", "would", "should", "let", "make", "please"})


def param_targets(instruction: str, mentions: list[Mention], toks: list[Tok], chosen: dict[int, Symbol],
                  targets: list[Symbol], table: SymbolTable) -> list[Symbol]:
    """A new parameter's targets: not what it is handed to ("pass it on to `re.compile`"), nor a def named in
    what it does ("when it is false, skip the names `_ishidden` says are hidden"), nor where the calls of
    another target are ("have both calls in Timer.__init__ pass char=' '": a caller, reached as one)."""
    handed = _HANDED_TO.search(instruction)
    effects = [m.span() for m in _EFFECT.finditer(instruction)]
    used = {m.index for m in mentions if handed is not None and toks[m.index].start > handed.start()
            and m.before == "to"}
    used |= {m.index for m in mentions if any(a <= toks[m.index].start < b for a, b in effects)}
    used |= _calling_sites(mentions, toks, chosen, table)
    kept = [s for i, s in chosen.items() if i not in used]
    targets = [s for s in targets if s in kept] or targets
    # "If serve_forever has died ... Could shutdown take an optional timeout": the def that is to take it
    # ("webbrowser.open takes autoraise" is a fact, not a request: the def is asked, "could f take", "let f take")
    takers = {chosen[m.index] for m in mentions if m.index in chosen and m.index + m.size < len(toks)
              and toks[m.index + m.size].text.lower() in _TAKE_VERBS and m.before in _ASKING}
    targets = [s for s in targets if s in takers] or targets if len(takers) == 1 else targets
    # a class takes a new parameter in its own __init__ ("add p as the last parameter of open and C")
    targets = [table.member(s, "__init__") or s if s.kind == "class" else s for s in targets]
    # "Shelf already supports a keyencoding argument, but open and DbfilenameShelf don't": Shelf has it
    names = [name_of(p) for p in params_of(instruction)]
    lacking = [s for s in targets if not names or not all(table.has_param(s, n) for n in names)]
    return lacking or targets


def _calling_sites(mentions: list[Mention], toks: list[Tok], chosen: dict[int, Symbol],
                   table: SymbolTable) -> set[int]:
    """The mentions that say where another target is called: "the calls in g (and h)", "where g and h call it".

    Only a def that does call another named def counts: "add p to f in C" still gives p to the def named. "have g
    and h pass p=True" says where the calls are too.
    """
    named = {s.qualname for s in chosen.values()}
    named_at = {m.index for m in mentions}
    out: set[int] = set()
    last = -1
    for m in (m for m in mentions if m.index in chosen):
        found = table.calls.get((chosen[m.index].rel, chosen[m.index].qualname))
        calls = bool(found and set(found.callees) & named - {chosen[m.index].qualname})
        joined = last >= 0 and all(t.text.lower() in ("and", "or", ",") for t in toks[last + 1:m.index])
        if calls and (m.before in ("in", "where", "callers", "caller") or (joined and last in out)
                      or (m.before in ("have", "make", "let") and _then_pass(toks, m.index, named_at))):
            out.add(m.index)
        last = m.index
    return out


def _then_pass(toks: list[Tok], i: int, names: set[int]) -> bool:
    """The names from ``i`` on, coordinated ("g and h", "g, h"), are followed by "pass": they are told to pass."""
    j = i + 1
    while j < len(toks) and (toks[j].text.lower() in ("and", "or", ",") or j in names):
        j += 1
    return j < len(toks) and toks[j].text.lower() in ("pass", "passes")


# "invalidation_mode a PycInvalidationMode or None", "mtime is an optional float": a parameter and what it is
_IS_A = lazy.regex(r"\b(?=([A-Za-z_]\w*)(?:\s+(?:argument|parameter|arg|param))?\s+(?:is\s+|are\s+)?(?:an?\s+|the\s+)?"
                   r"(?:optional\s+)?`?([A-Za-z_]\w*)`?)", re.I)  # overlapping: "The namespace argument is a UUID"


def described_params(instruction: str, targets: list[Symbol], table: SymbolTable) -> list[Symbol]:
    """``targets`` less what the text or hints of a def only describe: one of its own parameters said by name
    ("the keyword-only mtime an optional float" is compress's ``mtime``, not ``GzipFile.mtime``), and a class said
    as a parameter's type ("invalidation_mode a PycInvalidationMode or None"). Third fresh set, explained wordings:
    both became second targets, and the region spanned half the file."""
    defs = [s for s in targets if s.kind in ("function", "method")]
    if not defs:
        return targets
    def own(s: Symbol) -> set[str]:  # the parameters of the other defs said
        return {p for d in defs if d != s for p in table.params.get((d.rel, d.qualname), ())}

    typed = {m.group(2) for m in _IS_A.finditer(instruction) if m.group(1) in own(_NOBODY)}
    return [s for s in targets if not (s.name in own(s) or (s.kind == "class" and s.name in typed))]


_NOBODY = Symbol("", "", "function", 0, 0)  # no def: every def said counts
