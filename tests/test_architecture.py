"""Structural rules of the code base: the package import graph has no cycles, engine names are
compared only inside ``coder.backends``, the headless core never imports Textual, and
``import coder.edit`` does not pull in openai."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

CODER = Path(__file__).resolve().parents[1] / "coder"
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
    assert _run("import sys, coder.edit, coder.backends.session; print('openai' in sys.modules)") == "False"


def test_lazy_edit_package_exports_resolve() -> None:
    import coder.edit as edit

    assert set(edit.__all__) == {"MODES", *edit._EXPORTS}
    for name in edit._EXPORTS:
        assert getattr(edit, name).__name__ == name
