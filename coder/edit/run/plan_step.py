"""One model step of a plan: ask its region, hold the reply to the plan, retry once when flagged.

A reply is flagged when it is refused (the checks every region edit gets), when a rename's code
tokens are not exactly the tokenized rename, when the spliced file breaks the change spec (a
parameter nobody asked for, a change out of its place: :func:`coder.edit.checks.result.spec_problem`),
or when the whole file's scope check finds a change in it that the instruction does not explain.
The retry names what went wrong and what must not change; a rename's retry is also narrower: only
the lines from the first use of the old name to the last, whole statements, so a small model has
little to copy and little to drift on.
"""

from __future__ import annotations

import ast
import keyword
import textwrap
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from coder import lazy
from coder.edit.checks.code_rules import unset_self_reads
from coder.edit.checks.known_types import missing_attributes
from coder.edit.checks.new_method import graft_method, new_state_unread, property_asked
from coder.edit.checks.result import KEEP_REST, PARSE_LOCK, retry_note, spec_problem
from coder.edit.checks.returns import returns_nothing
from coder.edit.checks.signature import asked_parameter_problem, param_names
from coder.edit.intent.words import said_words
from coder.edit.plan import derive as planning
from coder.edit.plan.add_function import inserted
from coder.edit.plan.members import undocumented
from coder.edit.plan.passes import own_params, with_asked_defaults, with_params_in_header
from coder.edit.proposal import EditProposal, EditRequest
from coder.edit.run.plan_result import PlanRequest, StepResult
from coder.edit.run.prompt import region_prompt
from coder.edit.run.sample import sampled_request
from coder.edit.source.splice import (
    Replacement,
    as_insertion,
    line_span,
    method_added,
    named_as_asked,
    rename_matches,
    rename_tokens,
    splice,
    use_span,
)
from coder.errors import CoderError

if TYPE_CHECKING:
    from coder.edit.intent.spec import ChangeSpec
    from coder.edit.run.engine import EditEngine

Ask = Callable[[EditRequest], EditProposal]  # send one region request, get its proposal
_WORD = lazy.regex(r"[A-Za-z_]\w*")


def step_instruction(instruction: str, step: planning.Step, retry: str = "") -> str:
    """What one region is asked: the user's instruction (or the step's own), its note, and (on a retry) what to keep."""
    return " ".join(part for part in (step.ask or instruction.strip(), step.note, retry) if part)


def region_request(engine: EditEngine, path: Path, step: planning.Step, instruction: str,
                   lines: tuple[int, int] | None = None, spec: ChangeSpec | None = None,
                   shown: str | None = None) -> EditRequest:
    """The region request of ``step`` (or of its ``lines``) in ``path``, built by :meth:`EditEngine.prepare`.

    ``spec`` is the plan's reading: a step asked in the user's words (plus its note) keeps it, so the
    instruction is not read again per region; a step with its own ask (a rename's lines) is read anew.
    ``shown``: the file as the prompt shows it (a header coder wrote: :func:`header_shown`), the same lines as the
    file's; the reply still replaces the file's own region and is judged against the file.
    """
    step_spec = replace(spec, instruction=instruction) if spec is not None and (not step.ask or step.ask_read) else None
    if lines is None and step.symbol is not None:
        request = engine.prepare(path, instruction, mode="region", symbol=step.symbol, spec=step_spec)
    else:
        a, b = lines or (step.start, step.end)
        request = engine.prepare(path, instruction, mode="region", lines=f"{a}-{b}", spec=step_spec)
    if shown is not None and request.region is not None:
        prompt, _ = region_prompt(request.snapshot.rel, shown, request.region, instruction,
                                  repo_context=engine.repo_context)
        request = replace(request, prompt=prompt)
    return replace(request, in_plan=True)


def header_shown(prepared: PlanRequest, step: planning.Step) -> str | None:
    """The file with the header of the def ``step`` adds a parameter to already taking it as the instruction spells
    it (:func:`coder.edit.plan.passes.with_params_in_header`); None for any other step."""
    spec = prepared.spec
    if prepared.plan.kind != "add_param" or spec is None or step.symbol is None \
            or step.symbol not in {t.qualname for t in spec.targets}:
        return None
    return with_params_in_header(prepared.snapshots[step.rel].text, step.symbol, spec)


