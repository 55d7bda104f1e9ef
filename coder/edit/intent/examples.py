"""The failing examples a bug report gives: "unhex(b'ff') returns 85 instead of 255".

A user who reports a bug often shows it with one call. The shapes read here, each counted in the
fix/bugfix wordings of the 2026-12-03 H200 suite and held-out set (run4-*.json.gz):

- ``CALL returns|gives|is|yields X instead of Y`` (4: unhex, capwords, filter, getopt's ``'=1' instead of '1'``);
- ``CALL returns|gives|is X`` without what it should be (8: ``is_hop_by_hop('Connection') returns False``,
  ``fnmatch('b', '[!a]') is False``, ``Whitespace('\\t').indent_level(8) gives 1``): only "no longer X";
- ``CALL raises E`` (2: ``_ishidden('') raises IndexError``, ``Timer('x = 1\\ny = 2') raises IndentationError``);
- ``CALL should|must return|give|be Y``, and ``it should return Y`` after a call's clause (2:
  ``_ishidden('') raises IndexError, it should return False``; ``quote('') ... it should return `''```).

X and Y must be Python literals (:func:`ast.literal_eval`), CALL a call whose callee is a def or class
the edited file defines at module level (``f(...)``, ``C(...).m(...)``), perhaps wrapped in a pure
builtin (``list(TopologicalSorter({'b': ['a']}).static_order())``), its arguments literals. Anything
else ("returns a negative hue", "prints ...", a method of an instance the report does not build) is no
example: the reading never guesses a value. Whether the example shows the bug in the original file is
for the check to find out (:mod:`coder.edit.checks.behaviour`), not for the reading.
"""

from __future__ import annotations

import ast
import re

from coder import lazy
from coder.edit.intent.spec import ChangeSpec, Example
from coder.edit.intent.symbols import SymbolTable

# builtins that only look at what the wrapped call returns: "list(g(...))" shows g's result
PURE_WRAPPERS = frozenset({"list", "tuple", "sorted", "set", "frozenset", "dict", "len", "repr", "str", "bool"})
_START = lazy.regex(r"(?<![\w.])[A-Za-z_]\w*\(")
_IS = r"(?:returns|gives(?:\s+back)?|yields|evaluates\s+to|produces|is)"
_SHOULD = (r"(?:should|must|ought\s+to)\s+(?:(?:just|simply|always|instead)\s+)?"
           r"(?:return|give|be|yield|equal|evaluate\s+to)")
# "e.g. nth_weekday(2024, 11, THURSDAY, 4) == 28": the value the call is to equal, as an assert says it
_AFTER_CALL = lazy.regex(rf"`?\s*(?:(?P<should>{_SHOULD}|==)|(?P<raises>raises|throws|fails\s+with|crashes\s+with)"
                         rf"|(?P<is>{_IS}))\s+", re.I)
_INSTEAD = lazy.regex(r"\s*,?\s*(?:instead\s+of|rather\s+than|and\s+not|but\s+should\s+(?:return|give|be)"
                      r"|when\s+it\s+should\s+(?:return|give|be))\s+", re.I)
_LATER = lazy.regex(rf"\b(?:it|this|that|the\s+call|the\s+result)\s+{_SHOULD}\s+", re.I)
_ERROR = lazy.regex(r"`?(?:an?\s+)?`?([A-Z]\w*(?:Error|Exception|Warning|Exit|Interrupt|Iteration))\b")
# "when f(x) is True, ...": a condition, not the report of what f does wrong
_CONDITION = lazy.regex(r"\b(?:if|when|whenever|unless|once|as\s+long\s+as|so\s+that)\s*`?$", re.I)
_LATER_GAP = 120  # "f('') raises E, ...; it should return X": the "it" is f('') only that close
_CONTRAST = lazy.regex(r"\b(?:but|while|whereas|though|although|yet|unlike)\b", re.I)
_ENDS = " \t\n,.;:!?)`"  # what may follow a literal in prose
_TUPLE_PROSE = lazy.regex(r"\s*,\s*[-+\d'\"\[({]")  # "returns 1, 3, 2": a list in prose, not one literal
_MAX_LITERAL = 200


