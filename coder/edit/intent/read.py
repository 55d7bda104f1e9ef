"""One reading of the instruction: its verb, its names resolved against the code, and its relation words.

:func:`read_instruction` is the one entry: an instruction and the files involved into a :class:`.spec.ChangeSpec`.
The tolerant grammar finds the verb anywhere ("get rid of", "move ... so that it comes right after"), resolves every
word that equals a symbol of the files (backticked or bare, any case), and reads the relation words around the names
("m of the class C", "from the class C", "after g", "at the end of the file"). When it finds no action, or a name
could mean more than one symbol, the running model is asked once (:mod:`coder.edit.intent.model_read`), under a
schema whose symbol fields are the real symbols. A reading that still finds nothing is an ordinary request.
"""

from __future__ import annotations

import re
import time
from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING

from coder import lazy
from coder.edit.intent import creating, cut_move, described, extraction, phrasing, report, uses, words
from coder.edit.intent import new_names as created_names
from coder.edit.intent.anchor import anchor_of, landmarks
from coder.edit.intent.context import outside_context
from coder.edit.intent.examples import examples_of
from coder.edit.intent.facts import facts_of
from coder.edit.intent.group import group_moved
from coder.edit.intent.implied import implied
from coder.edit.intent.kept import not_meant
from coder.edit.intent.lines import comment_home, line_anchor
from coder.edit.intent.names import (
    ARTICLES,
    KIND_WORDS,
    VERBS,
    Tok,
    resolve,
    tokens,
)
from coder.edit.intent.names import (
    mentions as find_mentions,
)
from coder.edit.intent.new_names import ADD, ADJ, DUNDER_NAME, DUNDER_ON, GIVE, NEEDS, SIG
from coder.edit.intent.params import (
    ADD_PARAM,
    described_params,
    existing,
    name_of,
    param_targets,
    params_of,
    with_calls,
)
from coder.edit.intent.reach import THROUGHOUT, only_here, reach_of, rename_home
from coder.edit.intent.renames import defines, inferred_pair, kind_left, kind_named, local_only, rename_pairs
from coder.edit.intent.spec import ALL_KINDS, Action, ChangeKind, ChangeSpec, Symbol
from coder.edit.intent.symbols import SymbolTable, outermost

if TYPE_CHECKING:
    from coder.edit.intent.model_read import Asker

_DUNDER = "`?" + DUNDER_NAME + "`?"
_ADD_METHOD = lazy.regex(ADD + r"\s+(?:an?\s+|the\s+)?" + ADJ + SIG + r"(?:methods?|property)\b"
                         r"|\bgive\s+(?:the\s+)?(?:class\s+)?`?\w+`?(?:\s+class)?\s+an?\s+" + ADJ + SIG
                         + r"(?:method|property)\b"
                         # "C needs a m method", "C should have a clear method": the class lacks it
                         r"|\b(?:needs?|lacks?|get|gain|offer|offers|expose|could\s+use|(?:should\s+|could\s+)?have)\s+an?\s+"
                         + ADJ + SIG + r"(?:method|property)\b"
                         # "float has is_integer() and I need the same on Fraction: a method returning ..."
                         r"|\b(?:need|want|like)\b[^.;:]{0,40}:\s*an?\s+" + ADJ + r"(?:method|property)\b"
                         # "add tokens(self) returning ...": a def taking self is a method
                         r"|" + ADD + r"\s+(?:an?\s+)?`?[A-Za-z_]\w*\(\s*self\b"
                         # "C needs is_mixed(self) -> bool": the same, said of the class
                         r"|" + NEEDS + r"`?[A-Za-z_]\w*\(\s*self\b"
                         # "add __repr__ to the Template class", "give Template a __repr__": a dunder of a class
                         r"|" + ADD + r"\s+(?:an?\s+)?" + _DUNDER
                         + r"\s+to\s+(?:the\s+)?(?:class\s+`?\w+|`?\w+`?\s+class\b)"
                         r"|" + GIVE + _DUNDER + r"|" + creating.NEW_MEMBER
                         # "can we get a __repr__ on TextWrapper": a dunder wished on a class
                         + r"|" + DUNDER_ON, re.I)
