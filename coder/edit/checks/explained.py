"""Which changes of a proposed edit the instruction explains, and which it does not.

Whole-file rewrites by small models drift: asked only to rename, a model also deletes a block, turns
``end`` into ``end + 1`` or renames another method. Those replies pass every validity check (not
truncated, not elided, they parse), so this module compares the proposal with the original change by
change and names what the instruction does not explain. Nothing is dropped: ``coder edit --yes``
refuses such a proposal, the diff review marks the hunks, ``--json`` lists them.

A change is explained when:

- it lies inside the region the request edits (region mode keeps everything else
  byte-identical by construction; that is verified here, not assumed);
- the instruction is a rename (``rename X to Y``, ``X -> Y``) and every changed line
  differs from its original only by X→Y identifier substitutions (compared token by token);
- otherwise, it lies inside a symbol the instruction names, or within :data:`NEAR` lines
  of a line that mentions one (a call site of a function that gains a parameter), or at
  the top of the file when the instruction asks for a module docstring.

A value change ("from `[]` to `None`") explains nothing but that substitution, unless the instruction
also asks to handle the value: then lines added inside the named functions that use the new value are
explained too. A request to delete a def this file defines changes code, so a "comment" in it ("and
the comment line above them") does not hold it to comments.

Everything else is unexplained. On top of that, :mod:`coder.edit.checks.shapes` holds each kind of
request to its shape (a move moves one block, a new parameter stays and is used, nothing goes unasked).
"""

from __future__ import annotations

import dataclasses
import difflib
import io
import re
import tokenize
from dataclasses import dataclass
from pathlib import PurePath
from typing import TYPE_CHECKING

from coder.edit.checks import shapes as scope_shapes
from coder.edit.checks.code_rules import extraction
from coder.edit.checks.kinds import invariant_for
from coder.edit.checks.named import IMPORT_LINE, by_symbols, defs_of
from coder.edit.checks.subs import confinement, mentions_value, renamed_only
from coder.edit.source.regions import Region

if TYPE_CHECKING:
    from coder.edit.intent.spec import ChangeSpec


_WORD = re.compile(r"[A-Za-z_]\w*")


@dataclass(frozen=True)
class Change:
    """One changed run of lines: ``old`` lines ``old_start..old_end`` became ``new_start..new_end``.

    Line numbers are 1-based and inclusive; an insertion has ``old_end == old_start - 1``
    (it goes before old line ``old_start``), a deletion ``new_end == new_start - 1``.
    """

    old_start: int
    old_end: int
    new_start: int
    new_end: int
    explained: bool
    why: str
    note: str = ""  # set for a line that is not a change: "not renamed"

    @property
    def what(self) -> str:
        """``changed`` / ``added`` / ``deleted`` (or the note)."""
        if self.note:
            return self.note
        if self.old_end < self.old_start:
            return "added"
        return "deleted" if self.new_end < self.new_start else "changed"

    def where(self, rel: str) -> str:
        """``shlex.py:120-125 (deleted)``: lines of the original file (an insertion: the line it precedes)."""
        a, b = self.old_start, self.old_end
        span = f"{a}" if b <= a else f"{a}-{b}"
        return f"{rel}:{span} ({self.what})"

    def to_json(self) -> dict[str, object]:
        """The ``--json`` form."""
        return {"old_lines": [self.old_start, self.old_end], "new_lines": [self.new_start, self.new_end],
                "what": self.what, "explained": self.explained, "why": self.why}


