"""Plain English words the instruction reader must not take for names of code.

After "class" or "function", a word may be the name ("the class Foo") or prose ("the class that parses",
"the base class does nothing"); these sets say which words are prose there, for :mod:`coder.edit.intent.words`
and the readers that share its list of non-names (parameters, cross-file destinations, mentions).
"""

from __future__ import annotations

# Plain words that follow a kind word without naming anything ("the class that parses").
NOT_NAMES = frozenset({
    "that", "which", "who", "to", "in", "of", "and", "or", "the", "a", "an", "with", "for", "it", "its", "is",
    "so", "this", "these", "those", "above", "below", "here", "there", "body", "name", "names", "definition",
    "definitions", "signature", "call", "calls", "docstring", "itself", "at", "on", "by", "from", "as", "be",
    "should", "must", "can", "will", "then", "when", "where", "whose", "variable", "variables", "parameter",
    "parameters", "argument", "arguments", "attribute", "field", "local", "constant", "module", "file", "import",
})


# verbs and adverbs that follow a kind word in prose ("the base class does nothing", "the function returns a str",
# "the class has no state"): read as names they made a request refuse ("names class does, which string.py does
# not define"; the 2026-12-03 demo in the TUI)
PROSE_AFTER_KIND = frozenset({
    "does", "do", "did", "doesn", "has", "have", "had", "was", "were", "are", "been", "may", "might", "could",
    "would", "shall", "returns", "raises", "takes", "gets", "needs", "uses", "handles", "works", "accepts",
    "expects", "keeps", "gives", "yields", "makes", "already", "also", "still", "always", "never", "only", "now",
    "just", "instead", "itself", "again", "too", "here", "there", "above", "below",
    # "a class statement never hits this", "the function body": what the kind is made of, no name
    "statement", "statements", "definition", "definitions", "body", "bodies", "object", "objects", "instance",
    "instances", "attribute", "attributes", "variable", "variables", "level", "hierarchy", "header", "signature",
    # "remove that function together with ...", "the base class behind f", "the function entirely" (run 20)
    "together", "behind", "entirely", "altogether", "completely", "as", "with", "and", "or", "but", "from", "in",
    "into", "of", "on", "for", "that", "which", "who", "whose", "where", "when", "if", "so", "then", "than",
    "first", "last", "alone", "anymore", "afterwards", "accordingly",
})


# words that stand before a kind word whose name follows it ("a new class Foo", "the helper function f")
BEFORE_KIND = frozenset({"a", "new", "private", "public", "helper", "static", "small", "nested", "inner", "base",
                          "module-level", "top-level", "existing", "whole", "entire", "same", "each", "every"})
