"""A comments-, docstrings- or hints-only reply with a change of another kind besides: that change taken out.

Seen on the H200 (Qwen2.5-Coder-1.5B): asked for type hints, the model also wrote a docstring, or a
``__repr__``; asked for a comment, it wrote a docstring as well. The scope guard flags such a change, and
the retry that follows tends to do worse (the retries of those pairs dropped the hints and kept the
docstring). When every unexplained change is a run of lines that can be given back on its own, the
original lines are put back, the rest is checked again (every change explained, the result check
passes), and that is the result, with what was taken out said (:attr:`Scope.dropped
<coder.edit.checks.explained.Scope>`). When nothing explained is left, or the rest fails a check, the
reply stays as it came and is flagged as before.
"""

from __future__ import annotations

import ast
import io
import tokenize
from collections.abc import Callable
from typing import TYPE_CHECKING

from coder.edit.checks.as_comment import docstrings_as_comments
from coder.edit.checks.explained import Change, Scope, check_scope
from coder.edit.checks.extract_splice import extraction_spliced
from coder.edit.checks.graft import grafted
from coder.edit.checks.hint_imports import hints_imported
from coder.edit.checks.hints import complete_init_returns, type_notes
from coder.edit.checks.hoist import hoisted
from coder.edit.checks.kinds import (
    Invariant,
    carried,
    comment_words,
    docstrings_of,
    invariant_for,
    new_prose,
    same_code,
)
from coder.edit.checks.result import PYTHON, check_result
from coder.edit.checks.signature import defs
from coder.edit.source.trees import parsed

if TYPE_CHECKING:
    from coder.edit.intent.spec import ChangeSpec
    from coder.edit.proposal import EditRequest


GIVE_BACK_AT_MOST = 4  # unexplained changes looked at; a reply with more is flagged as it came


def kinds_kept(request: EditRequest, new: str, spec: ChangeSpec) -> tuple[str, tuple[Change, ...]]:
    """``new`` made what a kinds-only request asks: ``__init__``'s ``-> None`` filled in, the ``typing`` import its
    hints need (:mod:`~coder.edit.checks.hint_imports`), a new docstring where
    comments are asked made a comment (:mod:`~coder.edit.checks.as_comment`), an extraction's new function
    called where a caller still holds its body (:mod:`~coder.edit.checks.extract_splice`), and the changes of
    another kind given back when the rest stands alone; with the changes given back (empty: none)."""
    snap = request.snapshot
    new = complete_init_returns(snap.text, new, spec)  # a hints edit: __init__ returns None
    if not request.in_plan:  # a hints edit's ``-> Any``: the import it needs, outside any region
        new = hints_imported(snap.text, new, spec)
    new = docstrings_as_comments(snap.text, new, spec)  # a comment asked for, written as a docstring
    if not request.in_plan:  # an extraction's new function written in the class, or not called: put right
        new = extraction_spliced(snap.text, hoisted(snap.text, new, spec), spec)
    invariant = invariant_for(spec, snap.rel)
    if invariant is None or request.in_plan or not snap.rel.endswith(PYTHON):
        return new, ()  # a plan's regions are judged as one file, after the splice
    region = request.region if request.mode == "region" else None

    def scope_of(text: str) -> Scope:
        return check_scope(snap.text, text, spec, rel=snap.rel, region=region)

    def unexplained(text: str) -> list[Change] | None:
        scope = scope_of(text)
        return None if scope.missing or any(c.note for c in scope.unexplained) else scope.unexplained

    def stands(text: str) -> bool:
        return text != snap.text and check_result(snap.rel, text, old=snap.text, spec=spec) is None

    reply = scope_of(new)
    if not reply.unexplained and not reply.missing:
        return new, ()
    if not reply.missing and not any(c.note for c in reply.unexplained):
        given = _given_back(snap.text, new, reply.unexplained, invariant, unexplained)
        if given is not None and stands(given[0]):
            return given
    if _takes_comments(snap.text, reply):
        return new, ()  # "turn the comment block into a docstring": a graft would keep the block beside it
    # what was asked shares lines with other changes, or those rewrite code in place: put it on the original
    graft = grafted(snap.text, new, invariant, (region.start, region.end) if region else None,
                    every=region is not None and region.kind == "class")
    if graft is not None and unexplained(graft) == [] and stands(graft):
        return graft, tuple(c for c in reply.unexplained if not c.note)
    return new, ()


