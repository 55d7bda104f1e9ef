"""The names of the defs an instruction creates: "add a method `pending`", "a helper named f", "C needs m(self)",
"I'd like a compose function", and the verbs and adjectives of creating that
:mod:`coder.edit.intent.read` shares with them.
"""

from __future__ import annotations

import re

from coder import lazy
from coder.edit.intent import creating, extraction
from coder.edit.intent.facts import BUILTINS
from coder.edit.intent.names import ARTICLES
from coder.edit.intent.spec import Action
from coder.edit.intent.symbols import SymbolTable
from coder.edit.intent.vocab import NOT_NAMES

ADD = r"\b(?:add|adds|adding|create|write|implement|define|introduce|insert|provide)\b"
ADJ = (r"(?:(?:new|small|simple|static|private|public|helper|dunder|special|module-level|top-level|class|instance|"
       r"read-only|readonly|cached|convenience)\s+)*")
SIG = r"(?:`?[A-Za-z_]\w*(?:\([^)]*\))?`?\s+)?"  # "clear", "`clear()`", "node_count(self)"
DUNDER_NAME = r"__(?!all__|version__|author__|doc__)[A-Za-z]\w*__"  # a special method (a module's dunders aside)
NEEDS = r"\b(?:needs?|should\s+have|could\s+have|lacks?)\s+(?:an?\s+)?"  # "C needs is_mixed(self)"
GIVE = r"\bgive\s+(?:the\s+)?(?:class\s+)?`?\w+`?(?:\s+class)?\s+an?\s+"  # "give Template a __repr__"
# "can we get a __repr__ on TextWrapper": a dunder wished on a class
DUNDER_ON = r"\b(?:get|have|gain|want|need|like)\s+an?\s+`?(" + DUNDER_NAME + r")`?\s+(?:on|for|in)\b"
NEW_NAMES = (lazy.regex(r"(?<![-\w])(?:method|function|func|helper|called|named)\s+(?!called\b|named\b)"
                        r"`?([A-Za-z_]\w*)`?(?:\([^)]*\))?", re.I),  # "a helper named f": f; "abstract-method x": no
             lazy.regex(r"(?<![-\w])`?([A-Za-z_]\w*)(?:\([^)]*\))?`?\s+(?:method|function|helper|property)\b", re.I),
             lazy.regex(ADD + r"\s+(?:an?\s+)?`?([A-Za-z_]\w*)\(\s*self\b", re.I),
             lazy.regex(NEEDS + r"`?([A-Za-z_]\w*)\(\s*self\b", re.I),
             lazy.regex(NEEDS + r"`?([A-Za-z_]\w*)`?\((?!\s*self\b)[\w\s,=*]*\)", re.I),  # "needs f(a, b): ..."
             lazy.regex(creating.NEW_SIGNED, re.I), lazy.regex(creating.NEW_MEMBER, re.I),
             # "a small convenience function in pkgutil, list_submodules(package), that ...": the signature said apart
             lazy.regex(r"\b(?:function|func|helper)\s+(?:in|for)\s+[\w.]+,\s+`?([A-Za-z_]\w*)`?\(", re.I),
             lazy.regex(r"(?:" + ADD + r"\s+(?:an?\s+)?|" + GIVE + r")`?(" + DUNDER_NAME + r")`?", re.I),
             lazy.regex(DUNDER_ON, re.I))
NOT_NEW = NOT_NAMES | ARTICLES | {
    "new", "helper", "method", "function", "own", "separate", "small", "level",
    # "a verify method taking the expected MAC": what the method does, after its noun
    "taking", "returning", "accepting", "giving", "using", "checking", "computing", "reading", "writing",
    "private", "public", "one", "single", "module", "static",  # "into one private function f(x)"
    # "a small convenience function in pkgutil, f(x)", "all go to the last function in the list": no names
    "convenience", "simple", "utility", "little", "tiny", "last", "first", "next", "previous", "other", "same",
    "given", "inner", "outer", "original", "wrapped", "composed", "decorated"}
CALLED_NEW = lazy.regex(r"`?\b([a-z_][a-z0-9]*_[a-z0-9_]+)\(\)")  # "is_integer()": a snake_case call said bare
PLAIN_NEW = lazy.regex(r"\b(?:a|an)\s+" + ADJ + r"`?([a-z]+)`?\s+(?:property|method)\b")


def new_names(instruction: str, action: Action, table: SymbolTable, renames: list[tuple[str, str]],
              params: tuple[str, ...]) -> tuple[str, ...]:
    """The names ``action`` creates, in the order said: a rename's new names, a new def's (not a participle nor
    a word of its description), an extraction's target, and the new parameters' names."""
    out = [new for _, new in renames]
    if action in ("add_method", "add_function", "extract"):
        found: list[tuple[int, str]] = []
        for m in (m for pattern in NEW_NAMES for m in pattern.finditer(instruction)):
            name = m.group(1)
            # "a method moving n items": a participle after the noun; "a method named pending" is named so
            participle = (name.islower() and name.isalpha() and name.endswith("ing")
                          and not re.match(r"(?:called|named)\b", m.group(0), re.I))
            if (name and name.lower() not in NOT_NEW and not participle
                    and (not table.lookup(name) or action != "extract")):
                found.append((m.start(1), name))
        if not found and action == "add_method":  # "float has is_integer() and I need the same on C: a method"
            found += [(m.start(1), m.group(1)) for m in CALLED_NEW.finditer(instruction)
                      if not table.lookup(m.group(1)) and m.group(1) not in BUILTINS]
        # "give it a read-only name property": a plain word right before the noun it names is the new name
        found += [(m.start(1), m.group(1)) for m in PLAIN_NEW.finditer(instruction)
                  if m.group(1).lower() in NOT_NAMES and not table.lookup(m.group(1)) and action == "add_method"]
        out += creating.not_in_description(instruction, sorted(found))
    if action == "extract" and (into := extraction.extract_into(instruction)):  # "Extract g(y) from f"
        out.append(into)
    out += [p.split(":")[0].split("=")[0].strip() for p in params]
    return tuple(dict.fromkeys(out))