def renamed_files(prepared: PlanRequest) -> dict[str, str]:
    """Each file of a rename plan after the tokenized rename (empty for other plans)."""
    plan = prepared.plan
    if plan.kind != "rename":
        return {}
    return {rel: rename_tokens(snap.text, plan.renames) for rel, snap in prepared.snapshots.items()}


def mechanized(plan: planning.Plan, texts: dict[str, str], home: str) -> planning.Plan:
    """A rename plan whose scope analysis is unambiguous, with every step the token rename (no request).

    The model's reply to a rename region is judged against the token rename anyway; when
    :func:`coder.edit.plan.rename_scope.ambiguity` finds that every token of the old name binds to the
    renamed symbol, that rename is the answer and asking only costs time and refusals. Otherwise the
    plan is unchanged (each region asks the model) and a note says why.
    """
    if plan.kind != "rename" or not plan.steps or any(s.how != "model" for s in plan.steps):
        return plan
    # imported here: only a rename plan needs the scope analysis, and it cost ~2.5 ms of every other plan's steps
    from coder.edit.plan.rename_scope import ambiguity

    why = ambiguity({rel: texts[rel] for rel in dict.fromkeys([home, *plan.files])}, plan.renames, home)
    only = _confined_step(plan)
    if why is not None and only is not None:  # "in C.m rename the local x": that def's own x, whatever else binds x
        from coder.edit.plan.rename_local import confined_ambiguity

        if confined_ambiguity(texts[only.rel], plan.renames, str(only.symbol)) is None:
            text = line_span(rename_tokens(texts[only.rel], plan.renames), only.start, only.end)
            return replace(plan, steps=(replace(only, how="mechanical", text=text),),
                           reason=f"{plan.reason}; {planning.RENAMED_BY_SCOPE} in {only.symbol}, no model request")
    if why is not None:
        return replace(plan, notes=(*plan.notes, f"scope analysis: ambiguous ({why}): each region asks the model"))
    renamed = {rel: rename_tokens(texts[rel], plan.renames) for rel in plan.files}
    steps = [replace(s, how="mechanical", text=line_span(renamed[s.rel], s.start, s.end)) for s in plan.steps]
    for rel in plan.files:  # lines only a string names it on (``__all__``) are no region of the plan yet
        covered = {r for s in steps if s.rel == rel for r in range(s.start, s.end + 1)}
        pairs = zip(texts[rel].splitlines(), renamed[rel].splitlines(), strict=True)
        for row in (i for i, (a, b) in enumerate(pairs, 1) if a != b and i not in covered):
            steps.append(planning.Step(rel, row, row, f"line {row}", "names it in __all__", "mechanical",
                                       text=line_span(renamed[rel], row, row)))
    steps.sort(key=lambda s: (plan.files.index(s.rel), s.start))
    return replace(plan, steps=tuple(steps), reason=f"{plan.reason}; {planning.RENAMED_BY_SCOPE}, no model request")


def _confined_step(plan: planning.Plan) -> planning.Step | None:
    """The one step of a rename the reading confines to one def (``spec.facts.confined``), else None."""
    if len(plan.steps) != 1 or plan.spec is None:
        return None
    step = plan.steps[0]
    return step if step.symbol is not None and step.symbol == plan.spec.facts.confined else None


def lacks_params(region: str, step: planning.Step, spec: ChangeSpec | None) -> bool:
    """Whether ``region`` (a reply's text for ``step``) holds the def of the step without every parameter ``spec``
    adds to it (False where it does not parse or holds no such def)."""
    if spec is None or step.symbol is None or not (names := param_names(spec)):
        return False
    try:
        tree = ast.parse(textwrap.dedent(region))
    except (SyntaxError, ValueError, RecursionError):
        return False
    bare = step.symbol.rsplit(".", 1)[-1]
    fn = next((n for n in tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and n.name == bare), None)
    return fn is not None and not names <= own_params(fn)


def header_note(spec: ChangeSpec) -> str:
    """What a region shown with its header written by coder is told (:func:`header_shown`)."""
    names = " and ".join(sorted(param_names(spec)))
    return (f"The definition shown already takes {names} in its header, as the instruction asks: keep that header "
            f"exactly, and change the body so that it uses {names} as the instruction says.")


def _region_only(proposal: EditProposal) -> str:
    req, new = proposal.request, proposal.new
    if not (new.startswith(req.before) and new.endswith(req.after)):
        raise CoderError("internal: a region proposal changed text outside its region")
    return new[len(req.before):len(new) - len(req.after)]


