"""A bug report's reading: the def the report is about, whatever else its symptom names.

A report says what goes wrong rather than what to edit: "quote('') gives back an empty string",
"Cancelling the first event breaks the order (run() then runs them out of order)", "Fix `done`:
with `{'b': ['a']}`, `static_order()` yields only `['a']`". Its names are of two sorts: the def at
fault, and the calls that show the symptom. The def at fault is, in this order:

1. the object of a leading "Fix" ("Fix `done`: ...", "fix reindent, it ..."): what follows says the symptom;
2. a def the report blames: after "because", "looks like", "seems", the subject of a negation
   ("_ishidden doesn't handle bytes"), or a def named bare before "should" or "must" ("_write_file_prefix
   should accept ..."): the sentence says that def's behaviour is what changes, whatever call its example makes;
3. the def its example calls with arguments ("decoding ... is broken: unhex(b'ff') returns 85"): the call
   whose result is wrong (the outer one of nested calls: "b85decode(b85encode(b'abcd')) gives b''");
4. else the first def it names, with those coordinated with it ("wrap and fill crash on ...").

An example call names where the symptom shows, not always where the behaviour is decided: a def
that only hands the example's values on to other defs of its file ("filter(['a'], '[!a]')" hands
the pattern to ``_compile_pattern``, and that to ``translate``) may be right while one of those is
wrong. Unless the report says which def is at fault (rules 1 and 2), it is then about the whole
chain (:func:`chain`): a region that holds them all, never a single def that may lack the bug.

A report also names a def by the gerund that opens a clause ("Cancelling the first event ...",
"because quoting the empty string ...") and a class by a member it inherits ("PriorityQueue.get()
doesn't ..." is about PriorityQueue, which does not define get itself). A report's "after cancel()"
says when the symptom shows, not where a change goes: it has no anchor.
"""

from __future__ import annotations

import re

from coder import lazy
from coder.edit.intent.names import ARTICLES, KIND_WORDS, VERBS, Mention, Tok, prev_word
from coder.edit.intent.spec import Symbol
from coder.edit.intent.symbols import SymbolTable

FIXES = frozenset({"fix", "repair", "correct", "debug"})
# verbs that make a clause an order ("..., make it faster"); a fix verb does not: "quote('') is wrong, fix it"
_ORDERS = frozenset(v for v in VERBS if v not in FIXES) | {
    "add", "create", "write", "implement", "define", "introduce", "insert", "provide", "give", "put", "place"}
_CLAUSE = frozenset({",", ";", ":", ".", "!", "?", "(", "then", "and", "please"})
_BLAME_BEFORE = frozenset({"because", "since", "like", "seems", "probably", "suspect"})
# "_ishidden doesn't handle bytes" blames _ishidden; "run() never starts", "f fails on x" say a symptom
_NEGATION = frozenset({"doesn", "don", "didn", "cannot", "forgets"})
# "_write_file_prefix should accept ...": a def named bare (no example call) as the subject of what ought to be
_OUGHT = frozenset({"should", "must", "ought"})
# what may stand in the object of "Fix": "Fix the method `done` of `TopologicalSorter`", "fix wrap and fill"
_OBJECT_WORDS = ARTICLES | KIND_WORDS | {"and", "or", ",", "of", "in", "from", "'", "s", "both"}


# what a report of wrong behaviour says ("still", "as if the import never happened", "it's supposed to")
_SYMPTOM = lazy.regex(r"\b(?:still|supposed\s+to|as\s+if|never|instead\s+of|wrong|bug\w*|broken|doesn't|does\s+not|"
                      r"raises|crash\w*|fails|expected|blows?\s+up|[A-Z]\w*Error|"
                      # "returns values that are too small", "should give 0.75 but I get 0.67" (ninth set, run 23)
                      r"too\s+(?:small|large|big|low|high|short|long|early|late|many|few|much|little)|"
                      r"but\s+(?:I|we)\s+(?:get|got|see|saw))\b", re.I)


def symptom(instruction: str) -> bool:
    """The instruction says what goes wrong: with no verb of its own, its nouns ("their annotations get evaluated")
    say what the code does, not what text to add."""
    return bool(_SYMPTOM.search(instruction))


# "its own docstring", "the docstring" read backwards up to the noun: text that is there, not text asked for
_EXISTING_DOC = lazy.regex(r"\s*(?:nwo\s+)?(?:sti|eht|siht|s'\w+)\b", re.I)
# "as documented" says what the code should do; "document f", "documenting" ask for documentation
DOCSTRING = lazy.regex(r"\bdoc\s?-?strings?\b|\bdocument(?:s|ing)?\b", re.I)


# "the docstring of f even says ...", "its docstring promises": a docstring that speaks is one that exists
_DOC_SAYS = lazy.regex(r"\s*(?:(?:of|for|in)\s+`?[\w.]+(?:\(\))?`?\s+)?(?:\w+ly\s+|even\s+|also\s+|still\s+)?"
                       r"(?:says|said|promises|promised|claims|states|mentions|describes|documents|reads|explains|"
                       r"notes|shows|lists|gives|specifies|agrees|insists)\b", re.I)