_ADD_FUNCTION = lazy.regex(ADD + r"\s+(?:an?\s+|the\s+)?" + ADJ + r"(?:`?[A-Za-z_]\w*(?:\([^()]*\))?`?\s+)?"
                           r"(?:function|func|helper)\b"
                           # "calendar needs nth_weekday(year, month, weekday, n): ...": a def the module lacks
                           r"|" + NEEDS + r"`?[A-Za-z_]\w*`?\((?!\s*self\b)[\w\s,=*]*\)"
                           # "new stringprep func is_prohibited(ch) -> ...": no verb, a new def and its signature
                           r"|\bnew\s+(?:[\w.]+\s+)?(?:function|func|helper)\s+`?[A-Za-z_]\w*`?\s*\("
                           r"|" + creating.NEW_SIGNED  # "new pkgutil.list_submodules(pkg): ..."
                           # "I'd like a compose function in functools", "we'd like a small helper f(x) that ..."
                           + r"|\b(?:I'?d|I\s+would|we'?d|we\s+would)\s+like\s+(?:to\s+have\s+)?(?:an?\s+)" + ADJ
                           + r"(?:`?[A-Za-z_]\w*(?:\([^()]*\))?`?\s+)?(?:function|func|helper)\b", re.I)
_ADDVERBS = frozenset({"add", "adds", "give", "create", "write", "implement", "define", "introduce", "insert",
                        "provide"})
# "hints for f please", "add hints to f": a hint is a type hint ("typing into the child": the keyboard's typing)
_HINTS = lazy.regex(r"\btype\s+hints?\b|\btype\s+annotations?\b|\bannotat\w*|\bhint\s+the\s+types\b|"
                    r"\btyping\b(?!\s+(?:in|into|on|at|a|an|the|some|any|text|keys?|commands?|characters?)\b)|"
                    r"^\W*hints?\b|\b(?:add|adding)\s+(?:some\s+)?hints\b", re.I)
_DOCSTRING = report.DOCSTRING
_COMMENT = lazy.regex(r"\bcomments?\b", re.I)
_DOCSTRING_NOUN = lazy.regex(r"\bdoc\s?-?strings?\b|\bdocumentation\b", re.I)
# flaws of prose, not of code: "the typo in the docstring", "a spelling mistake in the comment"
_TEXT_FLAWS = lazy.regex(r"\b(?:typos?|spell\w*|misspel\w*|grammar\w*|wording|phrasing|punctuation)\b", re.I)
# where the object of a verb ends: a clause's punctuation or a word that opens a clause
_CLAUSE_ENDS = frozenset({",", ";", ":", ".", "!", "?", "(", "so", "that", "which", "because", "when", "if", "since",
                          "while", "but", "as", "it", "where", "whose"})
_FIX = lazy.regex(r"\b(?:fix\w*|bug\w*|broken|wrong|incorrect\w*|crash\w*|fails?|failing|should(?:n't| not)?)\b", re.I)


def _lead(instruction: str, toks: list[Tok], names: set[int]) -> tuple[str, int]:
    """The first verb of the instruction (its family: "delete", "move", "add", "fix"...) and its token index."""
    rid, texts = phrasing.gets_rid(instruction, toks, names), [t.text for t in toks]
    for i, t in enumerate(toks):
        if rid is not None and t.start >= rid.start():
            return "delete", i
        low = phrasing.verb_form(phrasing.wished(texts, i, VERBS))  # "I'd like it relocated": relocate
        if (not t.word or t.code or i in names or phrasing.quoted(instruction, t.start)  # "warns 'use the ...'"
                or phrasing.reported(texts, i) or phrasing.attributive(texts, i)):
            continue
        if low in VERBS:
            return VERBS[low], i
        if low in ("put", "place"):  # "put quote after split" moves; "put a comment above run" adds
            nxt = next((j for j in range(i + 1, len(toks)) if toks[j].text.lower() not in ARTICLES | KIND_WORDS), -1)
            # "put the threading import below import time": an import is a unit that moves like a def
            unit = nxt + 1 < len(toks) and toks[nxt + 1].text.lower() in ("import", "alias")
            # "capwords should come last, put it after Formatter": the pronoun is a def named before
            named = nxt >= 0 and toks[nxt].text.lower() in ("it", "them") and any(j < i for j in names)
            return ("move" if nxt in names or unit or named else "add"), i
        if low in _ADDVERBS:
            return "add", i
    return ("delete", len(toks)) if rid is not None else ("", -1)


