"""F-strings the result gets wrong: one with nothing to format, and a plain string that should have been one.

An f-string with nothing to format, new in the result: the ``f`` changes nothing, so it was not what was asked.

Seen on the 2-core CPU (run 18, fresh4 lzma-transform w1, one region per named def): asked to make the two
"Invalid mode" messages f-strings, the 1.5B made both right and prefixed every other literal of
``LZMAFile.__init__`` with ``f`` as well. The program is the same, the diff is not what the user asked, and no
other check saw it. pyflakes reports such literals (F541); only those beyond the original's count are refused.
"""

from __future__ import annotations

import ast
import re
from collections import Counter

from pyflakes import messages

from coder.edit.checks.flakes import flake_messages
from coder.edit.source.trees import own_nodes
from coder.textsafe import one_line


def _empty_fstrings(text: str) -> list[int] | None:
    found = flake_messages(text)
    return None if found is None else [int(m.lineno) for m in found
                                       if isinstance(m, messages.FStringMissingPlaceholders)]


def empty_fstrings(old: str, new: str) -> str | None:
    """Why ``new`` gains f-strings that format nothing (None: it gains none)."""
    before, after = _empty_fstrings(old), _empty_fstrings(new)
    if before is None or after is None or len(after) <= len(before):
        return None
    rows = [r for r in after if r not in before] or after  # lines shift: where they are now, for the message
    shown = ", ".join(str(r) for r in rows[:4]) + (" ..." if len(rows) > 4 else "")
    return (f"the result makes f-strings that format nothing (line {shown}): the f changes nothing there, and it was "
            "not asked")


# "{title}", "{self.name!r}", "{count:>4}": a placeholder whose name is one the function binds
_PLACEHOLDER = re.compile(r"(?<!\{)\{([A-Za-z_]\w*)(?:\.[A-Za-z_]\w*)*(?:![rsa])?(?::[^{}]*)?\}(?!\})")
_FORMATTERS = frozenset({"format", "format_map"})


def _unformatted(tree: ast.AST) -> list[tuple[str, int, str, str]]:
    """Every plain string of a def that holds ``{name}`` of a name that def itself binds (a parameter or an
    assignment of its own body, not a closure's) and is never formatted: (its text, its line, the name, the def)."""
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    found = []
    for fn in ast.walk(tree):
        if not isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        own = own_nodes(fn)
        if any(isinstance(n, ast.Attribute) and n.attr in _FORMATTERS and not isinstance(n.value, ast.Constant)
               for n in own):
            continue  # a template held in a name and formatted later: its braces are meant
        bound = {a.arg for a in (*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs)}
        bound |= {n.id for n in own if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        doc = fn.body[0].value if fn.body and isinstance(fn.body[0], ast.Expr) else None
        for node in own:
            if not isinstance(node, ast.Constant) or not isinstance(node.value, str) or node is doc:
                continue
            up = parents.get(node)
            if isinstance(up, ast.JoinedStr | ast.FormattedValue):
                continue  # a part of an f-string already
            if isinstance(up, ast.Attribute) and up.attr in _FORMATTERS:
                continue  # "{x}".format(x=x)
            if isinstance(up, ast.BinOp) and isinstance(up.op, ast.Mod) and up.left is node:
                continue  # "%s" templates say nothing of braces
            if isinstance(up, ast.Call) and node in up.args and (
                    isinstance(up.func, ast.Attribute) and up.func.attr in _FORMATTERS):
                continue  # str.format("{x}", x=x), a formatter's template
            for m in _PLACEHOLDER.finditer(node.value):
                if m.group(1) in bound:
                    found.append((node.value, node.lineno, m.group(1), fn.name))
                    break
    return found


def missing_fprefix(old: str, new: str) -> str | None:
    """Why ``new`` gains a plain string that spells a placeholder of a local name (None: it gains none).

    Seen applied on the 2-core CPU (run 20, a new ``title`` parameter): ``a('<title>{title}</title>\\n')``, the
    ``f`` left out, so every page is titled with the braces and the word; the file parses and pyflakes sees
    nothing. A string the result shares with the original, one that is formatted (``.format``, ``%``) and one
    whose braces name nothing the def binds are let through.
    """
    try:
        before, after = _unformatted(ast.parse(old)), _unformatted(ast.parse(new))
    except (SyntaxError, ValueError):
        return None
    seen = Counter(text for text, _, _, _ in before)
    for text, line, name, fn in after:
        if seen[text] > 0:
            seen[text] -= 1
            continue
        return (f"the string {one_line(repr(text), 60)} (line {line}) spells {{{name}}}, a name {fn} binds, "
                "without the f prefix: it gives the braces and the word, not the value")
    return None
