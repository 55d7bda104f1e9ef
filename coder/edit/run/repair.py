"""A fix the model did not make, found among the one-token changes that the project's failing tests tell apart.

On the H200 (runs 12 and 13) the 1.5B, shown code with an off-by-one (``n >= maxiter`` for ``n > maxiter``,
``indent - 1`` for ``indent``), answered "no change", greedily and in 16 samples. What it could not see, the
project's tests can judge: they fail on the code as it is, and they pass on the right fix. So when a single
fix is still not mended after its retry, its samples and the look elsewhere (:mod:`coder.edit.run.locate`),
and the user's test command fails on the code as it is, coder tries the one-token changes of mutation testing
(:mod:`coder.edit.source.mutants`) in the functions the failing oracles point to, each held to every check as
a reply is (the test command and the instruction's examples run on it). No model request is made.

A change is taken only when every passing one changes the same place of the code: two places the tests
cannot tell apart mean the tests do not say which fix is meant, and the refusal stands. The tests are the
judge, so nothing is tried without them (an example alone passes too many wrong changes), nor beyond
:data:`MAX_MUTANTS` changes or :data:`BUDGET_S` seconds (every change must be tried to know it is the only
place). The notes, ``--json`` and the bench row say ``repaired`` with the change made.

Where: the function the oracles point to outside the code sent (:func:`coder.edit.run.locate.where`), the
functions the failing example ran and those the failing tests name, and the function (or class, or span) sent;
where the whole file was sent, all of its functions only when there is no such clue. Where none of those holds
a passing change (or none has a change to try), what they call and where their objects are made
(:func:`upstream_of`), then the other methods of their classes and of the bases the file defines
(:func:`siblings_of`), each search in what is left of the one budget.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import partial
from typing import TYPE_CHECKING

from coder.edit.run.locate import named_by, where
from coder.edit.run.retry import Build, Oracles, spec_of
from coder.edit.run.sample import passes, unmended
from coder.edit.source.callees import lineage, makers, reachable
from coder.edit.source.mutants import Mutant, mutants
from coder.edit.source.regions import Region, python_symbols

if TYPE_CHECKING:
    from coder.edit.proposal import EditProposal, EditRequest

NONE_PASSES = "; none passes every check"
# one-token changes tried at most; a search larger than this is not made at all. 150 since len(x) one up and one
# down joined the operators (run 19): held-out reprlib's whole file, no clue to narrow it, went from 113 to 123
MAX_MUTANTS = 150
BUDGET_S = 40.0  # and the seconds they may take (each runs the test command): past it, the refusal stands
# A change may make a loop endless (`i + 1` -> `i - 1`): each run of the test command is cut at this many times
# its run on the code as it is, and never under MIN_S (an interpreter's start). Offline (scripts/dev/repair_pairs.py)
# one getopt change ran the upstream tests into the 120 s limit of the user's command.
SLOWER = 4.0
MIN_S = 2.0
Evaluate = Callable[..., "EditProposal"]  # EditEngine.evaluate: a reply validated, with the commands to run


@dataclass(frozen=True)
class Found:
    """The search's outcome: the proposal taken (None: none), and what was tried, said in one line."""

    proposal: EditProposal | None
    line: str


