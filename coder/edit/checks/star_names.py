"""The names a ``from M import *`` of the standard library gives, so a name it does not give is still undefined.

pyflakes cannot tell what a star import brings: every unknown name of a file with one is only "may be undefined,
or defined from star imports", and coder's undefined-name check let it through. Seen on the 2-core CPU (run 18,
fresh4 lzma-hints): lzma.py does ``from _lzma import *``, the 1.5B annotated ``open`` with ``Optional``,
``List[Filter]`` and ``TextIOWrapper``, none imported, and the edit was applied; the module then fails to import.

Only the standard library of coder's own interpreter is looked at, and no code of the repository is run: an
extension or built-in module (``_lzma``) is imported, which runs no Python code of its own; a pure-Python one is
parsed, never imported, for its top-level names (its ``__all__`` where it has one, and, like Python, not its
``_`` names otherwise). A star import of anything else leaves every unknown name possibly defined, as before.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import sys
from functools import lru_cache
from pathlib import Path


@lru_cache(maxsize=64)
def star_names(module: str) -> frozenset[str] | None:
    """The names ``from module import *`` binds, or None when they cannot be known without running code."""
    if module.split(".")[0] not in sys.stdlib_module_names:
        return None
    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        return None
    if spec is None:
        return None
    origin = spec.origin or ""
    if origin == "built-in" or origin.endswith((".so", ".pyd")):
        try:
            loaded = importlib.import_module(module)
        except ImportError:
            return None
        names = getattr(loaded, "__all__", None)
        return frozenset(names if names is not None else (n for n in dir(loaded) if not n.startswith("_")))
    if not origin.endswith(".py"):
        return None
    try:
        tree = ast.parse(Path(origin).read_text(encoding="utf-8"))
    except (OSError, SyntaxError, ValueError, UnicodeDecodeError):
        return None
    return _top_level(tree)


def _top_level(tree: ast.Module) -> frozenset[str] | None:
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            try:
                return frozenset(str(n) for n in ast.literal_eval(node.value))
            except ValueError:
                return None
        if isinstance(node, ast.ImportFrom) and any(a.name == "*" for a in node.names):
            return None  # a star of its own: more than this file says
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names |= {t.id for target in targets for t in ast.walk(target) if isinstance(t, ast.Name)}
        elif isinstance(node, ast.Import | ast.ImportFrom):
            names |= {(a.asname or a.name).split(".")[0] for a in node.names}
    return frozenset(n for n in names if not n.startswith("_"))


def undefined_despite_stars(name: str, modules: tuple[str, ...]) -> bool:
    """Whether ``name``, which pyflakes says may come from the star imports of ``modules``, comes from none of them
    (every one of them known)."""
    known = [star_names(m) for m in modules]
    return all(k is not None for k in known) and not any(name in k for k in known if k is not None)
