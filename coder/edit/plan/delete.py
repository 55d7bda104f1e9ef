"""Deleting named defs mechanically: one or several, with the ``__main__`` block or the comment above when asked.

"Delete the functions glob0 and glob1 and the comment line above them": every target is a def or
class of the file at one level (all top-level, or all members of one class), so each is cut with
:func:`coder.edit.source.splice.cut` (its touching comments above and the blank lines after it
go with it, as for one def), adjacent cuts become one, and no model request is sent. The comment
block above the first def goes too only when the spec says so (:attr:`Facts.with_comment`): a
comment the user did not mention, separated from the def by a blank line, stays, as it always has
for a single def. What still names a deleted def elsewhere (a caller, ``__all__``) needs judgement:
those regions go to the model.
"""

from __future__ import annotations

import ast
import re
from dataclasses import replace
from typing import TYPE_CHECKING

from coder.edit.plan.locate import region_of, regions_using, symbol_rows
from coder.edit.plan.steps import Plan, Step
from coder.edit.source.splice import cut
from coder.edit.source.units import first_line

if TYPE_CHECKING:
    from coder.edit.intent.spec import ChangeSpec, Symbol
    from coder.edit.source.regions import Region

COMMENT_ABOVE = "the comment above"


def main_block(text: str) -> tuple[int, int] | None:
    """Lines of the top-level ``if __name__ == "__main__":`` block, if any."""
    for node in ast.parse(text).body:
        if isinstance(node, ast.If) and "__main__" in ast.unparse(node.test) and "__name__" in ast.unparse(node.test):
            return node.lineno, node.end_lineno or node.lineno
    return None


def deleted(spec: ChangeSpec, rel: str) -> list[Symbol]:
    """The defs the spec deletes, when deleting them is all it asks: all of ``rel``, at one level (empty: none)."""
    mine = [s for s in spec.targets if s.rel == rel]
    if spec.action != "delete" or not mine or len(mine) != len(spec.targets):
        return []
    # top-level defs, or members of one class: a cut's blank-line handling is the same for each
    return mine if len({s.qualname.rpartition(".")[0] for s in mine}) == 1 else []


Span = tuple[int, int, str]  # first line, last line, what it is


def emptied(text: str, spans: list[Span], blocks: set[tuple[int, int] | None]) -> list[Span]:
    """``spans``, where they cut every statement of an ``if`` without ``else`` (one of ``blocks``, the lines of
    the statements the defs sit in), that whole ``if`` instead: an ``if`` left with no body does not parse.

    "take out UnixStreamServer, UnixDatagramServer and their two Threading variants" (socketserver, run 22): the
    four are all that ``if hasattr(socket, 'AF_UNIX'):`` holds. A ``try`` or an ``if`` with an ``else`` keeps its
    statement: what should stand in their place needs judgement, and the cut that leaves them empty is refused.
    """
    out = list(spans)
    for node in ast.walk(ast.parse(text)) if blocks else ():
        if not (isinstance(node, ast.If) and not node.orelse and (node.lineno, node.end_lineno) in blocks):
            continue
        inside = [sp for sp in out if node.lineno <= sp[0] and sp[1] <= (node.end_lineno or node.lineno)]
        if all(any(a <= first_line(st) and (st.end_lineno or st.lineno) <= b for a, b, _ in inside)
               for st in node.body):
            out = [sp for sp in out if sp not in inside]
            out.append((node.lineno, node.end_lineno or node.lineno,
                        f"the `if` block of {', '.join(label for *_, label in inside)}"))
    return out


def _comment_above(lines: list[str], start: int) -> int | None:
    """The first line of the comment block right above line ``start`` (blank lines between allowed), else None.

    A cut already starting at a comment took the comment touching the def: that is the one above.
    """
    if lines[start - 1].lstrip().startswith("#"):
        return start
    i = start - 1  # 1-based line above
    while i >= 1 and not lines[i - 1].strip():
        i -= 1
    if i < 1 or not lines[i - 1].lstrip().startswith("#"):
        return None
    while i > 1 and lines[i - 2].lstrip().startswith("#"):
        i -= 1
    return i


