"""Sampled replies for a fix the greedy retry did not mend, held to an oracle that fails now: generate and test.

On the H200 (run 7) most lost bug reports were answered twice, the first request and its retry (greedy:
the same prompt gives the same reply), with the region unchanged or with a fix that fails the project's
tests. A greedy third request would say the same again; a *sampled* one need not. Sampling alone would let
wrong edits in, so it is done only where something mechanical tells a right fix from a wrong one and
says the code as it is is wrong (:class:`coder.edit.run.retry.Oracles`): the instruction's own example
fails on it now, or the user's test command does. Each sample is validated as every reply is
(:meth:`coder.edit.run.engine.EditEngine.evaluate`: the example check and the test command run there),
so a sample that passes every check has flipped the failing oracle. The first such sample is the
outcome; if none passes, the greedy retry's refusal stands as it was, with a note of the samples drawn.

:func:`due` decides, :func:`draw` asks; :meth:`EditEngine.run` calls both, so the CLI, the TUI and the
bench sample alike, and :attr:`EditProposal.sampled` records it (``--json``, the bench row, the notes).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Generator
from dataclasses import replace

from coder.edit.proposal import EditProposal, EditRequest, Sampled
from coder.edit.run.retry import Oracles
from coder.telemetry.stats import RequestStats

# Sixteen samples at most, and a time budget: no sample starts once BUDGET_S have passed since the first (a
# started one runs to its end). On the H200 a sample costs ~0.3 s plus the test command, so all 16 fit in ~10 s;
# on 2 CPU cores one costs 5-15 s, so the budget stops them after 3 to 8. In run 11 (H200) 4 samples mended none
# of the 19 pairs that reached them; in run 12, 16 mended 4 of them (samples 6, 7, 7 and 9) and applied one wrong,
# on an example that named only the wrong value, which is no oracle since (Example.pins). Each sample is one more
# chance for a fix that passes the oracle and is still wrong where the oracle does not look.
SAMPLES = 16
TEMPERATURE = 0.7  # Qwen2.5-Coder's own generation default: varied, still mostly the region copied
BUDGET_S = 45.0

Ask = Callable[[EditRequest], Generator[RequestStats, None, EditProposal]]


def passes(proposal: EditProposal) -> bool:
    """True when ``proposal`` passed every check: a change, not refused, nothing the scope check flags."""
    return proposal.changed and (proposal.scope is None or proposal.scope.ok)


def unmended(proposal: EditProposal) -> bool:
    """True for a single edit's outcome (not a plan step, not a sample) that did not pass: only such a fix is
    sought elsewhere (:mod:`coder.edit.run.locate`) or among one-token changes (:mod:`coder.edit.run.repair`)."""
    request = proposal.request
    return not (request.in_plan or request.seed is not None or passes(proposal))


def due(proposal: EditProposal, oracles: Oracles) -> str | None:
    """What fails now (``the failing example``, ``the failing tests``) when the retry ``proposal`` is sampled.

    Only the greedy retry of a single region edit (not a plan step, not a whole file, not a sample) whose
    reading asks for a fix or change of behaviour, still refused, unchanged or flagged, and only while an
    oracle fails on the code as it is. The oracles run last: they may run the user's test command.
    """
    request = proposal.request
    if (request.mode != "region" or request.in_plan or request.region is None or not request.retry_note
            or request.seed is not None or passes(proposal)):
        return None
    # none for an action other than a fix; a "report" (an example that names only the wrong value) is no oracle
    kinds = {kind for kind, _ in oracles.failing(request)}
    failing = [k for k in ("example", "tests") if k in kinds]
    return ("the failing " + " and ".join(failing)) if failing else None


def sampled_request(request: EditRequest, i: int) -> EditRequest:
    """The ``i``-th sample of ``request`` (1-based): the same prompt, sampled, seeded ``i`` (a rerun draws alike)."""
    return replace(request, temperature=TEMPERATURE, seed=i)


def draw(retry: EditProposal, oracle: str, ask: Ask, *, samples: int = SAMPLES, budget_s: float = BUDGET_S,
         clock: Callable[[], float] = time.monotonic) -> Generator[RequestStats, None, EditProposal]:
    """Ask up to ``samples`` sampled replies to ``retry``'s request; the first that :func:`passes`, else ``retry``.

    ``ask`` streams one request and validates its reply (yielding live stats); ``oracle`` is :func:`due`'s.
    The accepted sample keeps the retry's record (why it was asked again, the first reply).
    """
    started, drawn = clock(), 0
    while drawn < samples and (drawn == 0 or clock() - started < budget_s):
        drawn += 1
        tried = yield from ask(sampled_request(retry.request, drawn))
        if passes(tried):
            tried.retried, tried.first_reply = retry.retried, retry.first_reply
            tried.sampled = Sampled(drawn, drawn, samples, TEMPERATURE, oracle)
            return tried
    retry.sampled = Sampled(None, drawn, samples, TEMPERATURE, oracle)
    return retry
