"""What a new or changed def is told to use: "compared with compare_digest", "using the module's _quote".

A small model asked for "a verify method ... compared with compare_digest so it is constant time" wrote
``return self.digest() == signature`` (seen applied on the 2-core CPU, run 20): it runs, it answers right, and the
one thing the instruction asked of its comparison is not there. What the instruction names after such a word is kept
when it is a module-level binding of the edited file (a def, a class or an import), so the check
(:mod:`coder.edit.checks.uses`) can hold the new code to it; a name after "instead of", "without" or "stop using"
is the opposite of an order and is not kept.
"""

from __future__ import annotations

import ast
import re

from coder import lazy
from coder.edit.intent.symbols import SymbolTable

# "using X", "via X", "by calling X", "compared with X", "delegate to X"; "the module's" and a module prefix may
# stand between ("using the module's compare_digest", "with hmac.compare_digest")
_USE = lazy.regex(r"\b(?:using|uses?|via|through|by\s+calling|rel(?:y|ies|ying)\s+on|"
                  r"delegat(?:e|es|ing)\s+to|\w+ed\s+with|(?:compar|check)(?:e|es|ing|s)?\s+with|(?:done|made|built)\s+with)\s+"
                  r"(?:(?:the|its|our)\s+)?(?:module'?s\s+|\w+'s\s+)?`?((?:[A-Za-z_]\w*\.)?[A-Za-z_]\w*)`?", re.I)
# "instead of using X", "without calling X", "stop using X", "no longer uses X", "don't call X": no order to use X
_NOT = lazy.regex(r"\b(?:instead\s+of|rather\s+than|without|stop|no\s+longer|not|never|don'?t|doesn'?t|avoid)\s+$",
                  re.I)


def top_level_names(text: str) -> frozenset[str]:
    """The names a module binds at its top level by def, class, import or assignment, also inside a top-level
    ``try``/``if`` ("try: from _operator import _compare_digest as compare_digest")."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return frozenset()
    names: set[str] = set()
    body = list(tree.body)
    while body:
        node = body.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            names.update((a.asname or a.name).split(".")[0] for a in node.names if a.name != "*")
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.Try | ast.If):
            body.extend([*node.body, *node.orelse, *getattr(node, "finalbody", []),
                         *(s for h in getattr(node, "handlers", []) for s in h.body)])
    return frozenset(names)


def asked_uses(instruction: str, table: SymbolTable, known: set[str]) -> tuple[str, ...]:
    """The module-level names of the edited file the instruction tells the change to use, in order; ``known``
    (the names the change is about or creates) are not among them: "when I use indent" names the target."""
    bound = top_level_names(table.texts.get(table.home, ""))
    module = table.module
    out: list[str] = []
    for m in _USE.finditer(instruction):
        head, _, name = m.group(1).rpartition(".")
        if head and head != module:
            continue  # "with os.path.join": a name of another module, not of the edited file
        denied = _NOT.search(instruction[max(0, m.start() - 16):m.start()])
        if name in bound and name not in out and name not in known and not denied:
            out.append(name)
    return tuple(out)


# "returns True when ratio() is at least cutoff", "try real_quick_ratio() and quick_ratio() first": a method said as
# a call with nothing in its brackets
_SAID_CALL = lazy.regex(r"(?<![\w.])(?:self\.)?([A-Za-z_]\w*)\(\)")
# "like ratio()", "as get_opcodes() does", "instead of ratio()": said to compare, not to call
_COMPARED = lazy.regex(r"\b(?:like|unlike|as|instead\s+of|rather\s+than|similar\s+to|same\s+as|mirrors?|copy\s+of|"
                       r"not|without|never|don'?t|avoid)\s+(?:(?:call|calling|calls|using|use)\s+)?(?:the\s+)?$", re.I)

_EXPECTED = lazy.regex(r"\s*(?:should|must|will|would|shall|has\s+to|needs\s+to)\b", re.I)


def said_calls(instruction: str, table: SymbolTable, owner: str, new_names: tuple[str, ...]) -> tuple[str, ...]:
    """The methods of class ``owner`` (its own or inherited) that a new method's instruction says as calls, each of
    which the new method is to call ("is_similar(cutoff=0.6) ... True when ratio() is at least cutoff"): seen on the
    H200 (tenth fresh set, run 24), an is_similar that never called ratio() was applied, wrong."""
    out: list[str] = []
    for m in _SAID_CALL.finditer(instruction):
        name = m.group(1)
        if name in new_names or name in out or _COMPARED.search(instruction[max(0, m.start() - 24):m.start()]):
            continue
        if _EXPECTED.match(instruction, m.end()):
            continue  # "afterwards empty() should be True": what holds after the new method ran, not a call in it
        if any(s.qualname == f"{owner}.{name}" for s in table.lookup(name)) or table.inherited(f"{owner}.{name}"):
            out.append(name)
    return tuple(out)
