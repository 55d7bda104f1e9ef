"""Plain words that together spell one symbol's name: "the RGB to HLS conversion" is ``rgb_to_hls`` (read by
:func:`coder.edit.intent.names.mentions` before single words)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from coder.edit.intent.spec import Symbol
from coder.edit.intent.symbols import SymbolTable

if TYPE_CHECKING:
    from coder.edit.intent.names import Tok


def phrases(toks: list[Tok], table: SymbolTable, *, everywhere: bool) -> dict[int, tuple[int, list[Symbol]]]:
    """Plain words that together spell one symbol's name: {first token: (token after the last, its symbols)}.

    "the RGB to HLS conversion" is ``rgb_to_hls``, "the priority queue" ``PriorityQueue``, "hop-by-hop
    detection" the predicate ``is_hop_by_hop``: two to four words in a row (spaces or hyphens between),
    joined as snake_case or CamelCase, matching one name only. Longest first.
    """
    names: dict[str, list[Symbol]] = {}
    for s in table.symbols if everywhere else table.in_file():
        key = s.name.lstrip("_").lower()
        if "_" in key or any(c.isupper() for c in s.name.lstrip("_")[1:]):  # a name of several words
            names.setdefault(key, []).append(s)
    out: dict[int, tuple[int, list[Symbol]]] = {}
    i = 0
    while i < len(toks):
        run = _word_run(toks, i)
        for n in range(min(len(run), 4), 1, -1):
            parts = [toks[j].text.lower() for j in run[:n]]
            keys = ("_".join(parts), "".join(parts), "is_" + "_".join(parts))
            hits = next((names[k] for k in keys if k in names), [])
            if len({(s.rel, s.qualname) for s in hits}) == 1:
                out[i] = (run[n - 1] + 1, hits)
                i = run[n - 1]
                break
        i += 1
    return out


def _word_run(toks: list[Tok], i: int) -> list[int]:
    """The plain words from token ``i`` on with only a space or a hyphen between them (up to four)."""
    run: list[int] = []
    j = i
    # an acronym is a plain word here ("RGB to HLS"), though it looks like code on its own
    while j < len(toks) and len(run) < 4 and toks[j].word and (not toks[j].code or (toks[j].text.isalpha()
                                                                and toks[j].text.isupper())):
        if run and toks[j].start - (toks[run[-1]].start + len(toks[run[-1]].text)) > 2:
            break  # "hop-by-hop": one hyphen; "rgb to hls": one space
        run.append(j)
        j += 2 if j + 2 < len(toks) and toks[j + 1].text == "-" and toks[j + 2].word else 1
    return run
