"""A method the edit removed or renamed, still used: ``self.__seqToRE(...)`` after ``def __seqToRE`` became
``def __seq_to_re``, ``impl.create_dict()`` after ``create_dict`` was deleted.

Seen applied on the 2-core CPU (run 18, the fourth fresh set): a region rename of ``TimeRE.__seqToRE`` renamed the
def and left its two calls in ``__init__``; a delete of ``_localimpl.create_dict`` cut the method while its two
callers, sent to the model to drop their use, came back unchanged. Both files parsed and gained no undefined name
(an attribute is no name to pyflakes), and each raised AttributeError when run.

A method of a class of the original that no class of the result defines any more is lost. The result may not read
it on ``self``, nor as any object's attribute when the name is distinctive (private, dunder-free with an
underscore: ``create_dict``, ``_patch``): ``sock.close()`` may be another object's ``close`` after
``Foo.close`` was deleted, but nothing else in a file of its own has a ``create_dict``. A class that sets
attributes dynamically (``__getattr__``, ``setattr``) is not judged.
"""

from __future__ import annotations

import ast

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
    lost = _methods(before) - _methods(after)
    if not lost or any(isinstance(n, ast.Name) and n.id in ("setattr", "__getattr__") for n in ast.walk(after)) or any(
            isinstance(n, _FUNC) and n.name == "__getattr__" for n in ast.walk(after)):
        return None
    for node in ast.walk(after):
        if (isinstance(node, ast.Attribute) and node.attr in lost and isinstance(node.ctx, ast.Load)
                and ((isinstance(node.value, ast.Name) and node.value.id == "self") or _distinctive(node.attr))):
            return (f"line {node.lineno} still uses {ast.unparse(node)}, but the edit removed the method {node.attr} "
                    "(calling it raises AttributeError); every use must go or follow the new name")
    return None