# "according to its docstring", "as the docstring says": the code is measured against it
_AS_DOC = lazy.regex(r"\b(?:according\s+to|as)\s+(?:its|the|this|\w+'s)\s+(?:own\s+)?doc\s?-?strings?\b", re.I)


# an order whose object is the docstring: "update the docstring of f", "its docstring is wrong, fix it", "make it
# say ...": a report may cite a docstring and still ask to change it
_DOC_ORDER = lazy.regex(
    r"\b(?:add|write|update|fix|correct|improve|rewrite|reword|expand|extend|change|edit|amend|adjust)\b"
    r"(?:(?!\.\s|[;:]).){0,40}\bdoc\s?-?strings?\b"
    r"|\bdoc\s?-?strings?\b(?:(?!\.\s|;).){0,60}\b(?:add|update|fix|correct|reword|rewrite|change|amend)\b"
    r"|\bmake\s+it\s+(?:say|read|mention)\b|\bshould\s+(?:say|read|mention)\b|\bdocument(?:ing)?\b", re.I)


# "add a comment", "put a short comment above it", "comment on the loop", "explain it with a comment": text asked for
_COMMENT_ORDER = lazy.regex(r"\b(?:add|adds|write|put|leave|insert|include|need|needs|want|like|with)\s+"
                            r"(?:(?:an?|the|some|one|short|brief|small|little|inline|explanatory|helpful|"
                            r"one-line|two-line)\s+)*comments?\b|"
                            r"\bcomment(?:s|ing)?\s+(?:on|explaining|saying|that\s+says|above|before|next\s+to|beside|"
                            r"in)\b|\bcomment\s+(?:it|them|this|that|the)\b", re.I)


def asks_comment(instruction: str) -> bool:
    """The instruction orders a comment ("add a comment above ...", "comment on the loop"); "every comment our
    parser gets ends with a dash" only says what a comment of the user's data is."""
    return _COMMENT_ORDER.search(instruction) is not None


def asks_docstring(instruction: str) -> bool:
    """The instruction orders a change of docstring text, whatever else it cites."""
    return _DOC_ORDER.search(instruction) is not None


def cites_docstring(instruction: str) -> bool:
    """A report that cites a docstring that exists ("the example straight from its own docstring"), asking for none
    (run 19: such a report was read as a docstring request). A docstring that says something ("the docstring of
    f even says it rounds half to even", "according to its docstring") is cited whether or not the report uses a
    symptom word: what is wrong is the code that does not do what it says."""
    found = list(DOCSTRING.finditer(instruction))
    if not all(_EXISTING_DOC.match(instruction[:m.start()][::-1]) for m in found):
        return False
    return symptom(instruction) or _AS_DOC.search(instruction) is not None or any(
        _DOC_SAYS.match(instruction, m.end()) for m in found)


def is_report(toks: list[Tok], action: str) -> bool:
    """Whether the instruction reports behaviour: a change led by "Fix", or one that gives no order at all."""
    if action not in ("change", "unknown"):
        return False
    words = [i for i, t in enumerate(toks) if t.word]
    if not words:
        return False
    first = words[1] if toks[words[0]].text.lower() == "please" and len(words) > 1 else words[0]
    if toks[first].text.lower() in FIXES:
        return True
    return not any(_orders(toks, i) for i in range(len(toks)))


def _orders(toks: list[Tok], i: int) -> bool:
    """An imperative opens a clause at ``i`` ("..., put it after C"; not "put 3, 1, 2 then get ...")."""
    t = toks[i]
    if not t.word or t.code or t.text.lower() not in _ORDERS or (i > 0 and toks[i - 1].text.lower() not in _CLAUSE):
        return False
    return i + 1 < len(toks) and toks[i + 1].word  # its object is a word, not a value


def named(toks: list[Tok], table: SymbolTable, mentions: list[Mention]) -> list[Mention]:
    """A report's mentions: the object of its "Fix" when it names one, else every def it names (gerunds too)."""
    found = sorted([*mentions, *extra_mentions(toks, table, mentions)], key=lambda m: m.index)
    return fix_object(toks, found) or found


def extra_mentions(toks: list[Tok], table: SymbolTable, known: list[Mention]) -> list[Mention]:
    """The defs a report names without spelling them: a clause's opening gerund, a class by an inherited member."""
    taken = {j for m in known for j in range(m.index, m.index + m.size)}
    out = []
    for i, t in enumerate(toks):
        if not t.word or i in taken:
            continue
        low = t.text.lower()
        opens = i == 0 or toks[i - 1].text.lower() in _CLAUSE | {"because", "since"}
        if opens and not t.code and low.endswith("ing") and len(low) > 5 and not table.lookup(t.text):
            stem = low[:-3]  # quoting -> quot(e), cancelling -> cancel(l), globbing -> glob(b)
            for name in (stem + "e", stem, stem[:-1] if len(stem) > 2 and stem[-1] == stem[-2] else ""):
                hits = [s for s in table.lookup(name) if s.rel == table.home and s.name.lower() == name] if name else []
                if hits:
                    out.append(Mention(i, hits[0].name, hits, True, prev_word(toks, i)[0]))
                    break
        elif "." in t.text and t.code and not table.lookup(t.text):
            owner = [s for s in table.lookup(t.text.rsplit(".", 1)[0]) if s.kind == "class" and s.rel == table.home]
            if len(owner) == 1:  # "PriorityQueue.get()": the class inherits get; the class is what the report is about
                out.append(Mention(i, t.text, owner, True, prev_word(toks, i)[0]))
    return out