def examples_of(spec: ChangeSpec, instruction: str, table: SymbolTable, text: str = "") -> tuple[Example, ...]:
    """The examples the edit read as ``spec`` is held to: a fix's failing calls (with their bytes twins, from
    the home file's ``text``), a new ``__repr__``'s text."""
    if spec.action == "change":
        found = examples_in(instruction, table)
        return tuple(dict.fromkeys((*found, *bytes_twins(found, text))))
    if spec.action == "add_method" and spec.owner is not None:
        return shown_as(instruction, table, spec.new_names, spec.owner.qualname)
    if spec.action == "add_function" and spec.new_names:
        # "e.g. nth_weekday(2024, 11, THURSDAY, 4) == 28": the new function's own example (run 20: a reply giving 0
        # was applied, the example never run)
        return examples_in(instruction, table, new=spec.new_names)
    return ()


def examples_in(instruction: str, table: SymbolTable, new: tuple[str, ...] = ()) -> tuple[Example, ...]:
    """The failing calls of ``instruction`` about ``table``'s home file (and its ``new`` functions), in order (none
    when it gives none)."""
    defined = {s.qualname for s in table.in_file() if "." not in s.qualname} | set(new)
    consts = _constants(table.texts.get(table.home, ""))
    found: list[Example] = []
    spans = [s for s in _calls(instruction) if _callable(instruction[s[0]:s[1]], defined, consts)]
    for n, (start, end) in enumerate(spans):
        call = instruction[start:end]
        upto = spans[n + 1][0] if n + 1 < len(spans) else len(instruction)
        example = _shape(call, instruction, end, upto, defined)
        if example is not None and not example.expected and not example.raises and _aside(instruction, spans, n):
            continue
        if example is not None and example not in found:
            found.append(example)
    return tuple(found)


def _aside(text: str, spans: list[tuple[int, int]], n: int) -> bool:
    """Whether call ``n``, said to give a value, is no report of a bug: a condition ("when f(x) is True,
    ...") or the contrast that works ("f('A') is False but f('a') is True")."""
    start = spans[n][0]
    return bool(_CONDITION.search(text, 0, start) or (n and _CONTRAST.search(text, spans[n - 1][1], start)))


def _shape(call: str, text: str, at: int, upto: int, defined: set[str]) -> Example | None:
    """What the words after the call ``text[:at]`` say of it, up to the next call at ``upto``.

    A later "it should return X" is the call's only when close and no other def of the file is named
    between ("f('') raises E; g should handle None: it should return None" is about g)."""
    m = _AFTER_CALL.match(text, at)
    example = None
    if m is not None and m.group("should"):
        value = _literal(text, m.end())
        example = Example(call, expected=value[0]) if value else None
    elif m is not None and m.group("raises"):
        error = _ERROR.match(text, m.end())
        example = Example(call, raises=error.group(1)) if error else None
    elif m is not None:
        wrong = _literal(text, m.end())
        if wrong is not None:
            instead = _INSTEAD.match(text, wrong[1])
            right = _literal(text, instead.end()) if instead else None
            example = Example(call, expected=right[0] if right else None, wrong=wrong[0])
    if example is None or example.expected is None:  # "..., it should return False" says what it must give
        later = _LATER.search(text, at, min(upto, at + _LATER_GAP))
        gap = set(re.findall(r"[A-Za-z_]\w*", text[at:later.start()])) if later else set()
        value = _literal(text, later.end()) if later and not gap & defined else None
        if value is not None:
            example = Example(call, expected=value[0], wrong=example.wrong if example else None,
                              raises=example.raises if example else None)
    return example


def _literal(text: str, at: int) -> tuple[str, int] | None:
    """The Python literal that starts at ``text[at]`` as ``(source, end)``, or None.

    In backticks it is the ticked text; else the longest literal that ends where prose may go on.
    """
    if text.startswith("`", at):
        close = text.find("`", at + 1)
        source = text[at + 1:close] if close > at else ""
        return (source, close + 1) if source and _is_literal(source) else None
    for end in range(min(len(text), at + _MAX_LITERAL), at, -1):
        if end < len(text) and text[end] not in _ENDS:
            continue
        source = text[at:end]
        if source.endswith(".") and _is_literal(source[:-1]):
            continue  # "should be 255.": the sentence's full stop, not a float's point
        if source.strip() == source and _is_literal(source):
            return None if _TUPLE_PROSE.match(text, end) else (source, end)
    return None