_ADDS: tuple[tuple[lazy.LazyPattern, Action], ...] = (
    (lazy.regex(r"\brenam(?:e|es|ed|ing)\b", re.I), "rename"), (extraction.ASKED, "extract"),
    (ADD_PARAM, "add_parameter"), (_ADD_METHOD, "add_method"))


# "comment on the pop() line ...: LIFO restore -> reentrant": what follows a comment's colon is its text, not a rename
_PROSE_LEAD = lazy.regex(r"^\W*(?:(?:add|put|write|insert)\s+(?:an?\s+)?)?(?:comment|docstring|doc)\b", re.I)


def _prose_object(instruction: str, toks: list[Tok], at: int) -> Action | None:
    """"docstring" or "comment" when the verb's object is such text ("fix the typo in the docstring of f",
    "correct the spelling in f's documentation", "replace 'retrun' with 'return' in the comment"); else None.

    Its object runs to the clause's end: "Fix f: its docstring says it returns a list" fixes f's code.
    """
    end = next((j for j in range(at + 1, len(toks)) if toks[j].text.lower() in _CLAUSE_ENDS), len(toks))
    # "comments=True" is an argument, not the text of a comment
    phrase = " ".join(t.text for j, t in enumerate(toks[at + 1:end], at + 1)
                      if not (j + 1 < end and toks[j + 1].text == "="))
    for noun, kind in ((_DOCSTRING_NOUN, "docstring"), (_COMMENT, "comment")):
        if noun.search(phrase) or (_TEXT_FLAWS.search(phrase) and noun.search(instruction)):
            return kind  # type: ignore[return-value]  # both are Actions
    return None


def _action(instruction: str, toks: list[Tok], names: set[int]) -> Action:
    # "add type hints to every parameter of f", "a docstring ... explaining its arguments": no parameter is added
    found = next((action for pattern, action in _ADDS if (m := pattern.search(instruction)) and not (
        action == "add_parameter" and (_HINTS.search(m.group(0)) or _DOCSTRING_NOUN.search(m.group(0))
                                       or _COMMENT.search(m.group(0))))), None)
    if found is not None:
        return found
    if rename_pairs(instruction) and not _PROSE_LEAD.match(instruction):
        return "rename"
    lead, at = _lead(instruction, toks, names)
    if lead in ("delete", "move") or (not lead and phrasing.placed(instruction)):  # "f should sit above g": a move
        # "remove that duplicate line": a statement goes, inside the def named (a change of it)
        return "change" if phrasing.cuts_statement(instruction, toks, at) else lead or "move"  # type: ignore[return-value]
    if _ADD_FUNCTION.search(instruction) and not (_HINTS.search(instruction) or _DOCSTRING.search(instruction)
                                                  or _COMMENT.search(instruction)):
        return "add_function"
    if lead == "change" and (prose := _prose_object(instruction, toks, at)) is not None:
        return prose  # a typo is fixed in the text that holds it: no statement changes
    # "Fix split: comments=True should keep comments": a fix of split, not a comment
    object_word = next((t.text.lower() for t in toks[at + 1:] if t.word and t.text.lower() not in ARTICLES), "")
    leads_code = lead in ("change", "transform") and at == 0 and not re.match(
        r"doc|comment|type|annotat|hint", object_word)
    if not leads_code:
        # "... still get their annotations evaluated, as if ...": with no verb, a report's nouns are no order
        if _HINTS.search(instruction) and (lead or not report.symptom(instruction)):
            return "type_hints"
        # "document the loops with a comment": the noun says which kind, the verb only that it documents
        # "merge(..., key=len) blows up with TypeError -- the example from its own docstring": a symptom's nouns
        if _DOCSTRING.search(instruction) and (not report.cites_docstring(instruction) or report.asks_docstring(
                instruction)) and not (
                _COMMENT.search(instruction) and not _DOCSTRING_NOUN.search(instruction)):
            return "docstring"
        # "every comment our HTMLParser subclass gets ends with a stray dash": a report about comments of the data
        if _COMMENT.search(instruction) and (report.asks_comment(instruction) or not report.symptom(instruction)):
            return "comment"
    if lead in ("change", "transform", "docstring", "type_hints"):
        return lead  # type: ignore[return-value]
    if _FIX.search(instruction):
        return "change"  # "f crashes on x", "f should return y": a change of behaviour
    return "change" if lead else "unknown"


