"""Checks that run the edited code: a fix, a new method or an extracted function is judged by what it does.

The new file is imported in a fresh interpreter (``python -I``, under a name of its own, so that
a stdlib module of the same name cannot shadow it), each case's expression is evaluated with the
module bound to ``m``, and its ``repr`` (or ``raised TypeError``) is compared with the expected
one. Code outside the definitions the task names must be unchanged.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from coder.bench.edits.checks import find_def, parameter_problem

_RUNNER = """
import importlib.util, json, sys
spec = importlib.util.spec_from_file_location("bench_module_under_test", sys.argv[1])
m = importlib.util.module_from_spec(spec)
spec.loader.exec_module(m)
out = []
for expr in json.loads(sys.argv[2]):
    try:
        out.append(repr(eval(expr, {"m": m})))
    except Exception as exc:
        out.append("raised " + type(exc).__name__)
print(json.dumps(out))
"""


def evaluate(text: str, exprs: list[str], timeout: float = 30.0) -> list[str] | str:
    """The ``repr`` of each expression on the module ``text`` in a subprocess; a str when it did not run."""
    with tempfile.TemporaryDirectory(prefix="coder-bench-run-") as tmp:
        path = Path(tmp) / "module_under_test.py"
        path.write_text(text, encoding="utf-8")
        try:
            proc = subprocess.run([sys.executable, "-I", "-c", _RUNNER, str(path), json.dumps(exprs)],
                                  capture_output=True, text=True, timeout=timeout, cwd=tmp)
        except subprocess.TimeoutExpired:
            return f"timed out after {timeout:.0f} s"
    if proc.returncode != 0:
        last = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        return f"does not import: {last[:120]}"
    result: list[str] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


def without(tree: ast.Module, names: tuple[str, ...]) -> ast.Module:
    """``tree`` with the definitions ``names`` (``f``, ``Class.method``) removed where present."""
    for qualname in names:
        node = find_def(tree, qualname)
        if node is None:
            continue
        parent_name = qualname.rpartition(".")[0]
        parent = find_def(tree, parent_name) if parent_name else tree
        body = getattr(parent, "body", [])
        body.remove(node)
        if not body:
            body.append(ast.Pass())
    return tree


def _rest_unchanged(old: str, tree: ast.Module, names: tuple[str, ...]) -> bool:
    drop_imports = [n for n in tree.body if not isinstance(n, ast.Import | ast.ImportFrom)]
    old_tree = ast.parse(old)
    old_body = [n for n in old_tree.body if not isinstance(n, ast.Import | ast.ImportFrom)]
    tree.body, old_tree.body = drop_imports, old_body  # a fix may import what it needs
    return ast.dump(without(tree, names)) == ast.dump(without(old_tree, names))


@dataclass(frozen=True)
class Behaves:
    """The definitions ``names`` changed (or were added) so that every case gives its expected ``repr``.

    ``cases`` are ``(expression, expected repr)`` pairs, the module bound to ``m``; ``calls`` are
    ``(caller, callee)`` pairs that must hold in the new code (an extracted function is used)."""

    names: tuple[str, ...]
    cases: tuple[tuple[str, str], ...]
    calls: tuple[tuple[str, str], ...] = ()

    def __call__(self, old: str, new: str) -> tuple[bool, str]:
        """Everything outside ``names`` unchanged (imports free), the calls present, every case right."""
        try:
            tree = ast.parse(new)
        except SyntaxError:
            return False, "does not parse"
        for caller, callee in self.calls:
            node = find_def(tree, caller)
            if node is None or not any(isinstance(c, ast.Call) and ast.unparse(c.func).split(".")[-1] == callee
                                       for c in ast.walk(node)):
                return False, f"{caller} does not call {callee}"
        if not _rest_unchanged(old, tree, self.names):
            return False, f"code outside {', '.join(self.names)} changed"
        got = evaluate(new, [e for e, _ in self.cases])
        if isinstance(got, str):
            return False, got
        for (expr, want), have in zip(self.cases, got, strict=True):
            if have != want:
                return False, f"{expr} gives {have}, not {want}"
        return True, f"{len(self.cases)} behaviour case(s) right, the rest unchanged"


@dataclass(frozen=True)
class Callers:
    """``target`` gained parameter ``name`` with default ``default`` and uses it, and every call of
    ``target`` in the file passes it as ``arg`` (``name=name``); nothing else changed."""

    target: str
    name: str
    default: object
    arg: str

    def __call__(self, old: str, new: str) -> tuple[bool, str]:
        """The new parameter present and used, each call passing it, the rest identical."""
        try:
            tree = ast.parse(new)
        except SyntaxError:
            return False, "does not parse"
        fn = find_def(tree, self.target)
        if (problem := parameter_problem(fn, self.target, self.name, self.default)) is not None:
            return False, problem
        short = self.target.split(".")[-1]
        calls = [c for c in ast.walk(tree) if isinstance(c, ast.Call) and ast.unparse(c.func).split(".")[-1] == short]
        for call in calls:
            kw = [k for k in call.keywords if k.arg == self.name]
            if len(kw) != 1 or ast.unparse(kw[0]) != self.arg:
                return False, f"a call of {self.target} does not pass {self.arg}: {ast.unparse(call)[:60]}"
            call.keywords.remove(kw[0])
        if not calls:
            return False, f"{self.target} is no longer called"
        if not _rest_unchanged(old, tree, (self.target,)):
            return False, f"code outside {self.target} and its calls changed"
        return True, f"parameter added and passed at {len(calls)} call(s)"
