"""A behaviour change nothing can check is asked again, sampled; replies that behave differently are refused.

An oracle tells a right fix from a wrong one only where something fails on the code as it is (the
instruction's own example, the user's tests: :class:`coder.edit.run.retry.Oracles`) or where the instruction
shows what a new method returns. Without one, every check of a reply is about its form, and a plausible reply
that does the wrong thing is applied: on the H200 (run 9) an ``is_mixed`` that counted the spaces of the whole
line and not its indentation, one that was true of plain spaces, and a fix of ``indent_level`` in a line that was
not the bug, each passing every check. Where the model knows the answer, replies sampled at a temperature behave
as its greedy one does; where it does not, they differ. So such a change draws up to :data:`SAMPLES` more replies
to the same request at :data:`~coder.edit.run.sample.TEMPERATURE`, each validated as every reply is, until
:data:`PASSING` pass every check, and the accepted reply and those that pass are called on probe inputs the
original file shows
(:mod:`coder.edit.checks.probes`). If any two differ, the edit is refused, with the call and the answers:

    the model's answers disagree on Whitespace('\\t').is_mixed(): the reply gives False, a sampled reply True (...)

If they agree, or no sample passes every check (then nothing contradicts the reply), it is applied as before.
Agreement is no proof: a model sure of a wrong reading repeats it. A refusal is honest; a wrong edit is not.

Only where the examples run (:class:`coder.edit.checks.behaviour.ExampleCheck`: the probes run the repository's
code) and only for changes of what code does: a fix or change of behaviour with no failing oracle (an example
that names only the wrong value, ``indent_level(8) gives 1``, is none: a reply giving 0 passes it), a new method
or function with no example. On the H200 a region reply takes 0.1-0.3 s and the probes ~0.15 s; on two CPU cores
a sample takes 10-60 s, hence :data:`BUDGET_S`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Generator, Iterable, Sequence

from coder.edit.apply.files import FileSnapshot
from coder.edit.checks.behaviour import ExampleCheck
from coder.edit.checks.probes import Disagreement, compare
from coder.edit.intent.spec import ChangeSpec
from coder.edit.proposal import EditProposal
from coder.edit.run.retry import Oracles, spec_of
from coder.edit.run.sample import TEMPERATURE, Ask, passes, sampled_request
from coder.telemetry.stats import RequestStats

CODE = "disagree"  # the refusal code (a check's: coder.bench.edits.layers)
SAMPLES = 4  # drawn at most: each is one more chance to see a doubt, and one more chance to doubt a right reply
PASSING = 2  # no more are drawn once this many passed every check and agree (at 0.7 the 1.5B's often do not)
BUDGET_S = 40.0  # no sample starts once this has passed since the first (a started one runs to its end)
CORROBORATED = False  # True: refused also when no sample passed every check (nothing agreed with the reply)
_NEW = frozenset({"add_method", "add_function"})


def due(spec: ChangeSpec, examples: ExampleCheck | None,
        failing: Callable[[], Sequence[tuple[str, str]]]) -> bool:
    """Whether a reply to ``spec`` changes behaviour with nothing to check it: examples run here, and it is a new
    method or function the instruction shows no call of, or a fix or change while ``failing()`` (the oracles that
    fail on the code as it is, :class:`coder.edit.run.retry.Oracles`) holds none but a ``report``: an example
    naming only the wrong value, which a reply wrong another way passes too. ``failing`` is called last: it may
    run the user's test command."""
    if examples is None or not examples.runs:
        return False
    if spec.action in _NEW:
        return not spec.examples
    return spec.action == "change" and all(kind == "report" for kind, _ in failing())


def named(spec: ChangeSpec) -> list[tuple[str | None, str]]:
    """The defs the reading names, as :func:`coder.edit.checks.probes.targets` takes them: new methods of the
    owner, new functions, the functions and methods it targets."""
    out: list[tuple[str | None, str]] = []
    if spec.action == "add_method" and spec.owner is not None:
        out += [(spec.owner.qualname, n) for n in spec.new_names]
    elif spec.action == "add_function":
        out += [(None, n) for n in spec.new_names]
    for t in spec.targets:
        if t.kind in ("function", "method") and t.qualname.count(".") <= 1:
            cls, _, name = t.qualname.rpartition(".")
            out.append((cls or None, name))
    return out


def verdict(snap: FileSnapshot, spec: ChangeSpec, accepted: str, samples: Sequence[str | None]) -> str | None:
    """The refusal when the ``samples`` (each sample's new text, None where it did not pass every check) behave
    otherwise than ``accepted``, or when none passed (:data:`CORROBORATED`); None when they agree."""
    passed = [s for s in samples if s is not None]
    if not passed:
        return None if not CORROBORATED or not samples else (
            f"nothing checks this change of behaviour, and no sampled reply passed every check to agree with it "
            f"({said(len(samples))})")
    found = compare(snap, [accepted, *passed], named(spec))
    if not isinstance(found, Disagreement) or found.call is None:
        return None
    return f"{found.line()} ({said(len(samples))}; their answers differ, so the model does not know)"


def said(drawn: int) -> str:
    """``2 sampled replies, temperature 0.7``."""
    return f"{drawn} sampled {'reply' if drawn == 1 else 'replies'}, temperature {TEMPERATURE:g}"


def more(texts: Sequence[str | None], started: float, refusal: str | None) -> bool:
    """Whether another sample is drawn after ``texts`` (started at ``started``, ``time.monotonic``): not once the
    samples disagree, :data:`PASSING` passed, :data:`SAMPLES` were drawn or :data:`BUDGET_S` passed."""
    if refusal is not None or len(texts) >= SAMPLES or sum(t is not None for t in texts) >= PASSING:
        return False
    return not texts or time.monotonic() - started < BUDGET_S


def drawn(ask: Callable[[int], str | None], judge: Callable[[list[str | None]], str | None]) -> str | None:
    """Draw samples (``ask(seed)``: its new text, None when it did not pass every check) while :func:`more`; the
    refusal ``judge`` finds in the texts drawn (after each passing sample), else None."""
    texts: list[str | None] = []
    started, refusal = time.monotonic(), None
    while more(texts, started, refusal):
        texts.append(ask(len(texts) + 1))
        if texts[-1] is not None or not more(texts, started, None):
            refusal = judge(texts)
    return refusal


def check(proposal: EditProposal, oracles: Oracles, ask: Ask) -> Generator[RequestStats, None, EditProposal]:
    """A single region edit: ``proposal`` refused when sampled replies to its request behave otherwise.

    Only an accepted change (:func:`coder.edit.run.sample.passes`) outside a plan, not itself a sample, that
    :func:`due`. ``ask`` streams one request and validates its reply.
    """
    request = proposal.request
    if (not passes(proposal) or request.in_plan or request.seed is not None
            or not due(spec_of(request), oracles.examples, lambda: oracles.failing(request))):
        return proposal
    snap, spec = request.snapshot, spec_of(request)
    texts: list[str | None] = []
    started, refusal = time.monotonic(), None
    while more(texts, started, refusal):
        tried = yield from ask(sampled_request(request, len(texts) + 1))
        texts.append(tried.new if passes(tried) else None)
        if texts[-1] is not None or not more(texts, started, None):
            refusal = verdict(snap, spec, proposal.new, texts)
    if refusal is not None:
        proposal.refusal_code, proposal.refusal = CODE, refusal
    return proposal


def texts_of(files: Iterable[EditProposal], rel: str) -> str | None:
    """The new text of ``rel`` among a plan's file proposals (None: not changed there)."""
    return next((p.new for p in files if p.request.snapshot.rel == rel and p.changed), None)