def _is_literal(source: str) -> bool:
    try:
        value = ast.literal_eval(source)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return False
    return not (isinstance(value, tuple) and not source.startswith("("))  # "1, 2": prose, not a tuple


def _calls(text: str) -> list[tuple[int, int]]:
    """Spans of call-shaped text: a name, its balanced parentheses, then any ``.name(...)`` after them."""
    spans: list[tuple[int, int]] = []
    for m in _START.finditer(text):
        if spans and m.start() < spans[-1][1]:
            continue  # inside the previous call ("list(g(x))")
        end = _close(text, m.end() - 1)
        while end is not None:
            more = re.match(r"\.[A-Za-z_]\w*\(", text[end:])
            after = _close(text, end + more.end() - 1) if more else None
            if after is None:
                break
            end = after
        if end is not None:
            spans.append((m.start(), end))
    return spans


def _close(text: str, opened: int) -> int | None:
    """The index after the parenthesis that closes ``text[opened]``, skipping string literals; None if none."""
    depth, i, quote = 0, opened, ""
    while i < len(text):
        c = text[i]
        if quote:
            if c == "\\":
                i += 1
            elif c == quote:
                quote = ""
        elif c in "'\"":
            quote = c
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return None


def _constants(text: str) -> frozenset[str]:
    """The file's module-level UPPER_CASE names (``THURSDAY`` of ``(MONDAY, ..., SUNDAY) = range(7)``): an example's
    call may pass them, since it runs in the module's namespace."""
    try:
        body = ast.parse(text).body
    except (SyntaxError, ValueError, RecursionError):
        return frozenset()
    return frozenset(n.id for node in body if isinstance(node, ast.Assign) for t in node.targets
                     for n in ast.walk(t) if isinstance(n, ast.Name) and n.id.isupper())


def _callable(call: str, defined: set[str], consts: frozenset[str] = frozenset()) -> bool:
    """Whether ``call`` is ``f(...)`` or ``C(...).m(...)`` of a name in ``defined``, its arguments literals
    (perhaps inside one pure builtin: ``list(C(...).m())``)."""
    try:
        node = ast.parse(call, mode="eval").body
    except (SyntaxError, ValueError, RecursionError):
        return False
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in PURE_WRAPPERS
            and node.func.id not in defined and len(node.args) == 1 and not node.keywords):
        node = node.args[0]
    return isinstance(node, ast.Call) and _chain(node, defined, consts)


def _chain(node: ast.expr, defined: set[str], consts: frozenset[str] = frozenset()) -> bool:
    while True:
        if isinstance(node, ast.Call):
            if not all(_literal_node(a) or (isinstance(a, ast.Name) and a.id in consts)
                       for a in [*node.args, *(k.value for k in node.keywords)]) or any(
                    k.arg is None for k in node.keywords):
                return False
            node = node.func
        elif isinstance(node, ast.Attribute):
            node = node.value
        else:
            return isinstance(node, ast.Name) and node.id in defined


def _literal_node(node: ast.expr) -> bool:
    try:
        ast.literal_eval(node)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return False
    return True


# "so printing one shows Template('hello $name')", "its repr should look like Point(1, 2)": what a new
# __repr__ gives for an instance built by that very call (the convention that eval(repr(x)) rebuilds x)
_SHOWS = lazy.regex(r"\b(?:shows?|showing|displays?|prints?|looks?\s+like|reads?|gives?|returns?|as|like|"
                    r"be|is)\s*:?\s*`?$", re.I)
_REPRS = {"__repr__": "repr", "__str__": "str"}


def shown_as(instruction: str, table: SymbolTable, new_names: tuple[str, ...], owner: str | None) -> tuple[
        Example, ...]:
    """The example a new ``__repr__`` (or ``__str__``) of class ``owner`` is asked to give: the one call of
    ``owner`` the instruction quotes after "shows", "prints", "looks like"... is also its expected text
    (``repr(Template('hello $name')) == "Template('hello $name')"``). None when the call is not the only one
    of the class, or its arguments are not literals: a value is never guessed."""
    fn = next((_REPRS[n] for n in new_names if n in _REPRS), None)
    if fn is None or owner is None or "." in owner or not table.lookup(owner):
        return ()
    spans = [s for s in _calls(instruction) if _callable(instruction[s[0]:s[1]], {owner})]
    if not spans:
        return _format_of(instruction, table, owner, fn)
    if len(spans) != 1 or not _SHOWS.search(instruction, 0, spans[0][0]):
        return ()
    call = instruction[slice(*spans[0])]
    node = ast.parse(call, mode="eval").body
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == owner):
        return ()  # "Template('x').substitute()" is no instance's text
    return (Example(f"{fn}({call})", expected=repr(call)),)


