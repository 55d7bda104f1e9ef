"""No public signature in coder/ mentions ``Any`` (use coder.jsontypes or a TypedDict)."""

from __future__ import annotations

import ast
import warnings
from pathlib import Path

CODER = Path(__file__).resolve().parents[2] / "coder"


def _mentions(node: ast.AST | None, names: set[str]) -> bool:
    """True when an annotation names one of ``names`` (``Any``, ``typing.Any``, an alias of it, or in a string)."""
    for sub in ast.walk(node) if node is not None else ():
        if (isinstance(sub, ast.Name) and sub.id in names) or (isinstance(sub, ast.Attribute) and sub.attr in names):
            return True
        if isinstance(sub, ast.Constant) and isinstance(sub.value, str):
            try:
                with warnings.catch_warnings():  # a plain string such as a regex ("\\w") warns when parsed as code
                    warnings.simplefilter("ignore")
                    parsed = ast.parse(sub.value, mode="eval")
            except (SyntaxError, ValueError):  # Python 3.11.2 raises ValueError for a NUL ("menu\x04file\x00files")
                continue  # a plain string, not an annotation
            if _mentions(parsed, names):
                return True
    return False


def _module_level(body: list[ast.stmt]) -> list[ast.stmt]:
    """Statements at module level, including those under ``if``/``try`` (TYPE_CHECKING, fallbacks)."""
    out: list[ast.stmt] = []
    for node in body:
        out.append(node)
        if isinstance(node, ast.If):
            out += _module_level(node.body + node.orelse)
        elif isinstance(node, ast.Try):
            out += _module_level(node.body + node.orelse + node.finalbody
                                 + [s for h in node.handlers for s in h.body])
    return out


def any_aliases(trees: list[ast.Module]) -> set[str]:
    """``Any`` and every module-level name whose value mentions it (``X = dict[str, Any]``)."""
    names = {"Any"}
    for tree in trees:
        for node in _module_level(tree.body):
            value = node.value if isinstance(node, ast.Assign | ast.AnnAssign) else None
            if value is not None and _mentions(value, {"Any"}):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                names |= {t.id for t in targets if isinstance(t, ast.Name)}
    return names


def public_any(tree: ast.Module, where: str, names: set[str]) -> list[str]:
    """Public functions, methods (``__init__`` included) and class fields whose annotations mention ``names``."""
    out: list[str] = []

    def visit(body: list[ast.stmt], prefix: str, in_class: bool) -> None:
        for node in body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                if node.name.startswith("_") and not (in_class and node.name == "__init__"):
                    continue
                a = node.args
                params = [*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg]
                if any(_mentions(p.annotation, names) for p in params if p is not None) or \
                        _mentions(node.returns, names):
                    out.append(f"{where}:{node.lineno} {prefix}{node.name}")
            elif isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
                out.extend(f"{where}:{f.lineno} {prefix}{node.name}.{ast.unparse(f.target)}" for f in node.body
                           if isinstance(f, ast.AnnAssign) and _mentions(f.annotation, names))
                visit(node.body, f"{prefix}{node.name}.", True)

    visit(_module_level(tree.body), "", False)
    return out


def test_any_finder_finds_planted_any() -> None:
    code = ("from typing import Any\nJSON = dict[str, Any]\n"
            "def f(x: int, **kw: Any) -> None: ...\ndef g() -> 'list[Any]': ...\ndef h() -> JSON: ...\n"
            "def _private(x: Any) -> Any: ...\ndef ok(x: object) -> int: ...\n"
            "class C:\n    field: Any\n    def __init__(self, x: Any) -> None: ...\n"
            "    def m(self) -> dict[str, Any]: ...\n    def _p(self) -> Any: ...\n"
            "class _Hidden:\n    def m(self) -> Any: ...\n")
    tree = ast.parse(code)
    found = [line.split(" ", 1)[1] for line in public_any(tree, "m.py", any_aliases([tree]))]
    assert found == ["f", "g", "h", "C.field", "C.__init__", "C.m"]


def test_no_any_in_public_signatures() -> None:
    trees = {p: ast.parse(p.read_text()) for p in sorted(CODER.rglob("*.py"))}
    names = any_aliases(list(trees.values()))
    offenders = [hit for p, tree in trees.items() for hit in public_any(tree, str(p.relative_to(CODER.parent)), names)]
    assert len(trees) > 100  # the walk really saw the package
    assert offenders == [], "Any in public signatures (use coder.jsontypes or a TypedDict):\n" + "\n".join(offenders)
