"""Change specs for tests: symbols looked up in a real file's syntax tree, replies in the model's fenced shape."""

from __future__ import annotations

import ast
from dataclasses import replace
from pathlib import Path
from typing import Literal

from cli_helpers import make_repo

from coder.bench.edits.taskdef import Task, source
from coder.edit.intent.spec import Symbol
from coder.edit.proposal import EditRequest
from coder.edit.run.engine import EditEngine
from coder.edit.run.prompt import predicted_reply


def symbol(rel: str, text: str, qualname: str) -> Symbol:
    """The def or class ``qualname`` of ``text`` as the reading resolves it (lines include decorators)."""
    body: list[ast.stmt] = ast.parse(text).body
    node: ast.stmt | None = None
    for part in qualname.split("."):
        node = next(n for n in body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
                    and n.name == part)
        body = node.body
    assert isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
    kind: Literal["function", "method", "class"] = (
        "class" if isinstance(node, ast.ClassDef) else "method" if "." in qualname else "function")
    start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
    return Symbol(rel, qualname, kind, start, node.end_lineno or node.lineno)


def region_reply(request: EditRequest, body: str) -> str:
    """A region reply as the model writes it: ``body`` (the region's new text) in the prompt's fence."""
    prompt = request.prompt
    return predicted_reply(replace(prompt, target=body))


def replayed(root: Path, task: Task, instruction: str, reply: str) -> tuple[bool, bool, str, str]:
    """(accepted, the task's judge passes, the new text, why) of a recorded region ``reply`` to ``task``, as
    ``coder edit --yes`` evaluates it today, in a fresh repository at ``root``."""
    make_repo(root, {task.file: source(task.file)})
    engine = EditEngine(None, root, ctx=32768)
    request = engine.prepare(root / task.file, instruction, mode="region", symbol=task.symbol)
    proposal = engine.evaluate(request, reply, finish_reason="stop")
    accepted = proposal.ok and proposal.changed and (proposal.scope is None or proposal.scope.ok)
    judged, why = task.check(source(task.file), proposal.new) if accepted else (False, proposal.refusal or "")
    return accepted, judged, proposal.new, why