def _allows(action: Action, instruction: str) -> frozenset[ChangeKind]:
    if action in ("type_hints", "docstring", "comment"):
        kinds: set[ChangeKind] = set()
        if _HINTS.search(instruction):
            kinds.add("annotations")
        if _DOCSTRING_NOUN.search(instruction) or (_DOCSTRING.search(instruction) and not _COMMENT.search(instruction)):
            kinds.add("docstrings")
        if _COMMENT.search(instruction):
            kinds.add("comments")
        return frozenset(kinds) or ALL_KINDS
    return ALL_KINDS


def _settled(action: Action, instruction: str, targeted: bool) -> Action:
    """A whole-file transform when nothing is named; a change of the named defs otherwise."""
    if action in ("change", "unknown") and not targeted and THROUGHOUT.search(instruction):
        return "transform"
    if action in ("transform", "unknown") and targeted:
        # "convert f to ...", "don't use a mutable default in f", no verb but named defs: a change of them
        # (the model reads only what names nothing)
        return "change"
    return action


def grammar_read(instruction: str, table: SymbolTable) -> ChangeSpec:
    """The deterministic reading: verb, names resolved against ``table``, relation words."""
    toks = tokens(instruction)
    everywhere = bool(words.EVERYWHERE.search(instruction))
    found = find_mentions(toks, table, everywhere=everywhere)
    # "the private helper that picks ...": a def described, not named; the description's words are no verb, no name
    desc = described.find(instruction, toks, table)
    span = desc.said if desc is not None else set()
    said = {m.index for m in found if m.sure} | span
    action = creating.settled(_action(described.blanked(instruction, desc, toks), toks, said), instruction, table)
    # "get rid of dct", "scan_code has code = co.co_code that's never used, delete it": a statement, not the def
    cut_line = cut_move.spelled_statement(instruction, toks, table) if action == "delete" else None
    action = "change" if action == "delete" and (cut_move.deletes_local(toks, table) or cut_line) else action
    # "something like commands(self)", "dircmp.is_identical() please", "e.g. columnize(names, sep=' | ')"
    action = shown.action if (shown := implied(instruction, action, table)) else action
    pairs = kind_named(rename_pairs(instruction), instruction, table.lookup)  # "Rename the class to Y"
    renames = described.instance_renamed(instruction, table, pairs)  # "the C instance"
    bound = defines(table.lookup, table.texts.get(table.home, ""))
    wished = None if renames and not kind_left(renames) else inferred_pair(instruction, bound, table.attributes)
    renames = [wished] if wished else renames
    action = "rename" if renames != pairs else action
    renames = [] if action in ("comment", "docstring") and _PROSE_LEAD.match(instruction) else renames  # its text
    renames = renames if action == "rename" else [p for p in renames if bound(p[0])]  # "CR -> LF": no name of it
    desc = None if action in ("add_method", "add_function") else desc  # "add a helper that ...": a new def
    found, renames, action = described.applied(desc, found, table.module, instruction, renames, action)
    params = params_of(instruction) if action == "add_parameter" else ()
    new_names = created_names.new_names(instruction, action, table, renames, params)
    creates = action in ("add_method", "add_function", "extract")
    mentions = creating.created(found, toks, new_names) if creates else found
    if action in ("add_method", "add_function") and new_names:  # an extraction's sources are named anywhere
        mentions = creating.not_described(mentions, toks, new_names)
    if action == "delete":  # "delete the line insort = insort_right": insort_right is the value, it stays
        mentions = [m for m in mentions if m.index == 0 or toks[m.index - 1].text != "="]
    bug = report.is_report(toks, action)  # "Fix f: g(x) gives y", "Cancelling breaks run()": the def at fault
    mentions = report.named(toks, table, mentions) if bug else mentions
    chosen, ambiguous, doubtful = resolve(mentions, toks, table, renames, behaviour=action in ("change", "unknown"))
    # a class named only to qualify a member ("m of the class C") is no target, unless every method of it is asked
    whole = {s.qualname for s in chosen.values() if s.kind == "class"} if phrasing.every_member(instruction) else set()
    chosen = {i: s for i, s in chosen.items() if not (s.kind == "method" and s.qualname.rpartition(".")[0] in whole)}
    members = {c.qualname for c in chosen.values() if any(table.qualifies(c, m) for m in chosen.values())}
    anchor = None if bug else anchor_of(instruction, mentions, chosen, action)
    owner: Symbol | None = None
    if action == "add_method":
        classes = creating.signed_owner(instruction, table) or [s for s in chosen.values() if s.kind == "class"]
        owner = classes[0] if len(set(classes)) == 1 else None
    by_index = {m.index: m for m in mentions}
    # "relocate all three so they come after g and immediately precede merge": g and merge stay where they are
    fixed = landmarks(instruction, mentions, chosen) if action == "move" and anchor is not None else set()
    picked = [(by_index[i], s) for i, s in chosen.items() if not (s.kind == "class" and s.qualname in members)
              # "move f after g", "write a helper h right after g": g is where, not what changes
              and (anchor is None or anchor.symbol is None or s != anchor.symbol
                   or action not in ("move", "add_function"))
              and s != owner and s not in fixed]
    picked = not_meant(creating.not_aside(picked, mentions, toks, action), toks, table.home, action)
    targets, handed = report.chain(report.blamed(picked, toks), toks, table, mentions) if bug else (
        [s for _, s in picked], ())
    if action == "add_parameter":
        targets = param_targets(instruction, mentions, toks, chosen, targets, table)
    targets = outermost(targets)
    targets = described_params(instruction, targets, table) if action in ("type_hints", "docstring") else targets
    targets = [s for s in targets if s.name not in new_names] if action == "add_function" else targets
    targets = local_only(instruction, renames, targets) if action == "rename" else targets
    targets = described.targets(desc, targets, action)
    facts = replace(facts_of(instruction, table, {*new_names, *(m.word for m in mentions)}, action, fault=bug),
                    cut_line=cut_line, calls=uses.said_calls(instruction, table, owner.qualname, new_names)
                    if owner is not None and action == "add_method" else ())
    if desc is not None:  # "the class that turns tables into Function, Class ... objects": no extraction into Class
        facts = replace(facts, extract_into=extraction.extract_into(described.blanked(instruction, desc, toks)))
    if action == "add_parameter" and existing(params, targets, table):
        # "getopt should take longopts=None": the defs take it already, so its default or use changes
        taken = {name_of(p) for p in params}
        action, params, new_names = "change", (), tuple(n for n in new_names if n not in taken)
    if action == "delete" and anchor is not None and anchor.symbol in targets and not any(
            s.name in facts.gone or s.qualname in facts.gone for s in targets):
        # "remove the comment above div": div is where the removal happens, not what goes
        action = "comment" if _COMMENT.search(instruction) else "change"
    targets = group_moved(action, targets, anchor, toks, table, fixed)  # "relocate the three private helpers"
    if action in ("delete", "move") and not targets:
        action, facts, anchor = cut_move.no_def(action, instruction, toks, facts, anchor, table)
        targets = cut_move.main_helpers(instruction, facts, table) if action == "delete" else targets
    anchor, facts, dest = cut_move.beside(instruction, table.home, action, bool(targets), anchor, facts)
    if action == "move" and anchor is not None and targets:
        facts = replace(facts, moves=True)  # "move quote after split": one block moves ("split" is no verb here)
    if action in ("delete", "rename", "type_hints"):
        anchor = None  # "delete f ... at the end of the file" says where f is, not where a change goes
    lines = words.line_spans(instruction)
    reach = reach_of(instruction, facts, bool(targets), bool(targets or owner or lines), everywhere=facts.everywhere)
    tops = uses.top_level_names(table.texts.get(table.home, "")) if action == "rename" else frozenset[str]()
    facts = replace(facts, confined=rename_home(facts.confined, targets, renames, table.params, tops)
                    if action == "rename" and reach == "symbol" else facts.confined)
    action = _settled(action, instruction, bool(targets))
    notes: tuple[str, ...] = (f"described: {desc.why}",) if desc else ()
    ambiguous = described.choices(desc, targets, action, outside_context(ambiguous, mentions, toks, action))
    notes += tuple(f"{w!r} could name {', '.join(s.qualname for s in table.lookup(w)[:4])}" for w in ambiguous)
    if not chosen and doubtful:  # "make the output fill the width": fill may be the verb, or the function
        facts = replace(facts, doubtful=tuple(dict.fromkeys(doubtful)))
    spec = ChangeSpec(
        instruction=instruction, action=action, targets=tuple(dict.fromkeys(targets)), renames=tuple(renames),
        values=tuple(words.value_pairs(instruction)), new_names=new_names, params=params, anchor=anchor,
        reach=reach, allows=_allows(action, instruction), owner=owner, read_by="grammar", dest=dest,
        ambiguous=tuple(dict.fromkeys(ambiguous)), notes=notes + handed + tuple(
            f"{w!r} is a plain word here, not taken as the symbol" for w in dict.fromkeys(doubtful)
            if not chosen), lines=lines, facts=with_calls(replace(facts, fault=bug), instruction, params))
    return shown.settle(spec, table) if shown else spec