@dataclass(frozen=True)
class Scope:
    """Every change of one proposal, each explained by the instruction or not."""

    rel: str
    kind: str  # "region" | "rename" | "symbols" | "unscoped"
    basis: str  # what the instruction was read as: "rename tokenize -> lex", "region function f", ...
    changes: tuple[Change, ...]
    missing: tuple[str, ...] = ()  # new names the instruction asks for (`flags=0`) that the result never uses
    dropped: tuple[Change, ...] = ()  # unexplained changes of the reply given back before this scope (checks/trim.py)

    @property
    def unexplained(self) -> list[Change]:
        """The changes the instruction does not explain."""
        return [c for c in self.changes if not c.explained]

    @property
    def ok(self) -> bool:
        """True when every change is explained and nothing the instruction asks for is missing."""
        return not self.unexplained and not self.missing

    def summary(self, limit: int = 6) -> str:
        """``shlex.py:120-125 (deleted), shlex.py:300 (changed)`` for the unexplained changes."""
        shown = [c.where(self.rel) for c in self.unexplained[:limit]]
        more = len(self.unexplained) - limit
        return ", ".join(shown) + (f" and {more} more" if more > 0 else "")

    def refusal(self) -> str:
        """The one line ``--yes`` prints when it refuses (empty when every change is explained)."""
        parts = []
        if n := len(self.unexplained):
            parts.append(f"{n} change{'s' if n > 1 else ''} the instruction does not explain ({self.basis}): "
                         f"{self.summary()}")
        if self.missing:
            parts.append(f"the result never uses {', '.join(self.missing)}, which the instruction asks for")
        return "; ".join(parts)

    def dropped_note(self) -> str:
        """What was given back of the reply before it was judged (empty: nothing)."""
        if not (n := len(self.dropped)):
            return ""
        where = ", ".join(c.where(self.rel) for c in self.dropped[:6])
        return (f"left out {n} change{'s' if n > 1 else ''} of the reply that the instruction does not explain "
                f"({self.basis}): {where}; the original lines are kept there")

    def hunk_flags(self, diff: str) -> list[bool]:
        """Per ``@@`` hunk of the unified ``diff`` of this proposal: True when it holds an unexplained change."""
        flags = []
        for a, n in _hunk_spans(diff):
            lo, hi = a, a + max(n, 1) - 1
            flags.append(any(_overlaps(c, lo, hi) for c in self.unexplained))
        return flags

    def mark_diff(self, diff: str) -> str:
        """``diff`` with a marker line above every hunk holding an unexplained change (for people, not patch)."""
        flags = iter(self.hunk_flags(diff))
        out = []
        for line in diff.splitlines(keepends=True):
            if line.startswith("@@") and next(flags, False):
                out.append(f"!! not explained by the instruction ({self.basis}):\n")
            out.append(line)
        return "".join(out)

    def to_json(self) -> dict[str, object]:
        """The ``--json`` form: the basis and every unexplained change."""
        return {"kind": self.kind, "basis": self.basis, "changes": len(self.changes), "missing": list(self.missing),
                "dropped": [c.where(self.rel) for c in self.dropped],
                "unexplained": [{**c.to_json(), "where": c.where(self.rel)} for c in self.unexplained]}


_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@")


def _hunk_spans(diff: str) -> list[tuple[int, int]]:
    spans = []
    for line in diff.splitlines():
        if m := _HUNK.match(line):
            spans.append((int(m.group(1)), int(m.group(2)) if m.group(2) is not None else 1))
    return spans


def _overlaps(c: Change, lo: int, hi: int) -> bool:
    a, b = (c.old_start, c.old_end) if c.old_end >= c.old_start else (c.old_start - 1, c.old_start)
    return a <= hi and b >= lo


def _line_changes(old_lines: list[str], new_lines: list[str]) -> list[tuple[int, int, int, int]]:
    matcher = difflib.SequenceMatcher(None, old_lines, new_lines, autojunk=False)
    return [(i1, i2, j1, j2) for tag, i1, i2, j1, j2 in matcher.get_opcodes() if tag != "equal"]


def check_scope(old: str, new: str, spec: ChangeSpec, *, rel: str, region: Region | None = None,
                dropped: tuple[Change, ...] = ()) -> Scope:
    """Classify every change from ``old`` to ``new`` as explained by the change ``spec`` or not.

    ``region`` is the region a region-mode request replaced (None for a whole-file rewrite).
    New names the instruction asks for in backticks (`flags=0`), or as a new parameter, must
    appear in ``new``. ``dropped``: the reply's changes already given back (kept for the record).
    """
    scope = _classify(old, new, spec, rel=rel, region=region)
    missing = _missing_names(old, new, spec)
    return dataclasses.replace(scope, missing=missing, dropped=dropped) if missing or dropped else scope


def _missing_names(old: str, new: str, spec: ChangeSpec) -> tuple[str, ...]:
    """Names the spec asks for (in backticks, or as a new parameter) that ``old`` lacks and ``new`` does not use."""
    names = {p.split(":")[0].split("=")[0].strip() for p in spec.params}
    # a parameter's annotation and default ("strict: bool = False") need not appear: bool may be implied
    spelled = {w for p in spec.params for w in _WORD.findall(p)} - names
    asked = (set(spec.facts.ticked) - spelled) | names
    had, has = set(_WORD.findall(old)), set(_WORD.findall(new))
    return tuple(sorted(w for w in asked - had if w not in has))