def _judge(proposal: EditProposal, expected: str | None, prepared: PlanRequest,
           step: planning.Step) -> tuple[str | None, str, str]:
    """(why the reply cannot be used, or None; the region text to use; what a retry is told to do about it, or
    when the reply is used, what the user is told of how (a new method renamed as asked), else empty)."""
    plan, original, spec = prepared.plan, prepared.snapshots[step.rel].text, prepared.spec
    if not proposal.ok:
        return proposal.refusal or "refused", "", ""
    text, renamed, missing = _shaped(original, step, _region_only(proposal), plan, spec)
    told = ""
    if missing is not None:
        return missing, text, retry_note("add_function", missing, spec)
    if spec is not None and plan.kind != "rename":  # a rename is held to the exact token rename below
        spliced = splice(original, [Replacement(step.start, step.end, text)])
        fixed, told = with_asked_defaults(original, spliced, spec)  # "x=True" spelled: no retry for x=False
        if told:
            spliced, text = fixed, _region_of(original, fixed, step)
        wrong = spec_problem(original, spliced, spec)
        if wrong is not None:  # a parameter nobody asked for, a change out of place: asked again, saying so
            return wrong.reason, text, retry_note(wrong.code, wrong.reason, spec)
        # seen on the H200: "a sep parameter ... used in place of the literal space" came back with sep in the
        # signature and the body unchanged, in two wordings; the whole plan's check refused it with no second try
        if (unused := asked_parameter_problem(original, spliced, spec, within=(step.start, step.end))) is not None:
            return unused, text, retry_note("parameter", unused, spec)
        # run 10 on the H200, queue-method w1: "add a clear(self) method to Queue ..." came back with
        # `while not self.queue.empty()` (a deque has no empty); the whole plan's check refused it with no second try
        if (lacking := missing_attributes(original, spliced)) is not None:
            return lacking, text, retry_note("missing_attribute", lacking, spec)
        if (nothing := returns_nothing(original, spliced, spec)) is not None:
            return nothing, text, retry_note("returns_nothing", nothing, spec)
        # "a docstring to every method of C": one region per bare method, each must come back with its docstring
        if plan.kind == "docstrings" and step.symbol and (bare := undocumented(spliced, step.symbol)) is not None:
            return bare, text, retry_note("unchanged", bare, spec)
    if plan.adds is not None:
        spliced = splice(original, [Replacement(step.start, step.end, text)])
        # a new method that reads an attribute its class never sets is flagged here, so it is asked again
        said = said_words(plan.instruction)
        flag = (method_added(original, spliced, *plan.adds) or unset_self_reads(original, spliced)
                or new_state_unread(original, spliced, *plan.adds, said) or property_asked(spliced, *plan.adds, said))
        return flag, text, "" if flag else renamed
    if expected is None:  # the region's scope is judged with the whole file's, after the splice
        return None, text, told
    check = rename_matches(expected, text, plan.renames)
    return check.problem, check.text, ""


def _shaped(original: str, step: planning.Step, text: str, plan: planning.Plan,
            spec: ChangeSpec | None) -> tuple[str, str, str | None]:
    """The region text a reply stands for (a new method or function alone beside the def shown, which stays as it
    was), the user's note of a new method renamed as asked, and why the reply cannot be used (None: it can)."""
    if plan.adds is not None:
        text, renamed = _new_method_alone(original, step, text, *plan.adds)
        return text, renamed, None
    if plan.kind == "add_function" and spec is not None and spec.new_names:
        text, missing = inserted(original, step, text, spec.new_names[0])
        return text, "", missing
    return text, "", None


def _new_method_alone(original: str, step: planning.Step, text: str, qual: str, name: str) -> tuple[str, str]:
    """An add-method reply's region text (and a note for the user): the new method alone is an insertion after the
    member shown, named as the user asked; a class rewritten besides (run 16, codeop-method) keeps only it."""
    text = as_insertion(original, step.start, step.end, text, qual)
    text, renamed = named_as_asked(original, step.start, step.end, text, qual, name)
    whole = splice(original, [Replacement(step.start, step.end, text)])
    if (method_added(original, whole, qual, name) or "").startswith("the reply changes or drops existing") and (
            kept := graft_method(original, step.start, step.end, text, qual, name)) is not None:
        return kept
    return text, renamed


def _region_of(original: str, spliced: str, step: planning.Step) -> str:
    """The text of ``step``'s region in ``spliced``: what lies between the original's lines before and after it."""
    before, after = line_span(original, 1, step.start - 1), line_span(original, step.end + 1, len(original))
    assert spliced.startswith(before) and spliced.endswith(after)  # only the region's def was changed
    return spliced[len(before):len(spliced) - len(after)]


