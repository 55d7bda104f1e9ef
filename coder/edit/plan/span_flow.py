"""What a run of statements does with names, read off its syntax tree: the names it reads before it sets them, the
names it sets, and whether it holds anything that cannot move into a function of its own
(:mod:`coder.edit.plan.extract_same` asks, for each function's copy of the shared lines)."""

from __future__ import annotations

import ast
import builtins

# what a span may not hold: it would leave the function, bind names in other scopes, or yield from it
_BARRED = (ast.Return, ast.Yield, ast.YieldFrom, ast.Await, ast.Global, ast.Nonlocal, ast.FunctionDef,
           ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda, ast.Import, ast.ImportFrom, ast.Match)


class _Flow(ast.NodeVisitor):
    """The names a span reads before it sets them (with where first read), the names it sets, and what bars it."""

    def __init__(self) -> None:
        self.reads: dict[str, tuple[int, int]] = {}
        self.sets: set[str] = set()
        self.order: list[str] = []  # the names set, in the order first set
        self.barred = False
        self.loops = 0

    def _read(self, name: str, node: ast.expr) -> None:
        if name not in self.sets:
            self.reads.setdefault(name, (node.lineno, node.col_offset))

    def _set(self, name: str) -> None:
        if name not in self.sets:
            self.sets.add(name)
            self.order.append(name)

    def visit_Name(self, node: ast.Name) -> None:
        if isinstance(node.ctx, ast.Load):
            self._read(node.id, node)
        elif isinstance(node.ctx, ast.Store):
            self._set(node.id)
        else:
            self.barred = True  # del x: the caller's x would survive a function's del

    def visit_Assign(self, node: ast.Assign) -> None:
        self.visit(node.value)  # the value is read before the targets are set
        for target in node.targets:
            self.visit(target)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        self.visit(node.value)
        if isinstance(node.target, ast.Name):
            self._read(node.target.id, node.target)  # x += 1 reads x first
        self.visit(node.target)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        if node.value is not None:
            self.visit(node.value)
        self.visit(node.annotation)
        self.visit(node.target)

    def visit_NamedExpr(self, node: ast.NamedExpr) -> None:
        self.visit(node.value)
        self.visit(node.target)

    def visit_For(self, node: ast.For) -> None:
        self.visit(node.iter)
        self.visit(node.target)
        self._loop(node.body, node.orelse)

    def visit_While(self, node: ast.While) -> None:
        self.visit(node.test)
        self._loop(node.body, node.orelse)

    def _loop(self, body: list[ast.stmt], orelse: list[ast.stmt]) -> None:
        self.loops += 1
        for s in body:
            self.visit(s)
        self.loops -= 1
        for s in orelse:
            self.visit(s)

    def visit_Break(self, node: ast.Break) -> None:
        self.barred |= self.loops == 0  # a break of the caller's loop cannot leave a function

    def visit_Continue(self, node: ast.Continue) -> None:
        self.barred |= self.loops == 0

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> None:
        if node.type is not None:
            self.visit(node.type)
        if node.name:
            self._set(node.name)
        for s in node.body:
            self.visit(s)

    def generic_visit(self, node: ast.AST) -> None:
        if isinstance(node, _BARRED) or (isinstance(node, ast.Constant) and isinstance(node.value, str | bytes)
                                         and (node.end_lineno or node.lineno) > node.lineno):
            self.barred = True  # a string over several lines would change with the span's indentation
            return
        if isinstance(node, ast.ListComp | ast.SetComp | ast.DictComp | ast.GeneratorExp):
            # its own scope: the names its loops bind are not the span's, the others are read from outside
            bound = {n.id for g in node.generators for n in ast.walk(g.target) if isinstance(n, ast.Name)}
            self.barred |= any(isinstance(n, ast.NamedExpr) for n in ast.walk(node))
            for n in ast.walk(node):
                if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id not in bound:
                    self._read(n.id, n)
            return
        super().generic_visit(node)


def flow_of(statements: list[ast.stmt]) -> _Flow:
    """What ``statements``, run in order, do with names (:class:`_Flow`)."""
    flow = _Flow()
    for s in statements:
        flow.visit(s)
    return flow


# calls a repeated statement may make: they compute from their arguments and change nothing
_PURE_CALLS = frozenset({"len", "abs", "min", "max", "sum", "int", "float", "str", "bool", "tuple", "round"})


def names_read(statement: str) -> set[str]:
    """The names one statement's text reads."""
    return {n.id for n in ast.walk(ast.parse(statement)) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def recomputed(fn: ast.FunctionDef | ast.AsyncFunctionDef, name: str, before: int, params: set[str],
               lines: list[str]) -> str | None:
    """The one-line statement that sets local ``name`` in ``fn``, when a new function can repeat it: ``fn`` binds
    ``name`` only there, a statement of its body before line ``before``, ``name = value``, where the value reads
    only ``params`` (parameters of ``fn`` it never rebinds) and builtins, calling only :data:`_PURE_CALLS`
    ("n = len(x)" before the shared lines, with ``_cross_sum(x, y)`` spelled). Else None."""
    stores = [n for n in ast.walk(fn) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store | ast.Del)]
    args = fn.args
    given = {a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg] if a}
    if name in given or sum(n.id == name for n in stores) != 1 or any(n.id in params for n in stores):
        return None
    found = [s for s in fn.body if isinstance(s, ast.Assign) and s.lineno < before and len(s.targets) == 1
             and isinstance(s.targets[0], ast.Name) and s.targets[0].id == name and s.lineno == s.end_lineno]
    if len(found) != 1 or not params <= given:
        return None
    value = found[0].value
    for node in ast.walk(value):
        outside = node.id in dir(builtins) and node.id not in given if isinstance(node, ast.Name) else False
        if isinstance(node, ast.Name) and not (node.id in params or outside):
            return None
        if isinstance(node, ast.Call) and not (isinstance(node.func, ast.Name) and node.func.id in _PURE_CALLS):
            return None
        if isinstance(node, ast.NamedExpr | ast.Lambda | ast.comprehension | ast.Await | ast.Yield | ast.YieldFrom):
            return None
    return lines[found[0].lineno - 1].strip()