def _cuts(text: str, spans: list[tuple[int, int, str]], *, comment: bool) -> list[tuple[int, int, str]] | None:
    """The merged cuts of ``spans`` (the first one's comment above too, with ``comment``); None: no comment there."""
    cuts: list[tuple[int, int, str]] = []
    for a, b, what in sorted(spans):
        _, rep = cut(text, a, b)
        if cuts and rep.start <= cuts[-1][1] + 1:  # adjacent blocks: one cut, or their bounds would overlap
            cuts[-1] = (cuts[-1][0], max(cuts[-1][1], rep.end), f"{cuts[-1][2]} and {what}")
        else:
            cuts.append((rep.start, rep.end, what))
    lines = text.splitlines()
    if comment:
        top = _comment_above(lines, cuts[0][0])
        if top is None:
            return None  # the comment asked for is not there: which one is meant needs judgement
        cuts[0] = (top, cuts[0][1], f"{COMMENT_ABOVE} and {cuts[0][2]}")
    if cuts[-1][1] == len(lines):  # the file's end: the blank lines before the cut go too
        a, b, what = cuts[-1]
        while a > 1 and not lines[a - 2].strip():
            a -= 1
        cuts[-1] = (a, b, what)
    return cuts


def _alias(lines: list[str], start: int, end: int, bare: set[str]) -> str | None:
    """The name a module-level line ``start``-``end`` binds to a deleted def (``prweek = c.prweek``), else None."""
    if start != end or start > len(lines):
        return None
    m = re.fullmatch(r"([A-Za-z_]\w*)\s*=\s*(?:[A-Za-z_][\w.]*\.)?([A-Za-z_]\w*)\s*(?:#.*)?", lines[start - 1])
    return m.group(1) if m is not None and m.group(2) in bare else None


def derive_delete(rel: str, text: str, spec: ChangeSpec, symbols: dict[str, Region]) -> Plan | None:
    """The plan that cuts the spec's defs (and the ``__main__`` block, the comment above) from ``rel``."""
    main = {"__main__", "__name__"} & (set(spec.facts.code_words) | set(spec.facts.ticked))
    block = main_block(text) if main and spec.action == "delete" else None
    found = [region_of(symbols, t.qualname) for t in deleted(spec, rel)]
    spans: list[tuple[int, int, str]] = []
    if found and all(f is not None for f in found):
        spans = emptied(text, [(start, end, label) for _, start, end, label in (f for f in found if f is not None)],
                        {symbols[f[0]].within for f in found if f is not None} - {None})
    elif block is None or spec.targets:  # "delete the if __name__ block": the block alone
        return None
    if block is not None:
        spans.append((*block, "the __main__ block"))
    cuts = _cuts(text, spans, comment=spec.facts.with_comment and bool(found))
    if cuts is None:
        return None
    steps = [Step(rel, a, b, what, "asked to delete it", "mechanical", text="") for a, b, what in cuts]
    bare = {q.rsplit(".", 1)[-1] for q, *_ in (f for f in found if f is not None)}
    cut_rows = {r for s in steps for r in range(s.start, s.end + 1)}
    # what still names it (``__all__``, a caller) needs judgement: those regions go to the model
    rows: set[int] | None = set()
    for qual in (q for q, *_ in (f for f in found if f is not None)):
        hit = symbol_rows(text, qual.rsplit(".", 1)[-1], member="." in qual)
        rows = None if hit is None or rows is None else rows | hit
    lines = text.splitlines()
    for use in regions_using(rel, text, bare, f"uses {', '.join(sorted(bare))}", rows) if bare else []:
        if cut_rows.intersection(range(use.start, use.end + 1)):
            continue
        if (alias := _alias(lines, use.start, use.end, bare)) is not None:
            # "prweek = c.prweek" at module level: it cannot outlive the def (its import raises AttributeError), and
            # asked to drop the use, the CPU's 1.5B left it (sixth fresh set, run 20: applied wrong)
            steps.append(Step(rel, use.start, use.end, f"the alias {alias}", "aliases it", "mechanical", text=""))
        else:
            steps.append(replace(use, note=f"{' and '.join(sorted(bare))} {'is' if len(bare) == 1 else 'are'} being "
                                           f"deleted from {rel}: remove {'it' if len(bare) == 1 else 'them'} from "
                                           "this region (or drop the use), and change nothing else."))
    steps.sort(key=lambda s: s.start)
    asks = sum(1 for s in steps if s.how == "model")
    how = f"{asks} region(s) that use it go to the model" if asks else "no model request"
    label = ", ".join(what for _, _, what in sorted(spans) if what != "the __main__ block") or "the __main__ block"
    if spec.facts.with_comment and found:
        label += f" and {COMMENT_ABOVE}"
    return Plan("delete", spec.instruction, tuple(steps), f"delete {label}: cut mechanically, {how}")