def _retry_note(plan: planning.Plan, flag: str, code: str = "", hint: str = "") -> str:
    if plan.kind == "rename":
        what = ", ".join(f"`{a}` to `{b}`" for a, b in plan.renames)
        olds = {a for a, _ in plan.renames}
        names = [w for w in dict.fromkeys(_WORD.findall(code)) if w not in olds and not keyword.iskeyword(w)]
        keep = f" Keep {', '.join(f'`{n}`' for n in names[:8])} exactly as they are." if names else ""
        return (f"Rename {what} in this code, and nothing else: every other name and every other character "
                f"stays exactly as it is.{keep} (A first reply was refused: {flag}.)")
    if hint:  # the result check's own words: what went wrong and what to do instead
        return f"{KEEP_REST} {hint}"
    return retry_note("unexplained", flag)  # as a single region edit's scope retry says it


def run_step(engine: EditEngine, prepared: PlanRequest, i: int, ask: Ask, renamed: dict[str, str], *,
             seed: int | None = None) -> StepResult:
    """Ask step ``i``; a flagged reply is retried once (:func:`retry`). ``seed``: a sampled reply
    (:mod:`coder.edit.run.plan_sample`), never retried: flagged, its text is None."""
    step = prepared.plan.steps[i]
    expected = line_span(renamed[step.rel], step.start, step.end) if step.rel in renamed else None
    request = prepared.requests[i]
    proposal = ask(request if seed is None else sampled_request(request, seed))
    with PARSE_LOCK:  # steps run on threads; CPython 3.11's parser is not thread-safe
        flag, text, hint = _judge(proposal, expected, prepared, step)
    if flag is None:
        return StepResult(step, text, proposal, None, None, note=hint)
    if seed is not None:  # a sample (plan_sample) is not retried: another sample is drawn instead
        return StepResult(step, None, proposal, None, flag)
    # the header is written for the retry only where the reply left the parameter out (timeit-param w1 on the CPU:
    # then used); where the reply took it and left it unused, shown it again it stayed unused (shlex-param w0)
    header = proposal.ok and lacks_params(text, step, prepared.spec)
    return retry(engine, prepared, i, ask, renamed, flag, proposal.reply, hint=hint, header=header)


def retry(engine: EditEngine, prepared: PlanRequest, i: int, ask: Ask, renamed: dict[str, str],
          flag: str, first_reply: str, *, hint: str = "", header: bool = False) -> StepResult:
    """Ask step ``i`` once more, naming what the first reply got wrong (and ``hint``: what to do instead).

    Refused when the second reply is flagged too.
    """
    plan, step = prepared.plan, prepared.plan.steps[i]
    a, b = step.start, step.end
    if step.rel in renamed:  # narrower: the statements from the first use of the old name to the last
        a, b = use_span(prepared.snapshots[step.rel].text, a, b, {old for old, _ in plan.renames})
    shown = header_shown(prepared, step) if header else None
    if shown is not None and plan.spec is not None:
        # "add the parameter to the definition" is done: the header shown has it, only its use is left to ask
        said = f"(A first reply was refused: {flag}.)"
        hint = f"{said if hint == retry_note('parameter', flag, plan.spec) else hint} {header_note(plan.spec)}"
    note = _retry_note(plan, flag, line_span(prepared.snapshots[step.rel].text, a, b), hint)
    # a rename's retry asks only for the rename: "rename X everywhere" made small models rename the region's own def
    asked = note if step.rel in renamed else step_instruction(plan.instruction, step, note)
    again = region_request(engine, prepared.snapshots[step.rel].path, step, asked,
                           None if (a, b) == (step.start, step.end) else (a, b), plan.spec, shown)
    second = ask(again)
    full = renamed.get(step.rel)
    narrowed = replace(step, start=a, end=b)
    with PARSE_LOCK:
        still, text, note = _judge(second, line_span(full, a, b) if full is not None else None, prepared, narrowed)
    if still is not None:
        return StepResult(step, None, second, flag, still, first_reply)
    if full is not None:  # outside the narrowed lines nothing uses the old name: the rename is the original
        text = line_span(full, step.start, a - 1) + text + line_span(full, b + 1, step.end)
    return StepResult(step, text, second, flag, None, first_reply, note=note)
