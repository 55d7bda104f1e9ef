"""Where the bug is when the function the instruction names was not mended: the failing oracles point elsewhere.

A report names where the symptom shows, not always where the bug is. "deepcopy of a dict doesn't copy the
values" names ``deepcopy``; the bug is in ``_deepcopy_dict``, which ``deepcopy`` reaches through its dispatch
table. "Timer('x = 1\\ny = 2') raises IndentationError" names ``Timer``; the bug is in ``reindent``, which
``Timer.__init__`` calls. On the H200 (run 12) the model, shown the named function, answered "no change" to
both, greedily and in 16 samples, and they were refused: it was right, the code it saw has no bug.

The failing oracles say where to look, mechanically and without the model
(:class:`coder.edit.run.retry.Clues`):

- the instruction's failing example, run on the code as it is, ran these functions of the file
  (:mod:`coder.edit.checks.behaviour` traces the call);
- the failing tests are named for what they test: ``test_deepcopy_dict`` and ``test_deepcopy_dict_subclass``
  name ``_deepcopy_dict``. A test names the function whose name is the longest its name starts with.

The place is one function, and only one, that the code sent may run (its callees, directly, through a
module-level table, or as the traced example called them: :mod:`coder.edit.source.callees`; never its
callers): the one the examples ran, where one is left, else the one most failing tests name. Where the code
sent was more than one function (a class, a span, the whole file), the one function in it that the clues point
to is the place next. Where several are left and the tests name none of them, or the tests name two alike,
nothing moves and the refusal stands. Checked on the suite's and the held-out set's 42 bug reports offline,
this moves 4 pairs, each to the function the bug was put in, and none sent the right function already.

The moved request is asked once, greedily, and sampled like a retry while an oracle fails
(:mod:`coder.edit.run.sample`); it is held to every check, so a fix there is taken only when the example or
the tests that failed now pass.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Generator
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from coder.edit.proposal import UNCHANGED
from coder.edit.run.retry import Build, Clues, Oracles, spec_of
from coder.edit.run.sample import Ask, draw, due, passes, unmended
from coder.edit.source.callees import reachable
from coder.edit.source.regions import Region, python_symbols

if TYPE_CHECKING:
    from coder.edit.proposal import EditProposal, EditRequest
    from coder.telemetry.stats import RequestStats

SHORTEST = 3  # a function name shorter than this (``f``, ``go``) is named by too many tests to say anything


@dataclass(frozen=True)
class Moved:
    """The function the failing oracles point to, and why (said in the notes, the prompt and ``--json``)."""

    name: str  # its qualified name
    region: Region
    why: str  # "the failing tests test_deepcopy_dict, test_deepcopy_dict_subclass name it"

    def line(self, sent: Region | None) -> str:
        """``looked in _deepcopy_dict: the failing tests ... name it (function deepcopy was not mended)``."""
        return f"looked in {self.name}: {self.why} ({_label(sent)} was not mended)"


def _label(sent: Region | None) -> str:
    return sent.label if sent is not None else "the whole file"


def elsewhere(proposal: EditProposal, oracles: Oracles) -> Moved | None:
    """Where to look next for the bug ``proposal`` did not mend, or None (see the module's docstring).

    Only for a single edit of a Python file, a region or the whole file (not a plan step, not itself moved or
    sampled), that did not pass, whose reading asks for a fix, while an oracle fails on the code as it is.
    """
    if proposal.request.moved or not unmended(proposal):
        return None
    return where(proposal.request, oracles)


def where(request: EditRequest, oracles: Oracles) -> Moved | None:
    """Where the failing oracles of ``request``'s fix point, outside the code it sends (or inside, narrowed)."""
    sent = request.region if request.mode == "region" else None
    if not request.snapshot.rel.endswith(".py"):
        return None
    clues = oracles.clues(request)
    if not clues.reached and not clues.tests:
        return None
    text = request.snapshot.text
    try:
        functions = {q: r for q, r in python_symbols(text) if r.kind == "function"}
    except (SyntaxError, ValueError, RecursionError):
        return None
    shown = {q for q, r in functions.items() if sent is None or _within(r, sent)}
    return pick(clues, functions, sent, reachable(text, shown) | _called(clues.calls, shown))


def pick(clues: Clues, functions: dict[str, Region], sent: Region | None, reach: set[str]) -> Moved | None:
    """The one function of ``functions`` (qualified name -> region) that ``clues`` point to, or None.

    Outside ``sent``, among the functions the code sent may run (``reach``: never its callers) first; then,
    where ``sent`` was more than one function (a class, a span of lines, the whole file: None), inside it: the
    model shown a whole class may miss the method that the oracles point to.
    """
    if sent is None:
        return _among(clues, functions, functions)
    moved = _among(clues, functions, {q: r for q, r in functions.items() if q in reach
                                      and (r.end < sent.start or r.start > sent.end)})
    if moved is None and sent.kind != "function":
        moved = _among(clues, functions, {q: r for q, r in functions.items() if _within(r, sent) and r != sent})
    return moved


def _within(r: Region, sent: Region) -> bool:
    return sent.start <= r.start and r.end <= sent.end


def _called(calls: tuple[tuple[str, str], ...], start: set[str]) -> set[str]:
    """What the functions ``start`` called, directly or not, in the traced example (:attr:`Clues.calls`)."""
    seen, todo = set(), list(start)
    while todo:
        caller = todo.pop()
        for callee in (b for a, b in calls if a == caller and b not in seen):
            seen.add(callee)
            todo.append(callee)
    return seen


def _among(clues: Clues, functions: dict[str, Region], pool: dict[str, Region]) -> Moved | None:
    # a test is named for one function of the whole file: one named for the function sent votes for none of pool
    named = Counter(q for t in clues.tests if (q := named_by(t, functions)) in pool)
    ran = [q for q in clues.reached if q in pool]
    if len(ran) == 1:
        return Moved(ran[0], pool[ran[0]], "the instruction's example runs it")
    if ran:  # several: the one of them the tests name most
        named = Counter({q: n for q, n in named.items() if q in ran})
    top = named.most_common(2)
    if not top or (len(top) == 2 and top[0][1] == top[1][1]):
        return None
    name = top[0][0]
    tests = [t for t in clues.tests if named_by(t, functions) == name]
    ran_too = " and the instruction's example runs it" if ran else ""
    return Moved(name, pool[name], f"the failing {_listed(tests)} {'names' if len(tests) == 1 else 'name'} it"
                 f"{ran_too}")


def named_by(test: str, functions: dict[str, Region]) -> str | None:
    """The function ``test`` is named for: the longest bare name its name (less ``test``) is or starts with."""
    said = test[4:].lstrip("_").lower()
    best: tuple[int, str] | None = None
    for qual in functions:
        bare = qual.rsplit(".", 1)[-1].strip("_").lower()
        if (len(bare) >= SHORTEST and (said == bare or said.startswith(bare + "_"))
                and (best is None or len(bare) > best[0])):
            best = (len(bare), qual)
    return best[1] if best else None


def _listed(tests: list[str]) -> str:
    shown = ", ".join(tests[:3]) + (f" and {len(tests) - 3} more" if len(tests) > 3 else "")
    return f"{'test' if len(tests) == 1 else 'tests'} {shown}"


def moved_request(proposal: EditProposal, moved: Moved, build: Build) -> EditRequest:
    """The request for ``moved``'s function (``build``: the engine's), its prompt saying why it is shown."""
    request, spec = proposal.request, spec_of(proposal.request)
    sent = request.region if request.mode == "region" else None
    note = (f"{_label(sent)[0].upper()}{_label(sent)[1:]} was shown and not mended; {moved.why}, so the bug is "
            f"probably here, in {moved.name}: find it and mend it.")
    asked = replace(spec, instruction=f"{request.instruction.strip()} {note}")
    why = f"{request.mode_reason}; {moved.line(sent)}"
    return replace(build(request.snapshot, asked, "region", moved.region, why),
                   instruction=request.instruction, spec=spec, retry_note=note, moved=moved.line(sent))


def look_elsewhere(proposal: EditProposal, oracles: Oracles, build: Build,
                   ask: Ask) -> Generator[RequestStats, None, EditProposal]:
    """``proposal``, or the fix found where the failing oracles point (:func:`elsewhere`), asked through ``ask``.

    The moved request is asked greedily, then sampled while an oracle fails (:func:`coder.edit.run.sample.due`).
    A fix there that passes every check is the outcome; else ``proposal`` stands, its note saying where else
    coder looked and what came of it.
    """
    moved = elsewhere(proposal, oracles)
    if moved is None:
        return proposal
    found = yield from ask(moved_request(proposal, moved, build))
    if (oracle := due(found, oracles)) is not None:
        found = yield from draw(found, oracle, ask)
    line = found.request.moved
    if passes(found):
        found.moved, found.retried, found.first_reply = line, proposal.retried, proposal.first_reply
        return found
    what = found.refusal or UNCHANGED
    proposal.moved = f"{line}; not mended there either: {what}"
    return proposal