def _classify(old: str, new: str, spec: ChangeSpec, *, rel: str, region: Region | None) -> Scope:
    old_lines, new_lines = old.splitlines(), new.splitlines()
    spans = _line_changes(old_lines, new_lines)
    pairs = list(spec.renames)
    if region is not None:
        hints = spec.action == "type_hints"  # its annotations may need an import, outside the region
        # an extraction's new function lifted out of the class it was written in (checks.hoist) lands above it
        lifted = extraction(spec)[0]
        kind, basis, verdicts = "region", f"region {region.label}", _in_region(old_lines, new_lines, spans, region,
                                                                             hints=hints, lifted=lifted)
    elif pairs:
        basis = "rename " + ", ".join(f"{a} -> {b}" for a, b in pairs)
        inside = confinement(defs_of(rel, old), spec)  # "in the function X only": the rename stays in X
        changes = [_change(s, _is_rename(s, old_lines, new_lines, pairs) and inside(s), "only the rename",
                           old_lines, new_lines) for s in spans]
        left = [c for c in _not_renamed(rel, new, pairs, spans) if inside((c.old_start - 1, c.old_end, 0, 0))]
        return Scope(rel, "rename", basis, tuple(changes + left))
    else:
        found = by_symbols(old, old_lines, new_lines, spans, spec, rel)
        if found is None and spec.only is not None:  # "type hints everywhere": the kinds hold everywhere
            found = (f"the whole file, {' and '.join(sorted(spec.only))}", [(True, "the whole file")] * len(spans))
        if found is None:
            return Scope(rel, "unscoped", "the instruction names no symbol, line range or rename",
                         tuple(_change(s, False, "", old_lines, new_lines) for s in spans))
        kind, basis, verdicts = "symbols", found[0], found[1]
    subs = pairs + list(spec.values)
    invariant = None if subs or _deletes_defs(old, spec, rel) else invariant_for(spec, rel)
    if subs:  # "from 0.11 to 0.114", or a rename inside a region: nothing but those substitutions
        what = ", ".join(f"{a} -> {b}" for a, b in subs)
        basis += f", only {what}"
        off = (False, f"changes code (only {what} asked)")
        # "... from [] to None, and handle None": inside the named functions, code that checks for None
        handled = [b for a, b in subs if (a, b) not in pairs] if spec.facts.handles else []
        verdicts = [v if _is_rename(s, old_lines, new_lines, subs) or _handles(s, v, new_lines, handled) else off
                    for s, v in zip(spans, verdicts, strict=True)]
    elif invariant is not None:
        basis += f", {invariant.label}"
        keeps = invariant.keeps(old_lines, new_lines, spans)
        verdicts = [(ok and kept, why if kept else f"changes code ({invariant.label} asked)")
                    for (ok, why), kept in zip(verdicts, keeps, strict=True)]
    shaped = scope_shapes.find(old, new, spec, spans, python=PurePath(rel).suffix.lower() in (".py", ".pyi"),
                               renamed={a for a, _ in pairs}, rel=rel)
    verdicts = [(False, bad) if bad else v for v, bad in zip(verdicts, shaped.spans, strict=True)]
    notes = [Change(_old_line(row, spans), _old_line(row, spans), row, row, False, why, note)
             for row, why, note in shaped.notes]
    return Scope(rel, kind, basis, tuple([_change(s, ok, why, old_lines, new_lines)
                                          for s, (ok, why) in zip(spans, verdicts, strict=True)] + notes))


Span = tuple[int, int, int, int]


def _deletes_defs(old: str, spec: ChangeSpec, rel: str) -> bool:
    """The spec asks to delete code this file defines ("delete `f` and the comment above it").

    Such a request changes code, so the word "comment" in it does not hold it to comments only.
    """
    asked = scope_shapes.asked_gone(spec)
    return any(scope_shapes.asked_for(q, asked) for q, _ in defs_of(rel, old))


def _handles(span: Span, verdict: tuple[bool, str], new: list[str], values: list[str]) -> bool:
    """Lines added inside a named symbol (or the region) that use a new ``value`` (``if x is None:``).

    Added only, so no other line of the body changes with them; and inside, not merely near a
    mention: the handling belongs in the bodies of the functions named.
    """
    i1, i2, j1, j2 = span
    ok, why = verdict
    added = "\n".join(new[j1:j2])
    return ok and why.startswith("inside ") and i1 == i2 and j1 < j2 and any(mentions_value(added, v) for v in values)