# "format: Template(<repr of the template string>)": a format whose every placeholder asks the repr of a
# string the class is built from, named by its parameter of __init__
_FORMAT = lazy.regex(r"(?<![\w.])(?P<owner>[A-Za-z_]\w*)\((?P<args>\s*<[^<>()]*>\s*(?:,\s*<[^<>()]*>\s*)*)\)")
_REPR_OF = lazy.regex(r"<\s*(?:the\s+)?repr(?:esentation)?\s+of\s+(?P<what>[^<>]+?)\s*>", re.I)
_STRING = lazy.regex(r"\b(?:string|str|text)\b", re.I)


def _format_of(instruction: str, table: SymbolTable, owner: str, fn: str) -> tuple[Example, ...]:
    """The example a format with placeholders gives for a new ``__repr__``: run on sample strings.

    ``Template(<repr of the template string>)`` says that ``repr(Template(template='s0'))`` is
    ``"Template('s0')"``: the placeholder names the parameter ``template`` of ``Template.__init__`` and
    says it is a string, so any string shows the format; the repr of it must be there, quotes and all (the
    1.5B on the H200 wrote ``f'Template({self.template})'``, which shows the string bare). Only when every
    placeholder asks a repr, names one parameter of ``__init__`` and says "string", and the placeholders name
    every parameter but ``self``: a sample of another type would be a guess."""
    params = [p for p in table.params.get((table.home, f"{owner}.__init__"), ())
              if p != "self" and not p.startswith("**")]
    for m in _FORMAT.finditer(instruction):
        if m.group("owner") != owner:
            continue
        holders = [h.strip() for h in m.group("args").split(",")]
        asked = [_REPR_OF.fullmatch(h) for h in holders]
        names = [[p for p in params if re.search(rf"\b{re.escape(p)}\b", a.group("what"))] if a else []
                 for a in asked]
        if not all(a and _STRING.search(a.group("what")) for a in asked) or any(len(n) != 1 for n in names) or (
                sorted(n[0] for n in names) != sorted(params)):
            continue
        samples = [f"s{i}" for i in range(len(names))]
        call = f"{owner}({', '.join(f'{n[0]}={v!r}' for n, v in zip(names, samples, strict=True))})"
        shown = f"{owner}({', '.join(repr(v) for v in samples)})"
        return (Example(f"{fn}({call})", expected=repr(shown)),)
    return ()


def bytes_twins(examples: tuple[Example, ...], text: str) -> tuple[Example, ...]:
    """The same failing calls with bytes for their str arguments, for a function whose own code handles bytes.

    "_ishidden('') raises IndexError, it should return False", of ``def _ishidden(path): return path[0] in
    ('.', b'.'[0])``: a function written for str and bytes alike is reported with a str, and the fix must mend
    both (``path == ''`` mended ``_ishidden('')`` and left ``_ishidden(b'')`` raising, on the H200). Only a plain
    ``f(...)`` whose body has a bytes literal, its str arguments ASCII, and no str in what the report says it
    returns (the bytes call's right value is then not known)."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError):
        return ()
    handles = {n.name for n in tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and any(
        isinstance(c, ast.Constant) and isinstance(c.value, bytes) for c in ast.walk(n))}
    out: list[Example] = []
    for example in examples:
        node = ast.parse(example.call, mode="eval").body
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in handles) or any(
                isinstance(ast.literal_eval(v), str) for v in (example.expected, example.wrong) if v is not None):
            continue
        args = [ast.literal_eval(a) for a in node.args]
        if node.keywords or not any(isinstance(a, str) for a in args) or not all(
                a.isascii() for a in args if isinstance(a, str)):
            continue
        twin = ", ".join(repr(a.encode() if isinstance(a, str) else a) for a in args)
        out.append(Example(f"{node.func.id}({twin})", example.expected, example.wrong, example.raises))
    return tuple(out)
