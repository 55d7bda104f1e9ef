"""What a delete or a move names besides defs: module-level statements, the ``__main__`` block, the comment above
the defs deleted, and another file the defs move to (:func:`coder.edit.intent.read.grammar_read` asks)."""

from __future__ import annotations

import ast
import re
from dataclasses import replace

from coder import lazy
from coder.edit.intent import across, phrasing, words
from coder.edit.intent.anchor import AFTER_WORDS, BEFORE_WORDS
from coder.edit.intent.names import ARTICLES, VERBS, Tok
from coder.edit.intent.spec import Action, Anchor, Destination, Facts, Symbol
from coder.edit.intent.symbols import SymbolTable
from coder.edit.source.trees import assigned_names


def no_def(action: Action, instruction: str, toks: list[Tok], facts: Facts,
           anchor: Anchor | None, table: SymbolTable) -> tuple[Action, Facts, Anchor | None]:
    """A delete or move that names no def: of module-level statements, of the __main__ block, or a change."""
    if action == "move" and anchor is not None and anchor.symbol is not None and (
            named := _globals_named(toks, table.texts.get(table.home, ""))):
        # "move the cache globals (_cache_lock, _regex_cache) down so they sit directly above def _strptime"
        return action, replace(facts, statements=named, moves=True), anchor
    if statements := words.statement_names(instruction):
        # "move the functools import after import os", "delete the alias insort": module-level statements
        rel = next((t.text.lower() for t in toks if t.text.lower() in AFTER_WORDS | BEFORE_WORDS), "after")
        anchor = Anchor("before" if rel in BEFORE_WORDS else "after") if action == "move" else None
        return action, replace(facts, statements=statements, moves=action == "move"), anchor
    if action == "delete" and {"__main__", "__name__"} & {*facts.code_words, *facts.ticked}:
        return action, facts, None
    if action == "move" and anchor is not None and anchor.symbol is not None:
        # "relocate those four assignments to just before _strptime": what moves is not named; the planner refuses
        # it (read before as a move of the landmark or another def named for where, the wrong def moved: runs 18, 19)
        return action, facts, anchor
    return "change", facts, anchor  # "remove the print from div": div is where, not what


def beside(instruction: str, home: str, action: Action, targeted: bool, anchor: Anchor | None,
            facts: Facts) -> tuple[Anchor | None, Facts, Destination | None]:
    """What goes with a delete or a move of named defs: the comment above them, another file to move them to."""
    if action == "delete" and targeted:  # "and the comment line above them": the comment goes too
        return anchor, replace(facts, with_comment=phrasing.comment_above(instruction)), None
    dest = across.destination(instruction, home) if action == "move" and targeted else None
    if dest is not None:  # "to the end of b.py": the edited file has no anchor, the def leaves it whole
        return None, replace(facts, moves=True), dest
    return anchor, facts, None


_DELETING = frozenset(w for w, action in VERBS.items() if action == "delete") | {"of"}  # "of": "get rid of"
_BEFORE_LOCAL = ARTICLES | {"unused", "pointless", "useless", "dead", "local", "variable", "var", "name"}


def spelled_statement(instruction: str, toks: list[Tok], table: SymbolTable) -> str | None:
    """The statement of one of the file's defs a delete spells ("scan_code has code = co.co_code that's never used,
    delete it"), stripped: that statement goes, not the def (fifth fresh set, H200 run 19: the whole method was
    cut). A line counts when, spaces aside, the instruction holds it whole and it assigns or calls."""
    text = table.texts.get(table.home, "")
    said = re.sub(r"\s+", "", instruction.replace("`", ""))
    spelled = {t.text for t in toks if t.code}
    for line in text.splitlines():
        code = line.strip()
        if (line[:1] in (" ", "\t") and len(code) >= 8 and ("=" in code or "(" in code)
                and not code.startswith(("def ", "class ", "@", "#", "return", "if ", "for ", "while "))
                and re.sub(r"\s+", "", code) in said and any(w in code for w in spelled)):
            return code
    return None


def deletes_local(toks: list[Tok], table: SymbolTable) -> bool:
    """Whether a delete's object is a local variable that a def of the file assigns ("get rid of dct but keep the
    pop"): a statement of that def goes, the def stays (a change of it), whatever def the wording names."""
    text = table.texts.get(table.home, "")
    for i, t in enumerate(toks[:-1]):
        if t.text.lower() not in _DELETING or (t.text.lower() == "of" and (i < 2 or toks[i - 1].text != "rid")):
            continue
        j = next((k for k in range(i + 1, len(toks)) if toks[k].text.lower() not in _BEFORE_LOCAL), len(toks))
        word = toks[j].text if j < len(toks) and toks[j].word else ""
        return bool(word) and not table.lookup(word) and bool(
            re.search(rf"^[ \t]+{re.escape(word)}\s*(?::[^=\n]*)?=(?!=)", text, re.M))
    return False


def _globals_named(toks: list[Tok], text: str) -> tuple[str, ...]:
    """The module-level names assigned in ``text`` that the instruction spells as code, in its order."""
    bound = assigned_names(text)
    return tuple(dict.fromkeys(t.text for t in toks if t.code and t.text in bound))


# "both of its functions", "the demo's helpers", "the functions it runs": defs said without their names
_UNNAMED_DEFS = lazy.regex(r"\b(?:both|all|each)\s+of\s+(?:its|their)\s+(?:functions|helpers|defs)\b|"
                           r"\b(?:its|their)\s+(?:two\s+|own\s+)?(?:functions|helpers|defs)\b|"
                           r"\bthe\s+(?:functions|helpers)\s+(?:it|that\s+it)\s+(?:runs|calls|uses)\b", re.I)


def main_helpers(instruction: str, facts: Facts, table: SymbolTable) -> list[Symbol]:
    """The defs only the ``__main__`` block runs, when a delete of that block also asks for "both of its
    functions" without naming them (tenth fresh set, run 24: "delete the little benchmark demo at the bottom of
    random.py, both of its functions and the if __name__ == '__main__' part"). A def counts when every use of its
    name in the module is in that block or in another such def, and ``__all__`` does not list it."""
    if not ({"__main__", "__name__"} & {*facts.code_words, *facts.ticked}) or not _UNNAMED_DEFS.search(instruction):
        return []
    try:
        body = ast.parse(table.texts.get(table.home, "")).body
    except (SyntaxError, ValueError, RecursionError):
        return []
    defs = {n.name: n for n in body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)}
    main = [n for n in body if isinstance(n, ast.If) and "__main__" in ast.unparse(n.test)]
    users: dict[str, set[int]] = {name: set() for name in defs}  # the top-level statements that use each def
    for i, node in enumerate(body):
        for n in ast.walk(node):
            if isinstance(n, ast.Name) and n.id in users and node is not defs.get(n.id):
                users[n.id].add(i)
            elif isinstance(n, ast.Constant) and n.value in users:
                users[n.value].add(-1)  # named in a string (``__all__``): kept
    only = {body.index(m) for m in main}
    found: set[str] = set()
    while True:
        more = {name for name, at in users.items() if name not in found and at and at <= only}
        if not more:
            break
        found |= more
        only |= {body.index(defs[name]) for name in more}
    return [s for name in sorted(found, key=lambda n: body.index(defs[n])) for s in table.lookup(name)
            if s.rel == table.home and s.kind == "function"]
