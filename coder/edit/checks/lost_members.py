"""A method the edit removed or renamed, still used: ``self.__seqToRE(...)`` after ``def __seqToRE`` became
``def __seq_to_re``, ``impl.create_dict()`` after ``create_dict`` was deleted.

Seen applied on the 2-core CPU (run 18, the fourth fresh set): a region rename of ``TimeRE.__seqToRE`` renamed the
def and left its two calls in ``__init__``; a delete of ``_localimpl.create_dict`` cut the method while its two
callers, sent to the model to drop their use, came back unchanged. Both files parsed and gained no undefined name
(an attribute is no name to pyflakes), and each raised AttributeError when run.

A method of a class of the original that no class of the result defines any more is lost. The result may not read
it on ``self``, nor as any object's attribute when the name is distinctive (private, dunder-free with an
underscore: ``create_dict``, ``_patch``), nor on a module-level instance of the file's own class (``c.prweek`` after
``c = TextCalendar()``): ``sock.close()`` may be another object's ``close`` after
``Foo.close`` was deleted, but nothing else in a file of its own has a ``create_dict``. A class that sets
attributes dynamically (``__getattr__``, ``setattr(self, ...)``) is not judged.
"""

from __future__ import annotations

import ast

from coder.edit.source.attrs import sets_own_attributes
from coder.edit.source.trees import parsed

_FUNC = (ast.FunctionDef, ast.AsyncFunctionDef)


def _methods(tree: ast.Module) -> set[str]:
    return {m.name for c in ast.walk(tree) if isinstance(c, ast.ClassDef) for m in c.body if isinstance(m, _FUNC)}


def _distinctive(name: str) -> bool:
    return not (name.startswith("__") and name.endswith("__")) and "_" in name.strip("_")


def lost_but_used(old: str, new: str) -> str | None:
    """Why ``new`` still uses a method the edit removed from every class (None: it does not)."""
    try:
        before, after = parsed(old), parsed(new)
    except (SyntaxError, ValueError, RecursionError):
        return None
    # a class that sets its attributes dynamically (__getattr__, setattr(self, ...)) is not judged; a setattr on some
    # other object elsewhere in the file (modulefinder's, run 19) does not excuse the rest
    dynamic = {c.name for c in ast.walk(after) if isinstance(c, ast.ClassDef) and (
        any(isinstance(n, _FUNC) and n.name == "__getattr__" for n in ast.walk(c)) or sets_own_attributes(c))}
    lost = {m for c in ast.walk(before) if isinstance(c, ast.ClassDef) and c.name not in dynamic
            for m in (f.name for f in c.body if isinstance(f, _FUNC))} - _methods(after)
    if not lost:
        return None
    # "c = TextCalendar()" at module level, then "prweek = c.prweek": an instance of the file's own class (run 20)
    classes = {c.name for c in ast.walk(before) if isinstance(c, ast.ClassDef)}
    own = {"self"} | {t.id for node in after.body if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)
                      and isinstance(node.value.func, ast.Name) and node.value.func.id in classes
                      for t in node.targets if isinstance(t, ast.Name)}
    for node in ast.walk(after):
        if (isinstance(node, ast.Attribute) and node.attr in lost and isinstance(node.ctx, ast.Load)
                and ((isinstance(node.value, ast.Name) and node.value.id in own) or _distinctive(node.attr))):
            return (f"line {node.lineno} still uses {ast.unparse(node)}, but the edit removed the method {node.attr} "
                    "(calling it raises AttributeError); every use must go or follow the new name")
    return None