def _takes_comments(old: str, reply: Scope) -> bool:
    """An explained change of the reply changes or deletes comment lines (a graft only adds, so it cannot)."""
    lines = old.splitlines()
    return any(c.explained and any(lines[i].lstrip().startswith("#") for i in range(c.old_start - 1, c.old_end))
               for c in reply.changes)


def _given_back(old: str, new: str, off: list[Change], invariant: Invariant,
                unexplained: Callable[[str], list[Change] | None]) -> tuple[str, tuple[Change, ...]] | None:
    """``new`` with each unexplained change in ``off`` given back, when each can be on its own (None: not)."""
    asked = _asked(new, invariant)
    if len(off) > GIVE_BACK_AT_MOST or asked is None:
        return None
    old_lines, text, given = old.splitlines(keepends=True), new, []
    while off:
        for trial, change in _give_backs(off[-1], old_lines, text.splitlines(keepends=True)):
            left = unexplained(trial)
            if left is not None and len(left) < len(off) and _asked(trial, invariant) == asked:
                text, off = trial, left
                given.append(change)
                break
        else:
            return None
    return text, tuple(sorted(given, key=lambda c: c.old_start))


def _give_backs(c: Change, old: list[str], lines: list[str]) -> list[tuple[str, Change]]:
    """Ways to take change ``c`` out of ``lines``, least first: a run of the lines it added inside changed
    ones (a docstring written under an annotated def line), then the whole change (the original lines back)
    when it adds lines only, changes no code in place, or deletes a comment it carries nowhere. Changed code
    and deleted code are never given back: a reply that rewrote code it was not asked to touch (an inverted
    condition, a member dropped) is flagged as it came."""
    out = []
    n_old, n_new = c.old_end - c.old_start + 1, c.new_end - c.new_start + 1
    extra = n_new - n_old
    if n_old > 0 and extra > 0:
        for k in range(n_new - extra + 1):
            at = c.new_start - 1 + k
            out.append(("".join(lines[:at] + lines[at + extra:]),
                        Change(c.old_start + k, c.old_start + k - 1, at + 1, at + extra, False, c.why)))
    whole = "".join(lines[:c.new_start - 1] + old[c.old_start - 1:c.old_end] + lines[c.new_end:])
    if c.what == "added" or (c.what == "changed" and same_code(whole, "".join(lines))) or _lost_comment(c, old, lines):
        out.append((whole, c))
    return out


def _lost_comment(c: Change, old: list[str], lines: list[str]) -> bool:
    """``c`` deletes comment lines whose words the reply carries nowhere: a comment lost, given back.

    A deletion of code is never given back, nor a comment whose words reappear in the reply's new docstrings
    or comments: "turn the comment block into a docstring" deletes the block on purpose, and putting it back
    beside the docstring would apply what the user asked to remove. Seen on the H200 (tabnanny-docstring w0):
    that block became the class docstring, and an unrelated comment further down the class was dropped too.
    """
    words = comment_words(old[c.old_start - 1:c.old_end]) if c.what == "deleted" else None
    return words is not None and not carried(words, new_prose("".join(old), "".join(lines)))


def _asked(text: str, invariant: Invariant) -> list[str] | None:
    """What ``text`` holds of the kinds asked: each annotated def's annotations, each docstring, each comment.

    A change given back must take none of it: "add type hints to every method of C (msg and opt are str)"
    once came back with ``__init__``'s hints in the same lines as a class attribute's value dropped; giving
    those lines back would leave ``__init__`` bare and pass every check.
    """
    try:
        tree = parsed(text)
        tokens = tokenize.generate_tokens(io.StringIO(text).readline)
        comments = [t.string for t in tokens if t.type == tokenize.COMMENT]
    except (SyntaxError, ValueError, RecursionError, tokenize.TokenError):
        return None
    out: list[str] = []
    if invariant.hints:
        out += [f"{q} {type_notes(fn)}" for q, (fn, _) in defs(tree).items()
                if fn.returns is not None or any(isinstance(n, ast.arg) and n.annotation for n in ast.walk(fn.args))]
        out += [ast.dump(n) for n in ast.walk(tree) if isinstance(n, ast.AnnAssign)]
    if invariant.docstrings:
        out += docstrings_of(tree)
    if not (invariant.hints or invariant.docstrings):
        out += comments
    return out