def _in_region(old_lines: list[str], new_lines: list[str], spans: list[Span], region: Region, *,
               hints: bool = False, lifted: str | None = None) -> list[tuple[bool, str]]:
    """Region mode: the rest of the file must be byte-identical (verified, not assumed), but for the import
    lines a hints edit adds for its annotations (:mod:`~coder.edit.checks.hint_imports`) and the module-level
    ``def lifted(...)`` an extraction's new function becomes (:mod:`~coder.edit.checks.hoist`)."""
    head, tail = region.start - 1, len(old_lines) - region.end
    kept = (len(new_lines) >= head + max(tail, 0) and old_lines[:head] == new_lines[:head]
            and (tail <= 0 or old_lines[-tail:] == new_lines[-tail:]))
    why = f"inside {region.label}"
    if kept:  # every change is inside the region
        return [(True, why)] * len(spans)

    def inside(i1: int, i2: int, j1: int, j2: int) -> bool:
        if region.start <= i1 + 1 and i2 <= region.end:
            return True
        # deleting the region may take a blank line beside it too (which blank line, the diff picks)
        outside = [old_lines[i] for i in range(i1, i2) if not region.start <= i + 1 <= region.end]
        return j1 == j2 and len(outside) < i2 - i1 and not any(x.strip() for x in outside)

    def imports(i1: int, i2: int, j1: int, j2: int) -> bool:
        return hints and i1 == i2 and all(IMPORT_LINE.match(x) for x in new_lines[j1:j2] if x.strip())

    def new_def(i1: int, i2: int, j1: int, j2: int) -> bool:
        code = [x for x in new_lines[j1:j2] if x.strip()]
        return (lifted is not None and i1 == i2 and bool(code) and code[0].startswith(f"def {lifted}(")
                and all(x[:1] in (" ", "\t") for x in code[1:]))

    return [(True, why) if inside(*s) else (True, "an import for type hints") if imports(*s)
            else (True, f"the new function {lifted}") if new_def(*s) else (False, why) for s in spans]


def _not_renamed(rel: str, new: str, pairs: list[tuple[str, str]], spans: list[Span]) -> list[Change]:
    """Lines of ``new`` that still use an old name as code: the rename is incomplete (the code breaks)."""
    olds = {a for a, _ in pairs}
    rows: set[int] = set()
    if PurePath(rel).suffix.lower() in (".py", ".pyi"):
        try:
            for tok in tokenize.generate_tokens(io.StringIO(new).readline):
                if tok.type == tokenize.NAME and tok.string in olds:
                    rows.add(tok.start[0])
        except (tokenize.TokenError, SyntaxError, ValueError):
            return []
    else:
        rows = {n for n, line in enumerate(new.splitlines(), 1) if olds.intersection(_WORD.findall(line))}
    out = []
    for row in sorted(rows):
        old_row = _old_line(row, spans)
        name = next(a for a in olds if a in new.splitlines()[row - 1])
        out.append(Change(old_row, old_row, row, row, False, f"still uses {name}: the rename is incomplete",
                          "not renamed"))
    return out


def _old_line(new_row: int, spans: list[Span]) -> int:
    """The line of the original that line ``new_row`` (1-based) of the new text comes from (or replaces)."""
    shift = 0
    for i1, i2, j1, j2 in spans:
        if j1 < new_row <= j2:
            return min(i1 + (new_row - j1), max(i2, i1 + 1))
        if j2 < new_row:
            shift = i2 - j2
    return new_row + shift


def _is_rename(span: Span, old: list[str], new: list[str],
               pairs: list[tuple[str, str]]) -> bool:
    i1, i2, j1, j2 = span
    if i2 - i1 != j2 - j1:
        return False  # a rename never adds or removes lines
    return all(renamed_only(old[i1 + k], new[j1 + k], pairs) for k in range(i2 - i1))


def _change(span: Span, explained: bool, why: str, old: list[str] | None = None,
            new: list[str] | None = None) -> Change:
    i1, i2, j1, j2 = span
    if not explained and old is not None and new is not None and not any(
            x.strip() for x in old[i1:i2] + new[j1:j2]):
        explained, why = True, "blank lines only"  # harmless, and models reflow them on rewrites
    if not explained and not why.startswith(("changes code", "still uses", *scope_shapes.WHYS)):
        why = "not explained by the instruction"
    return Change(i1 + 1, i2, j1 + 1, j2, explained, why)
