"""A new method asked for: kept alone when the reply rewrote its class besides, and held to the class's own state.

Seen on the H200 (run 16, fresh2 codeop-method, both wordings, retries included): "add a reset() method to
CommandCompiler that makes it forget the __future__ imports it has seen" came back with the whole short class
rewritten: ``reset`` added, and ``__init__`` given a ``self.future_imports = set()`` (or ``self.flags = 0``) that
no other code of the class reads. The class's existing members are not the model's to change, so
:func:`graft_method` keeps the reply's new method alone and puts it after the class's last member; the result
is judged like any other. :func:`new_state_unread` then names what such a method gets wrong: it sets an
attribute that neither the class nor any other code of the file reads or set before, so it changes nothing the
class does (the class's state is ``self.compiler``); the instruction's own words may name a new attribute ("marks
it closed").
"""

from __future__ import annotations

import ast
import textwrap

from coder.edit.source.attrs import FUNC, attributes_set, listed, self_attrs
from coder.edit.source.splice import class_node as _class
from coder.edit.source.splice import line_span


def graft_method(original: str, start: int, end: int, reply: str, qual: str, name: str) -> tuple[str, str] | None:
    """(the region text: the original class with the reply's new method after its last member, a note), or None.

    ``start``-``end`` is the whole class ``qual`` in ``original``; ``reply`` its rewrite. None when the reply
    holds no class ``qual`` with exactly one method the original lacks (named ``name``, when given).
    """
    try:
        old_cls = _class(ast.parse(original), qual)
        shown = textwrap.dedent(reply)
        new_cls = _class(ast.parse(shown), qual.rsplit(".", 1)[-1])
    except (SyntaxError, ValueError, RecursionError):
        return None
    if old_cls is None or new_cls is None or not (start <= old_cls.lineno and (old_cls.end_lineno or 0) <= end):
        return None
    had = {n.name for n in old_cls.body if isinstance(n, FUNC)}
    added = [n for n in new_cls.body if isinstance(n, FUNC) and n.name not in had]
    if len(added) != 1 or (name and added[0].name != name):
        return None
    method = added[0]
    first = min([method.lineno, *(d.lineno for d in method.decorator_list)])
    text = textwrap.dedent(line_span(shown, first, method.end_lineno or method.lineno))
    indent = " " * old_cls.body[0].col_offset
    member = textwrap.indent(text.strip("\n") + "\n", indent, lambda line: bool(line.strip()))
    region = line_span(original, start, end)
    return (region.rstrip("\n") + "\n\n" + member + region[len(region.rstrip("\n")) + 1:],
            f"the reply also changed existing members of {qual}: only its new method {method.name} was kept")


def new_state_unread(original: str, new: str, qual: str, name: str, said: frozenset[str]) -> str | None:
    """Why the new method ``name`` of ``qual`` sets attributes that nothing reads or set before (None: it does not);
    ``said``: the instruction's words, lower case (:func:`coder.edit.intent.words.said_words`)."""
    try:
        old_tree, new_cls = ast.parse(original), _class(ast.parse(new), qual)
    except (SyntaxError, ValueError, RecursionError):
        return None
    method = next((n for n in new_cls.body if isinstance(n, FUNC) and n.name == name), None) if new_cls else None
    if method is None:
        return None
    # the class's own attributes (set or read through self in it), and any attribute read on another receiver (an
    # instance used elsewhere); not another class's self.flags (codeop's Compile has one, CommandCompiler none)
    old_cls = _class(old_tree, qual)
    known = {n.attr for n in ast.walk(old_cls) if isinstance(n, ast.Attribute)} if old_cls else set()
    known |= {n.attr for n in ast.walk(old_tree) if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Load)
              and not (isinstance(n.value, ast.Name) and n.value.id == "self")}
    stored = sorted(self_attrs(method, store=True) - known)
    fresh = [a for a in stored if a.lower() not in said and a.lower().strip("_") not in said]
    if not fresh:
        return None
    state = attributes_set(old_cls) if old_cls else []
    has = f" (its state: {listed(state)})" if state else ""
    return (f"{qual}.{name} sets self.{fresh[0]}, which nothing of {qual} or the file reads or set before, so it "
            f"changes nothing {qual} does{has}")



def property_asked(new: str, qual: str, name: str, said: frozenset[str]) -> str | None:
    """Why the new ``name`` of ``qual`` is a plain method where the instruction asks for a property (None: it is not).

    Seen applied on the 2-core CPU (run 18, fresh4): "give LZMAFile a read-only mode property" came back as
    ``def mode(self)``, so ``f.mode`` is a bound method, not ``'rb'``.
    """
    if "property" not in said and "properties" not in said:
        return None
    try:
        cls = _class(ast.parse(new), qual)
    except (SyntaxError, ValueError, RecursionError):
        return None
    method = next((n for n in cls.body if isinstance(n, FUNC) and n.name == name), None) if cls else None
    if method is None or any(ast.unparse(d).split(".")[-1] in ("property", "cached_property", "getter")
                             for d in method.decorator_list):
        return None
    return f"{qual}.{name} is a plain method, but a property is asked: decorate it with @property"