def fix_object(toks: list[Tok], mentions: list[Mention]) -> list[Mention]:
    """The mentions in the object of a leading "Fix" ("Fix `done`: ..."); empty when it leads none or names none."""
    words = [i for i, t in enumerate(toks) if t.word]
    if not words:
        return []
    lead = words[1] if toks[words[0]].text.lower() == "please" and len(words) > 1 else words[0]
    if toks[lead].text.lower() not in FIXES:
        return []
    at = {m.index: m for m in mentions}
    out, j = [], lead + 1
    while j < len(toks):
        if j in at:
            out.append(at[j])
            j += at[j].size
        elif toks[j].text.lower() in _OBJECT_WORDS:
            j += 1
        else:
            break
    return out


def chain(picked: list[tuple[Mention, Symbol]], toks: list[Tok], table: SymbolTable,
          mentions: list[Mention]) -> tuple[list[Symbol], tuple[str, ...]]:
    """The defs at fault: a def the report calls with example values comes with the defs of its file it
    hands them on to (:meth:`SymbolTable.delegated`); a leading "Fix f" or a blamed def says where: that
    def alone. A def named without arguments ("enter() fails", "static_order drops nodes") stays alone.
    Also the note that says so, when the chain adds defs."""
    named = [s for _, s in picked]
    if fix_object(toks, mentions) or any(_blames(toks, m) for m, _ in picked):
        return named, ()
    out = list(dict.fromkeys(d for m, s in picked for d in (
        table.delegated(s) if s.kind != "class" and toks[m.index].called else [s])))
    handed = [s.qualname for s in out if s not in named]
    return out, (f"the example's values are handed on to {', '.join(handed)}: the change may be there too",
                 ) if handed else ()


def blamed(picked: list[tuple[Mention, Symbol]], toks: list[Tok]) -> list[tuple[Mention, Symbol]]:
    """Of the defs a report names, the ones at fault (rules 2 to 4 of the module's docstring)."""
    if len({s for _, s in picked}) <= 1:
        return picked
    called = [(m, s) for m, s in picked if toks[m.index].called]
    # "b85decode(b85encode(b'abcd')) gives b''": the outer call's result is the one shown, the inner one's is its input
    outer = [(m, s) for m, s in called if _depth(toks, m.index) == 0]
    blame = [(m, s) for m, s in picked if _blames(toks, m)] or outer or called
    if blame:
        return blame
    kept = [picked[0]]
    for m, s in picked[1:]:  # "wrap and fill", "wrap, fill or shorten": coordinated with the first
        between = [t.text.lower() for t in toks[kept[-1][0].index + kept[-1][0].size:m.index]]
        if (between and all(w in ("and", "or", ",", "both") or w in ARTICLES for w in between)) or _too(toks, m):
            kept.append((m, s))
    return kept


def _too(toks: list[Tok], m: Mention) -> bool:
    """"..., and so does dedent", "dedent too", "same for dedent": a second def with the same fault."""
    before = [t.text.lower() for t in toks[max(0, m.index - 2):m.index]]
    after = toks[m.index + m.size].text.lower() if m.index + m.size < len(toks) else ""
    return before in (["so", "does"], ["so", "do"], ["same", "for"]) or after in ("too", "also")


def _blames(toks: list[Tok], m: Mention) -> bool:
    """"because quoting ...", "looks like done() ...", "_ishidden doesn't ...", "quote('') does not ..."."""
    if prev_word(toks, m.index)[0] in _BLAME_BEFORE:
        return True
    j = m.index + m.size
    if j < len(toks) and toks[j].text == "(":  # the call's arguments: "quote('') doesn't ..."
        depth = 0
        while j < len(toks):
            depth += {"(": 1, ")": -1}.get(toks[j].text, 0)
            j += 1
            if depth == 0:
                break
    nxt = [t.text.lower() for t in toks[j:j + 2]]
    if nxt and nxt[0] in _OUGHT and not toks[m.index].called:
        return True
    return bool(nxt) and (nxt[0] in _NEGATION or (nxt[0] in ("does", "do", "did", "can") and nxt[1:] in (
        ["not"], ["'"])))


def _depth(toks: list[Tok], i: int) -> int:
    """How many parentheses are open at token ``i``."""
    depth = 0
    for t in toks[:i]:
        depth += {"(": 1, ")": -1}.get(t.text, 0)
    return max(depth, 0)
