"""Defs a move describes as a group instead of naming them: "the three private max-heap helpers".

Read only for a move whose named defs are all landmarks ("so they come after g and precede merge"): without it
the landmark itself was moved (fifth fresh set, H200 run 19, ``heapq-move``). The group is the one run of that
many adjacent defs of one level whose names all fit the description's words; any other count of runs names
nothing, and the move is refused as unnamed rather than guessed.
"""

from __future__ import annotations

from coder.edit.intent.names import ARTICLES, Tok
from coder.edit.intent.spec import Action, Anchor, Symbol
from coder.edit.intent.symbols import SymbolTable

_COUNTS = {"two": 2, "both": 2, "three": 3, "four": 4, "five": 5, "six": 6}
_NOUNS = frozenset({"helpers", "functions", "methods", "defs", "ones", "routines", "wrappers", "variants"})
_SKIP = ARTICLES | {"all", "of", "small", "little", "other", "related", "same"}


def group_moved(action: Action, targets: list[Symbol], anchor: Anchor | None, toks: list[Tok], table: SymbolTable,
                fixed: set[Symbol]) -> list[Symbol]:
    """``targets``, or for a move next to a named def that names nothing else, the group it describes."""
    if action != "move" or targets or anchor is None or anchor.symbol is None:
        return targets
    return described_group(toks, table, fixed)


def described_group(toks: list[Tok], table: SymbolTable, fixed: set[Symbol]) -> list[Symbol]:
    """The adjacent defs "the N <words> helpers" describes, in file order; [] unless exactly one run fits."""
    for i, tok in enumerate(toks):
        count = _COUNTS.get(tok.text.lower())
        if count is None:
            continue
        said = _words_to_noun(toks, i + 1)
        if said is None:
            continue
        runs = _fitting_runs(table, count, said, fixed)
        if len(runs) == 1:
            return runs[0]
    return []


def _words_to_noun(toks: list[Tok], start: int) -> list[str] | None:
    """The describing words between a count and its plural noun ("private", "max", "heap"), or None."""
    out: list[str] = []
    for tok in toks[start:start + 8]:
        word = tok.text.lower()
        if word in _NOUNS:
            return out
        if not tok.word:
            if tok.text != "-":
                return None
            continue
        if word not in _SKIP:
            out.append(word)
    return None


def _fits(sym: Symbol, said: list[str], known: set[str]) -> bool:
    name = sym.name.lower()
    for word in said:
        if word == "private":
            if not name.startswith("_") or name.startswith("__"):
                return False
        elif word == "public":
            if name.startswith("_"):
                return False
        elif word in known and word not in name:
            return False
    return True


def _fitting_runs(table: SymbolTable, count: int, said: list[str], fixed: set[Symbol]) -> list[list[Symbol]]:
    """Every run of ``count`` adjacent defs of one level (one class, or the module) that fit ``said``."""
    defs = [s for s in table.in_file() if s.kind != "class"]
    # a word that is in no def's name ("helpers", "tiny") describes without narrowing
    known = {w for w in said if any(w in s.name.lower() for s in defs)}
    if not known and not {"private", "public"} & set(said):
        return []
    levels: dict[str, list[Symbol]] = {}
    for sym in sorted(defs, key=lambda s: s.start):
        levels.setdefault(sym.qualname.rpartition(".")[0], []).append(sym)
    runs: list[list[Symbol]] = []
    for level in levels.values():
        for k in range(len(level) - count + 1):
            run = level[k:k + count]
            if all(_fits(s, said, known) and s not in fixed for s in run) and not (
                    (k > 0 and _fits(level[k - 1], said, known)) or
                    (k + count < len(level) and _fits(level[k + count], said, known))):
                runs.append(run)  # a longer run of fitting defs is no group of exactly ``count``
    return runs
