"""Where a refused edit of ``coder bench --edits`` was lost: reading, model, check or user command.

A refusal keeps the file intact, but the user still leaves without the edit, so the report counts
refusals by the layer that refused. The layer is read from the refusal code that ``coder edit --json``
reports (:class:`~coder.edit.checks.reply.EditRefused` codes, the plan's codes of
:mod:`coder.edit.run.plan_result`, ``check_failed``) plus the codes the bench gives its own refusals
(:data:`BENCH_CODES`), and from what the request resolved: a targeted instruction whose request fell
back to the whole file (windows, or one whole-file request in auto mode because no region was found),
or a rename that was not planned as one, was lost in the reading, whatever refused it afterwards.
"""

from __future__ import annotations

LAYERS = ("reading", "model", "check", "user command")

# the bench's own refusals (no code from coder): the request refused before any model call, the stream
# broken, no proposal, an unchanged file, a change the instruction does not explain under --yes, an apply error
BENCH_CODES = ("request_refused", "stream_error", "no_result", "unchanged", "unexplained", "not_applied")

_MODEL = frozenset({
    "length", "empty", "not_text", "no_fence", "unclosed_fence", "multiple_blocks", "elision", "shrunk",
    "context_repeated", "not_single_region", "wrong_region", "loop", "drift",  # the reply, as the guard reads it
    "stream_error", "no_result", "unchanged",
})
_CHECK = frozenset({
    "syntax",  # the edited file does not parse
    "undefined", "unset_attribute", "extract_uncalled", "call_mismatch", "returns_nothing",  # the code rules
    "none_default", "parameter", "outside_targets", "missing_attribute", "contract", "partial_hints", "empty_fstring",
    "missing_fstring", "unused_asked",
    "signature", "placement", "no_code_change",  # the spec's rules: unasked parameter, misplaced, no code changed
    "guard_only",  # a fix that only raises where a wrong result was reported (coder.edit.checks.guards)
    "unexplained",  # the explained-change rules (the scope guard under --yes)
    "behaviour",  # a fix's own example, run before and after the edit (coder.edit.checks.behaviour)
    "disagree",  # sampled replies to a change nothing else checks behave otherwise (coder.edit.run.agree)
    "not_applied",
})
_READING = frozenset({"request_refused"})
_USER = frozenset({"check_failed"})  # the user's test_command / lint_command failed on the proposal


def fell_back(mode: str | None, mode_reason: str | None, plan_kind: str | None) -> bool:
    """True when the request resolved no region: a windows plan, or one whole-file request that auto mode
    chose because no region holds the change (not because full was predicted faster)."""
    if plan_kind == "windows":
        return True
    reason = mode_reason or ""
    return mode == "full" and reason.startswith("auto: full (")


def misread(expected_plan: str | None, plan_kind: str | None) -> bool:
    """True when the request resolved the wrong action: the task is one a plan of kind ``expected_plan`` does
    (a rename), and coder built a plan of another kind or one request (``plan_kind`` None)."""
    return expected_plan is not None and plan_kind != expected_plan


def refusal_layer(code: str | None, *, step_code: str | None = None, fallback: bool = False) -> str:
    """The layer of one refusal: ``reading``, ``model``, ``check``, ``user command`` (``other``: a code not
    known here, so a new code shows up in the table instead of being filed under a wrong layer).

    ``step_code`` is the refused region's own code when a plan was refused for a region (``plan_region``);
    ``fallback``: the request resolved nothing (:func:`fell_back`) or the wrong action (:func:`misread`), which
    charges the refusal to the reading.
    """
    if code in _USER:
        return "user command"
    if fallback or code in _READING:
        return "reading"
    if code == "plan_region":
        return refusal_layer(step_code) if step_code and step_code != "plan_region" else "model"
    if code in _MODEL:
        return "model"
    if code in _CHECK:
        return "check"
    return "other"
