"""The last check on a proposal, whatever built it: the new file parses and gains no undefined name.

A full rewrite, a region splice and a multi-region plan all end as one new text for one
file. Each piece may pass its own checks and the whole still break: a region that renames
a helper its neighbour calls, a splice that drops an import. So the whole new text is
checked against the file as it is: a Python file that parsed must still parse, and it must
not use a name that nothing defines where the original did not (pyflakes' undefined-name
messages before and after, compared by name: moving a line moves its message, which is
not a new problem). Other languages are not checked here (nothing is known to parse them
the same way); the user's own test or lint command covers them (:mod:`coder.edit.checks.user_commands`).
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path, PurePath
from typing import TYPE_CHECKING

from pyflakes import messages

from coder.edit.checks.code_rules import (
    broken_calls,
    extracted_uncalled,
    extraction_undefined,
    method_attribute_reads,
    unset_self_reads,
)
from coder.edit.checks.contract import broken_contract
from coder.edit.checks.defaults import none_dereferenced, unhandled_none_defaults
from coder.edit.checks.extract_kept import dropped_in_extraction
from coder.edit.checks.extract_splice import left_inline
from coder.edit.checks.flakes import flake_messages
from coder.edit.checks.fstrings import empty_fstrings, missing_fprefix
from coder.edit.checks.guards import only_guards_added, unasked_raises
from coder.edit.checks.hints import partial_params, partial_returns
from coder.edit.checks.known_types import missing_attributes
from coder.edit.checks.lost_members import lost_but_used
from coder.edit.checks.placement import misplaced, placement_hint
from coder.edit.checks.reach import outside_targets, reach_hint
from coder.edit.checks.reply import EditRefused, syntax_error
from coder.edit.checks.returns import returns_nothing
from coder.edit.checks.sameness import same_behaviour
from coder.edit.checks.signature import (
    asked_parameter_problem,
    lost_parameters,
    signature_hint,
    unasked_parameters,
)
from coder.edit.checks.star_names import undefined_despite_stars
from coder.edit.checks.uses import uncalled_said, unused_asked
from coder.edit.source.trees import dumped

if TYPE_CHECKING:
    from coder.edit.intent.spec import ChangeSpec

# not UndefinedExport: a name left in ``__all__`` after its deletion breaks only ``import *``, and
# "delete the function split" is done without touching ``__all__``
_UNDEFINED = (messages.UndefinedName, messages.UndefinedLocal)
PYTHON = (".py", ".pyi")
# CPython 3.11's ast.parse is not thread-safe (SystemError "AST constructor recursion depth mismatch"
# when two threads build trees at once): a plan's regions are judged on threads, so every judging step
# that parses holds this lock. Re-entrant: a judged proposal parses again inside check_result.
PARSE_LOCK = threading.RLock()


def undefined_names(text: str, filename: str = "<edit>") -> list[tuple[str, int]] | None:
    """``(name, line)`` for each use of a name nothing defines, per pyflakes; None when ``text`` does not parse.

    ``filename`` names the file in pyflakes' messages only; what is returned does not depend on it.
    """
    found = _undefined(text)
    return None if found is None else [(name, row) for name, row, _ in found]


@lru_cache(maxsize=16)
def _undefined(text: str) -> tuple[tuple[str, int, bool], ...] | None:
    """``(name, line, local)``: pyflakes' undefined names, ``local`` where the def assigns the name after reading it.

    A name a standard-library star import does not give counts too (:mod:`coder.edit.checks.star_names`).
    """
    found = flake_messages(text)  # one pyflakes pass per text, whoever asks
    if found is None:
        return None
    return tuple((str(m.message_args[0]), int(m.lineno), isinstance(m, messages.UndefinedLocal))
                 for m in found if isinstance(m, _UNDEFINED) or (isinstance(m, messages.ImportStarUsage) and (
                     undefined_despite_stars(str(m.message_args[0]), tuple(
                         x.strip() for x in str(m.message_args[1]).split(","))))))


def _undefined_said(new: str, gained: list[tuple[str, int]]) -> str:
    """The refusal of ``gained`` undefined uses in ``new``. A name the module defines, read in a def that assigns it
    later, is said as Python fails on it: held-out quopri-param w1 on the H200 (runs 10, 11) wrote ``HEX = HEX.lower()``
    inside ``quote``, and "uses names nothing defines: HEX" named a constant the module does define."""
    local = {(name, row) for name, row, is_local in (_undefined(new) or ()) if is_local}
    first = next((hit for hit in gained if hit in local), None)
    if first is not None:
        name, row = first
        return (f"the edited file reads {name} (line {row}) in a function that assigns {name} later: the assignment "
                f"makes {name} local there, so the read raises UnboundLocalError; give the new value another name")
    shown = ", ".join(f"{n} (line {row})" for n, row in gained[:4]) + (" ..." if len(gained) > 4 else "")
    return f"the edited file uses names nothing defines: {shown}"


def gained_undefined(old: str, new: str, filename: str = "<edit>") -> list[tuple[str, int]]:
    """The undefined-name uses of ``new`` beyond those ``old`` had (by name); empty when either does not parse."""
    before, after = undefined_names(old, filename), undefined_names(new, filename)
    if before is None or after is None:
        return []
    extra = Counter(n for n, _ in after) - Counter(n for n, _ in before)
    out = []
    for name, k in extra.items():  # a name used more often than before: its last uses are the new ones
        out += [(name, row) for row in [r for n, r in after if n == name][-k:]]
    return sorted(out, key=lambda hit: hit[1])


def check_result(path: Path | str, new: str, *, old: str | None = None,
                 spec: ChangeSpec | None = None) -> EditRefused | None:
    """Why the proposal ``new`` for ``path`` must not be applied (None: it may).

    ``old`` is the file's current text (read from ``path`` when not given). A Python file
    that parsed must still parse and must gain no undefined name; a new or changed method must
    not read an attribute its class never sets, no call may stop fitting its callee, and an
    extraction into a new function (``spec``) must call it (:mod:`coder.edit.checks.code_rules`);
    no def may gain a parameter the spec does not ask for, and a change it places must be there
    (:func:`spec_problem`). A change of code must change behaviour (:mod:`~coder.edit.checks.sameness`),
    stay in the defs the spec holds it to (:mod:`~coder.edit.checks.reach`), read no attribute its
    value's type lacks (:mod:`~coder.edit.checks.known_types`), use no None default unhandled
    (:mod:`~coder.edit.checks.defaults`), keep each changed def's return value and parameters
    (:mod:`~coder.edit.checks.contract`) and annotate returns all or none
    (:mod:`~coder.edit.checks.hints`). Other files pass. Without a ``spec`` (one region of a plan,
    judged again whole after the splice) those rules wait.
    """
    if PurePath(path).suffix.lower() not in PYTHON:
        return None
    if old is None:
        old = Path(path).read_text(encoding="utf-8")
    name = PurePath(path).name
    if syntax_error(old) is not None:
        return None  # it did not parse before: nothing to compare against (validate says the same)
    if (error := syntax_error(new)) is not None:
        return EditRefused("syntax", f"the edited file no longer parses as Python ({error})")
    gained = gained_undefined(old, new, name)
    if not gained:
        return None if spec is None else _code_rules(old, new, spec, str(path))
    if spec is not None and (undone := extraction_undefined(new, spec, gained)) is not None:
        return EditRefused("extract_uncalled", undone)  # an extraction half done: asked once more, as uncalled
    return EditRefused("undefined", _undefined_said(new, gained))


def _code_rules(old: str, new: str, spec: ChangeSpec, rel: str) -> EditRefused | None:
    """The rules on a parsed result that gains no undefined name, in order: the first that refuses says why."""
    if (wrong := spec_problem(old, new, spec)) is not None:
        return wrong
    if spec.action in _CODE_ACTIONS and (unchanged := _behaviour_unchanged(old, new, spec)) is not None:
        return unchanged
    for code, rule in _RULES:
        if (why := rule(old, new, spec, rel)) is not None:
            return EditRefused(code, why)
    return None


# (refusal code, rule): each says why (old, new) breaks it under the spec, or None; the first that refuses says why
_RULES: tuple[tuple[str, Callable[[str, str, ChangeSpec, str], str | None]], ...] = (
    ("outside_targets", outside_targets),
    ("unset_attribute", lambda old, new, spec, rel: unset_self_reads(old, new) or method_attribute_reads(old, new)),
    ("missing_attribute", lambda old, new, spec, rel: missing_attributes(old, new) or lost_but_used(old, new)),
    ("extract_uncalled", lambda old, new, spec, rel: extracted_uncalled(old, new, spec) or left_inline(old, new, spec)
     or dropped_in_extraction(old, new, spec)),
    ("call_mismatch", lambda old, new, spec, rel: broken_calls(old, new)),
    ("returns_nothing", lambda old, new, spec, rel: returns_nothing(old, new, spec)),
    # after call_mismatch: the more exact
    ("parameter", lambda old, new, spec, rel: asked_parameter_problem(old, new, spec)),
    ("none_default", lambda old, new, spec, rel: unhandled_none_defaults(old, new) or none_dereferenced(old, new)),
    ("contract", lambda old, new, spec, rel: broken_contract(old, new, spec)),
    ("partial_hints", lambda old, new, spec, rel: partial_returns(old, new, spec) or partial_params(old, new, spec)),
    ("empty_fstring", lambda old, new, spec, rel: empty_fstrings(old, new)),
    ("missing_fstring", lambda old, new, spec, rel: missing_fprefix(old, new)),
    ("unused_asked", lambda old, new, spec, rel: unused_asked(old, new, spec) or uncalled_said(old, new, spec)),
    ("unasked_raise", lambda old, new, spec, rel: unasked_raises(old, new, spec)),
)


def _behaviour_unchanged(old: str, new: str, spec: ChangeSpec) -> EditRefused | None:
    """Why a change of code leaves what the code computes as it was: the same program, or only a new raise."""
    if (same := same_behaviour(old, new)) is not None:
        # seen on the H200: a fix of _ishidden that reworded glob's docstring, ord(b'A') rewritten as ord('A')
        return EditRefused("no_code_change", f"the instruction asks to change code, but {same}")
    if (guarded := only_guards_added(old, new, spec)) is not None:
        return EditRefused("guard_only", f"the instruction reports no error to raise, but {guarded}")
    return None


def spec_problem(old: str, new: str, spec: ChangeSpec) -> EditRefused | None:
    """Why ``new`` does not do what ``spec`` reads: no code changed for a change of code, a parameter nobody
    asked for, or a change out of place."""
    if spec.action in _CODE_ACTIONS and old != new and _same_code(old, new):
        # seen on the CPU: a bug fix sent to a long file's windows came back with one blank line gone, and
        # that diff was applied as the fix; a fix that changes no statement fixes nothing
        return EditRefused("no_code_change", "the instruction asks to change code, but the reply changes only "
                                             "blank lines, comments or layout")
    if (unasked := unasked_parameters(old, new, spec)) is not None:
        return EditRefused("signature", unasked)
    if (lost := lost_parameters(old, new, spec)) is not None:  # the callers' side: told as a broken contract
        return EditRefused("contract", lost)
    if (where := misplaced(old, new, spec)) is not None:
        return EditRefused("placement", where)
    return None


_CODE_ACTIONS = frozenset({"fix", "change"})  # actions that are done only when a statement changes


def _same_code(old: str, new: str) -> bool:
    """True when both texts parse to the same syntax tree (they differ in layout or comments only)."""
    try:
        return dumped(old) == dumped(new)
    except (SyntaxError, ValueError, RecursionError):
        return False


# what the one retry is told to do, per refusal code of the result check and per region-edit outcome below (a
# code not here is not retried: a reply that does not parse or drops names is asked again by no rule, the
# model's next try is no better)
_HINTS = {
    "no_code_change": "Change the code that the instruction is about.",
    "unasked_raise": "Raise no error the instruction does not ask for: every call that worked before, and every "
                     "value of the new parameter the instruction describes, must give a result.",
    "guard_only": "Change what the code does so that the result is the one the instruction describes; raising an "
                  "error does not fix it.",
    "extract_uncalled": "Put the extracted lines into the new function and call it where they were.",
    "unset_attribute": "Read only attributes the class sets.",
    "call_mismatch": "Keep every call matching the definition it calls.",
    "returns_nothing": "Return the value the instruction describes.",
    "parameter": "Add the parameter to the definition and use it in the body where the instruction says.",
    "none_default": "Where a parameter defaults to None, handle None in the body before using it "
                    "(for example: if x is None: x = []).",
    "outside_targets": "",
    "missing_attribute": "Use only attributes that value has.",
    "contract": "Keep returning what the function returned and keep using every parameter it takes.",
    "partial_hints": "Annotate every parameter and the return of every function the instruction covers (-> None "
                     "where it returns nothing).",
    "empty_fstring": "Leave every string you were not asked to change as it was; an f-string needs a {placeholder}.",
    "missing_fstring": "Write an f before a string whose {name} is to be replaced by the value of name.",
    "unused_asked": "Use what the instruction names for the change; do not write it another way.",
    "signature": "",
    "placement": "",
    # the reply's shape: on the 2-core CPU the 1.5B answered a class region with an import, an
    # assignment, a shortened neighbour class and the class asked for; asked again, it is told to leave them out
    "not_single_region": "Reply with only the one definition the region holds, nothing before or after it.",
    "context_repeated": "Reply with the region only, without the lines shown before and after it.",
    # not the result check's but a region edit's outcome (coder.edit.run.retry): with greedy decoding the same
    # prompt gives the same reply, so the retry says the reply came back unchanged and which change is asked
    "unchanged": "",
    "unexplained": "",  # the scope check flagged it: the note is KEEP_REST's, a plan step's scope retry says the same
    # the user's test or lint command failed on the proposal (checks.user_commands): the reason names the tests
    "check_failed": "Change the code so that these tests pass, and still make the change the instruction asks for.",
}
RETRIED = frozenset(_HINTS)
KEEP_REST = "Change nothing the instruction does not ask for."
_KIND_WORDS = {"annotations": "type hints", "comments": "comments", "docstrings": "docstrings"}


def retry_note(code: str, reason: str, spec: ChangeSpec | None = None) -> str:
    """What a retried request adds to the instruction: what the first reply got wrong and what to do instead.

    ``unexplained`` (the scope check flagged ``reason``) is said as a plan step's scope retry says it.
    """
    if code == "unexplained":
        return f"{KEEP_REST} (A first reply was refused: {reason}.)"
    hint = _HINTS.get(code, "")
    if code == "unchanged":
        hint = unchanged_hint(spec)
    elif spec is not None and code == "signature":
        hint = signature_hint(spec)
    elif spec is not None and code == "placement":
        hint = placement_hint(spec)
    elif spec is not None and code == "outside_targets":
        hint = reach_hint(spec)
    elif code == "missing_attribute" and "(an item of " in reason:  # the note the bytes cases were measured with
        hint = f"{hint[:-1]} (an item of a bytes object is an int, not a str)."
    elif code == "extract_uncalled" and spec is not None and spec.targets:
        hint = (f"Put the extracted lines into the new function and call it from "
                f"{', '.join(s.qualname for s in spec.targets)} in their place.")
    return f"(A first reply was refused: {reason}.) {hint}".strip()


def unchanged_hint(spec: ChangeSpec | None) -> str:
    """What a reply that came back unchanged is told: the kind of change the reading asks for, to make."""
    only = spec.only if spec is not None else None
    if only:  # "only comments": the kinds, in the words the scope check uses for them
        return f"The instruction asks for {' and '.join(_KIND_WORDS[k] for k in sorted(only))}: add them."
    return "The instruction asks for a change of the code: make it."