def needs_model(spec: ChangeSpec) -> bool:
    """The grammar could not settle it: no action found, or a name could mean more than one symbol."""
    return spec.action == "unknown" or bool(spec.ambiguous) or (
        not spec.targets and bool(spec.facts.doubtful) and spec.action == "change")


def read_instruction(instruction: str, files: Mapping[str, str], *, home: str,
                     ask: Asker | None = None, repository: bool = False) -> ChangeSpec:
    """The change spec of ``instruction`` over ``files`` (relative path -> text), ``home`` being edited.

    ``ask`` is the model reader (:class:`coder.edit.intent.model_read.Asker`): used once, only when the grammar
    finds no action or an ambiguous name, or a fault in a long file is reported with no place named. Never raises
    for wording; a word that names nothing in the files is no target. ``repository``: ``files`` are all the
    repository's (a reach "everywhere" only ``home`` uses is its).
    """
    started = time.perf_counter()
    table = SymbolTable.of(files, home)
    spec = grammar_read(instruction, table)
    if repository:
        spec = only_here(spec, files, home)
    if ask is not None:
        from coder.edit.intent.model_read import model_read, unplaced

        if needs_model(spec) or unplaced(spec, files.get(home, "")):
            spec = model_read(spec, table, ask)
    # a fix's failing calls, a new __repr__'s text (checks.behaviour); the line a comment goes above (lines.py)
    spec = comment_home(spec, instruction, files.get(home, ""))
    spec = replace(spec, examples=examples_of(spec, instruction, table, files.get(home, "")),
                   anchor=line_anchor(spec, instruction, files.get(home, "")))
    return replace(spec, seconds=time.perf_counter() - started)


def target_of(rel: str, text: str, instruction: str) -> Symbol | None:
    """The one symbol of ``rel`` the instruction is about, if exactly one (region mode, the warm-up)."""
    spec = read_instruction(instruction, {rel: text}, home=rel)
    mine = [s for s in spec.targets if s.rel == rel]
    return mine[0] if len(mine) == 1 else None
