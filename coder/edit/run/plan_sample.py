"""A plan's samples: its model steps asked again at a temperature, for an oracle or for agreement.

Two uses, each the plan's form of a single region edit's: a new method that still fails the instruction's
example after its retry is sampled until one passes (:func:`sampled`, as :mod:`coder.edit.run.sample` samples a
fix), and a change of behaviour nothing checks is refused when its samples behave otherwise (:func:`agreed`,
:mod:`coder.edit.run.agree`). A sample asks every model step once, none retried.
"""

from __future__ import annotations

import time
from dataclasses import replace

from coder.edit.proposal import Sampled
from coder.edit.run import agree, sample
from coder.edit.run.engine import EditEngine
from coder.edit.run.plan_result import PlanProposal, PlanRequest, StepResult, file_proposals
from coder.edit.run.plan_step import Ask, run_step

EXAMPLE = "the failing example"  # the oracle a sampled plan is held to (Sampled.oracle)


def unexplained_steps(prepared: PlanRequest, proposal: PlanProposal) -> dict[int, str]:
    """Model steps whose region holds a change the whole file's scope check does not explain, and why."""
    out: dict[int, str] = {}
    for file in proposal.files:
        if file.scope is None:
            continue
        for change in file.scope.unexplained:
            lo, hi = change.old_start, max(change.old_start, change.old_end)
            for i in prepared.requests:
                step = prepared.plan.steps[i]
                if step.rel == file.rel and step.start <= hi and lo <= step.end and i not in out:
                    out[i] = f"{change.where(file.rel)}: {change.why}"
    return out


def one_sample(engine: EditEngine, prepared: PlanRequest, ask: Ask, renamed: dict[str, str],
               seed: int) -> PlanProposal | None:
    """The plan with every model step asked once, sampled with ``seed`` and not retried; None when a step's reply
    is flagged, or the whole file is refused or its scope check flags a change."""
    steps = prepared.plan.steps
    results = [StepResult(step, step.text or "", None, None, None) if i not in prepared.requests
               else run_step(engine, prepared, i, ask, renamed, seed=seed) for i, step in enumerate(steps)]
    if any(r.text is None for r in results):
        return None
    tried = file_proposals(engine, prepared, results)
    return tried if tried.ok and not unexplained_steps(prepared, tried) else None


def sampled(engine: EditEngine, prepared: PlanRequest, ask: Ask, renamed: dict[str, str],
            proposal: PlanProposal) -> PlanProposal:
    """A plan whose new method still fails the instruction's example after its retry, sampled as a single region
    fix is: the first sample that passes every check (the example among them), else ``proposal`` with a note of
    the samples drawn. Seen on the H200 (run 9): asked for a ``__repr__`` showing ``Template('hello $name')``,
    the 1.5B wrote ``Template("hello $name")`` twice, greedy."""
    drawn = 0
    started = time.monotonic()
    while drawn < sample.SAMPLES and (not drawn or time.monotonic() - started < sample.BUDGET_S):
        drawn += 1
        if (found := one_sample(engine, prepared, ask, renamed, drawn)) is not None:
            found.sampled = Sampled(drawn, drawn, sample.SAMPLES, sample.TEMPERATURE, EXAMPLE)
            return found
    proposal.sampled = Sampled(None, drawn, sample.SAMPLES, sample.TEMPERATURE, EXAMPLE)
    return proposal


def agreed(engine: EditEngine, prepared: PlanRequest, ask: Ask, renamed: dict[str, str],
           proposal: PlanProposal) -> PlanProposal:
    """``proposal``, refused when the plan asked again, sampled, behaves otherwise (:mod:`coder.edit.run.agree`)."""
    spec = prepared.spec
    first = next((p for p in proposal.files if p.changed), None)
    if (not proposal.ok or spec is None or first is None or not prepared.requests  # a mechanical plan: no model
            or not agree.due(spec, engine.examples, lambda: engine.oracles.failing(replace(first.request, spec=spec)))):
        return proposal

    def one(seed: int) -> str | None:
        tried = one_sample(engine, prepared, ask, renamed, seed)
        return agree.texts_of(tried.files, first.rel) if tried is not None else None

    refusal = agree.drawn(one, lambda texts: agree.verdict(first.request.snapshot, spec, first.new, texts))
    if refusal is not None:
        proposal.refusal_code, proposal.refusal = agree.CODE, refusal
    return proposal
