"""The suite in many wordings: which (task, wording) pairs run, and what the report says about them.

Every task of ``coder bench --edits`` comes in several wordings (:attr:`Task.wordings`); a run goes over
the chosen (task, wording) pairs. The report gives correct / refused / wrong per wording and how many
tasks got the same plan in every wording: the aim is that the wording changes nothing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from coder.errors import CoderError

if TYPE_CHECKING:
    from coder.bench.edits.run import Outcome
    from coder.bench.edits.taskdef import Task

# the 2-core CPU subset: 10 (task, wording) pairs over 10 kinds, every wording style in it, and no task
# whose whole-file reply takes more than a few minutes there (docs/benchmarks/README-edits.md)
CPU_SUBSET: tuple[tuple[str, int], ...] = (
    ("getopt-rename", 1), ("glob-rename-variable", 2), ("glob-fix", 0), ("graphlib-method", 1),
    ("getopt-default", 2), ("netrc-class-hints", 0), ("graphlib-delete", 2), ("getopt-docstring", 1),
    ("xfile-wsgiref-function", 0), ("bug-wsgiref-hop", 1),
)


def parse_wordings(text: str | None) -> list[int] | None:
    """``--wordings``: ``all`` (or nothing) is None, every wording; ``0,1,2`` the wordings by index."""
    if text is None or text.strip() == "all":
        return None
    parts = [p.strip() for p in text.split(",") if p.strip()]
    if not parts or not all(p.isdigit() for p in parts):
        raise CoderError(f"--wordings takes `all` or indexes such as 0,1,2, not {text!r}")
    return sorted({int(p) for p in parts})


def pairs(tasks: Sequence[Task], wordings: list[int] | None) -> list[tuple[Task, int]]:
    """Each task with each chosen wording it has, task by task (a task with fewer wordings runs those it has)."""
    return [(t, i) for t in tasks for i in range(len(t.wordings)) if wordings is None or i in wordings]


def subset(tasks: Sequence[Task], name: str) -> list[tuple[Task, int]]:
    """The named subset's (task, wording) pairs (``cpu``: :data:`CPU_SUBSET`)."""
    if name != "cpu":
        raise CoderError(f"--subset takes cpu, not {name!r}")
    by_name = {t.name: t for t in tasks}
    return [(by_name[n], i) for n, i in CPU_SUBSET]


def plan_key(doc: Mapping[str, object]) -> str:
    """What "the same plan" compares, from one ``coder edit --json`` result (the only place that says so).

    The reading of the instruction in words (``read``, top level or in ``plan``) where coder reports one;
    else the plan's kind and its steps (file and label); else, for one request, its mode and region.
    """
    plan = doc.get("plan")
    read = doc.get("read") or (plan.get("read") if isinstance(plan, Mapping) else None)
    if read:
        return f"read: {read}"
    if isinstance(plan, Mapping):
        steps = plan.get("steps")
        labels = [f"{s.get('path')} {s.get('label')}" for s in steps if isinstance(s, Mapping)] \
            if isinstance(steps, list) else []
        return f"{plan.get('kind')}: {'; '.join(labels)}"
    region = doc.get("region")
    where = region.get("label") if isinstance(region, Mapping) else "whole file"
    return f"{doc.get('mode')}: {where}"


def same_plan(rows: Sequence[Outcome]) -> dict[str, object]:
    """Of the tasks run in more than one wording: how many got the same plan in every wording, and which did not.

    A wording whose request never got a plan (refused before planning) has no key, so it differs.
    """
    keys: dict[str, list[str | None]] = {}
    for r in rows:
        if r.outcome != "skipped":
            keys.setdefault(r.task, []).append(r.plan_key)
    several = {t: k for t, k in keys.items() if len(k) > 1}
    differs = sorted(t for t, k in several.items() if None in k or len(set(k)) > 1)
    return {"tasks": len(several), "same": len(several) - len(differs), "differs": differs}


def by_wording(rows: Sequence[Outcome]) -> dict[int, dict[str, int]]:
    """Per wording index: correct / refused / wrong, and the refusals by layer."""
    from coder.bench.edits.layers import LAYERS

    out: dict[int, dict[str, int]] = {}
    for w in sorted({r.wording for r in rows}):
        mine = [r for r in rows if r.wording == w and r.outcome != "skipped"]
        out[w] = {k: sum(1 for r in mine if r.outcome == k) for k in ("correct", "refused", "wrong")}
        out[w].update({f"refused: {layer}": sum(1 for r in mine if r.outcome == "refused" and r.layer == layer)
                       for layer in (*LAYERS, "other")})
    return out


def listing(tasks: Sequence[Task]) -> list[dict[str, object]]:
    """``--list --json``: every task as ``{"id", "kind", "file", "wordings", "check"}``."""
    return [{"id": t.name, "kind": t.kind, "file": t.file, "wordings": list(t.wordings), "check": describe_check(t)}
            for t in tasks]


def describe_check(task: Task) -> str:
    """The task's check in one line (``Renamed(old='_v', new='_hue_to_channel')``); a cross-file task lists each."""
    parts = [f"{rel}: {check!r}" for rel, check in ((task.file, task.check), *task.also)]
    return parts[0].split(": ", 1)[1] if len(parts) == 1 else "; ".join(parts)
