"""Structural rules of the code base: the package import graph has no cycles, engine names are
compared only inside ``coder.backends``, the headless core never imports Textual,
``import coder.edit`` does not pull in openai, and no public signature mentions ``Any``."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

CODER = Path(__file__).resolve().parents[2] / "coder"
ENGINE_COMPARE = re.compile(r"""[=!]= ["'](llama\.cpp|vllm|sglang)["']""")


def _unit(path: Path) -> str:
    """The top-level unit under ``coder``: a subpackage name or a module's stem."""
    parts = path.relative_to(CODER).with_suffix("").parts
    return parts[0]


def _imported_units(tree: ast.AST) -> set[str]:
    out: set[str] = set()
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
            if node.module == "coder":
                names = [f"coder.{a.name}" for a in node.names]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        out.update(n.split(".")[1] for n in names if n.startswith("coder.") and n.count(".") >= 1)
    return out


def import_graph() -> dict[str, set[str]]:
    """unit -> units it imports (deferred and TYPE_CHECKING imports included: they are still edges)."""
    graph: dict[str, set[str]] = defaultdict(set)
    for path in CODER.rglob("*.py"):
        src = _unit(path)
        graph[src] |= {dst for dst in _imported_units(ast.parse(path.read_text())) if dst != src}
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle as a path (first node repeated at the end), or None."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return [*stack[stack.index(nxt):], nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return None


def test_cycle_finder_finds_a_planted_cycle() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_package_import_graph_has_no_cycles() -> None:
    graph = import_graph()
    assert "backends" in graph and "kpolicy" in graph  # the walk really saw the packages
    assert find_cycle(graph) is None, f"import cycle: {' -> '.join(find_cycle(graph) or [])}"


def test_engine_names_are_compared_only_in_backends() -> None:
    offenders = [f"{p.relative_to(CODER.parent)}:{i}" for p in CODER.rglob("*.py")
                 if p.relative_to(CODER).parts[0] != "backends"
                 for i, line in enumerate(p.read_text().splitlines(), 1) if ENGINE_COMPARE.search(line)]
    assert offenders == []


def _run(code: str) -> str:
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


def test_headless_core_never_imports_textual() -> None:
    modules = sorted(".".join(p.relative_to(CODER.parent).with_suffix("").parts).removesuffix(".__init__")
                     for p in CODER.rglob("*.py") if p.relative_to(CODER).parts[0] != "ui"
                     and p.name != "__main__.py")
    code = ("import importlib, sys\nsys.modules['textual'] = None\n"
            f"for m in {modules!r}:\n    importlib.import_module(m)\nprint(len({modules!r}))")
    assert int(_run(code)) == len(modules) > 30


def test_import_coder_edit_does_not_load_openai() -> None:
    assert _run("import sys, coder.edit, coder.backends.runtime.handle; print('openai' in sys.modules)") == "False"


def test_lazy_edit_package_exports_resolve() -> None:
    import coder.edit as edit

    assert set(edit.__all__) == {"MODES", *edit._EXPORTS}
    for name in edit._EXPORTS:
        assert getattr(edit, name).__name__ == name


# ---------------------------------------------------------------- no Any in public signatures


def _mentions(node: ast.AST | None, names: set[str]) -> bool:
    """True when an annotation names one of ``names`` (``Any``, ``typing.Any``, an alias of it, or in a string)."""
    for sub in ast.walk(node) if node is not None else ():
        if (isinstance(sub, ast.Name) and sub.id in names) or (isinstance(sub, ast.Attribute) and sub.attr in names):
            return True
        if isinstance(sub, ast.Constant) and isinstance(sub.value, str):
            try:
                if _mentions(ast.parse(sub.value, mode="eval"), names):
                    return True
            except SyntaxError:
                pass  # a plain string, not an annotation
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


def _importers_of(prefix: str) -> set[str]:
    """Modules under coder/ (as paths relative to coder/) that import ``prefix`` or anything below it."""
    out: set[str] = set()
    for path in CODER.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names: list[str] = []
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            if any(n == prefix or n.startswith(prefix + ".") for n in names):
                out.add(path.relative_to(CODER).as_posix())
    return out


def test_build_machinery_is_imported_only_by_install_and_doctor() -> None:
    users = {p for p in _importers_of("coder.backends.build") if not p.startswith("backends/build/")}
    assert users, "the walk found no importer at all: it is not looking"
    # the one test double of the build and smoke steps must speak their types
    assert users <= {"cli/backend.py", "doctor.py", "testing/recorded_build.py"}, f"build/ imported by {sorted(users)}"


def test_one_k_choice_type() -> None:
    homes = [path.relative_to(CODER).as_posix() for path in CODER.rglob("*.py")
             for node in ast.walk(ast.parse(path.read_text()))
             if isinstance(node, ast.ClassDef) and node.name in {"KChoice", "KChoiceLike", "KDecision"}]
    assert homes == ["kchoice.py"]


def test_nothing_shipped_imports_the_test_doubles() -> None:
    users = {p for p in _importers_of("coder.testing") if not p.startswith("testing/")}
    assert users == set(), f"coder.testing imported by {sorted(users)}"