def repair(proposal: EditProposal, oracles: Oracles, build: Build, evaluate: Evaluate,
           clock: Callable[[], float] = time.monotonic) -> EditProposal:
    """``proposal``, or the one-token fix that passes every check where the failing tests point (see above)."""
    request = proposal.request
    if (not unmended(proposal) or not request.snapshot.rel.endswith(".py")
            or not any(kind == "tests" for kind, _ in oracles.failing(request))):
        return proposal
    limit = max(MIN_S, SLOWER * oracles.clues(request).tests_s)
    checks = tuple(replace(c, timeout_s=min(c.timeout_s, limit)) for c in oracles.checks)
    first = places(request, oracles)
    started = clock()
    found = search(request, first, build, partial(evaluate, checks=checks), clock)
    tried = list(first)
    for stage in (upstream_of, siblings_of):
        # wider only where every change so far was tried and none passed, or there was none to try (a method
        # of two calls has no one-token change: run 22's socketserver and profile reports stopped there)
        if found.proposal is not None or not (found.line.endswith(NONE_PASSES) or not found.line):
            break
        wider, left = stage(request, tried), BUDGET_S - (clock() - started)
        if not wider or left <= 0:
            continue
        tried += wider
        again = search(request, wider, build, partial(evaluate, checks=checks), clock, budget=left)
        found = again if again.proposal is not None or not found.line else Found(
            None, f"{found.line}; then {again.line}" if again.line else found.line)
    if found.proposal is not None:
        taken = found.proposal
        taken.retried, taken.first_reply, taken.sampled = proposal.retried, proposal.first_reply, proposal.sampled
        taken.moved, taken.repaired = proposal.moved, found.line
        return taken
    proposal.repaired = found.line or None
    return proposal


def places(request: EditRequest, oracles: Oracles) -> list[tuple[str, Region]]:
    """The functions to try, in order: where the oracles point elsewhere, what they ran and name, what was sent."""
    try:
        functions = {q: r for q, r in python_symbols(request.snapshot.text) if r.kind == "function"}
    except (SyntaxError, ValueError, RecursionError):
        return []
    clues, sent = oracles.clues(request), request.region if request.mode == "region" else None
    moved = where(request, oracles)
    order = [moved.name] if moved is not None else []
    order += [q for q in clues.reached if q in functions]
    order += [q for t in clues.tests if (q := named_by(t, functions)) is not None]
    if sent is not None:  # and the code sent, always
        order += [q for q, r in functions.items() if sent.start <= r.start and r.end <= sent.end]
    elif not order:  # the whole file was sent: all of it only when there is no clue
        order = list(functions)
    seen: dict[str, Region] = {}
    for q in order:
        seen.setdefault(q, functions[q])
    # a method inside a function sent is tried once, as part of the outer function's lines
    return [(q, r) for q, r in seen.items()
            if not any(o != r and o.start <= r.start and r.end <= o.end for o in seen.values())]


def upstream_of(request: EditRequest, first: list[tuple[str, Region]]) -> list[tuple[str, Region]]:
    """Where a bug the first places did not hold may be instead: what they call, and where the objects of their
    classes are made (:func:`coder.edit.source.callees.makers`); none of the first places again."""
    text = request.snapshot.text
    try:
        functions = {q: r for q, r in python_symbols(text) if r.kind == "function"}
    except (SyntaxError, ValueError, RecursionError):
        return []
    tried = {q for q, _ in first}
    classes = {q.rsplit(".", 1)[0] for q in tried if "." in q}
    wider = sorted((reachable(text, tried) | makers(text, classes)) - tried, key=lambda q: functions[q].start
                   if q in functions else 0)
    inside = [r for _, r in first]
    return [(q, functions[q]) for q in wider if q in functions
            and not any(o.start <= functions[q].start and functions[q].end <= o.end for o in inside)]


def siblings_of(request: EditRequest, tried: list[tuple[str, Region]]) -> list[tuple[str, Region]]:
    """The other methods of the classes tried (and of the class sent, and of the bases the file defines for them):
    a fault seen through one method may sit in the method that set up what it reads, which nothing it calls is.
    None of ``tried`` again."""
    text = request.snapshot.text
    try:
        found = python_symbols(text)
    except (SyntaxError, ValueError, RecursionError):
        return []
    functions = {q: r for q, r in found if r.kind == "function"}
    classes = {q for q, r in found if r.kind == "class"}
    owners = {q.rsplit(".", 1)[0] for q, _ in tried if "." in q}
    sent = request.region if request.mode == "region" else None
    if sent is not None:
        owners |= {q for q in classes if sent.label == f"class {q}"}
    done = {q for q, _ in tried}
    inside = [r for _, r in tried]
    return [(q, functions[q]) for q in sorted(lineage(text, owners) - done, key=lambda q: functions[q].start
                                              if q in functions else 0)
            if q in functions and not any(o.start <= functions[q].start and functions[q].end <= o.end
                                          for o in inside)]


def search(request: EditRequest, where_: list[tuple[str, Region]], build: Build, evaluate: Evaluate,
           clock: Callable[[], float], budget: float = BUDGET_S) -> Found:
    """Try every mutant of the functions ``where_``; the one place whose changes pass, else none."""
    text, spec = request.snapshot.text, spec_of(request)
    tried: list[tuple[str, Region, Mutant]] = [(q, r, m) for q, r in where_ for m in mutants(text, r.start, r.end)]
    if not tried:
        return Found(None, "")
    if len(tried) > MAX_MUTANTS:
        return Found(None, f"no one-token change tried: {len(tried)} in {_names(where_)}, more than {MAX_MUTANTS}")
    started, ok, asked = clock(), [], {}  # asked: one request per function (its prompt is the same for every change)
    held: dict[str, Region] = {}  # a passing change's text -> the function it was tried in
    for n, (qual, region, mutant) in enumerate(tried, 1):
        if clock() - started > budget:
            return Found(None, f"one-token changes tried: {n - 1} of {len(tried)} in {_names(where_)} before "
                               f"{budget:.0f} s; not all, so none is taken")
        why = f"{request.mode_reason}; one-token change at line {mutant.line}: {mutant.what}"
        if region not in asked:
            asked[region] = build(request.snapshot, spec, "region", region, why)
        got = evaluate(replace(asked[region], mode_reason=why), _reply(mutant.text, region), finish_reason="stop")
        if passes(got):
            ok.append((qual, mutant, got))
            held[mutant.text] = region
    what = f"{len(tried)} one-token change{'s' if len(tried) > 1 else ''} tried in {_names(where_)}"
    if not ok:
        return Found(None, f"{what}{NONE_PASSES}")
    # one place: the changes that overlap the first, or overlap one that does (`len(a) + 1` -> `len(a)`, and its
    # `len(a)` -> `len(a) - 1` and `1` -> `0`)
    place, apart = [ok[0]], ok[1:]
    while grown := [f for f in apart if any(f[1].meets(p[1]) for p in place)]:
        place += grown
        apart = [f for f in apart if f not in grown]
    if apart:  # the first place, and the first changes elsewhere
        shown = "; ".join(f"{q} line {m.line}: {m.what}" for q, m, _ in [ok[0], *apart[:2]])
        return Found(None, f"{what}; {len(ok)} pass the failing tests in more than one place ({shown}), so the "
                           "tests do not say which is meant and none is taken")
    # one place: `a - 1` -> `a` and `a - 1` -> `a - 0` alike; the shortest text is the plainest of them
    qual, mutant, got = min(place, key=lambda found: len(found[1].text))
    if mutant.further is not None and clock() - started <= budget:
        # a count the tests pass one step further too is a value they do not pin: which one is meant, they cannot say
        region = held[mutant.text]
        further = evaluate(replace(asked[region], mode_reason=f"{request.mode_reason}; the count one step further"),
                           _reply(mutant.further, region), finish_reason="stop")
        if passes(further):
            return Found(None, f"{what}; {mutant.what} passes the failing tests in {qual} at line {mutant.line}, "
                               "and so does the same count one step further, so the tests do not pin the value "
                               "and none is taken")
    return Found(got, f"repaired in {qual} at line {mutant.line}, {mutant.what}: the one place of {what} where "
                      "the failing tests pass")


def _reply(text: str, region: Region) -> str:
    """The region's lines of ``text`` as a model's reply would bring them."""
    lines = text.splitlines(keepends=True)[region.start - 1:region.end]
    return "```python\n" + "".join(lines) + ("" if lines[-1].endswith("\n") else "\n") + "```\n"


def _names(where_: list[tuple[str, Region]]) -> str:
    names = [q for q, _ in where_]
    return ", ".join(names[:4]) + (f" and {len(names) - 4} more" if len(names) > 4 else "")
