"""``--mode auto``: find what the instruction names, then pick the mode with the shorter predicted wall time.

Predicted time of a mode = uncached prompt tokens × measured prefill cost (s/token,
from server timings) + expected output tokens ÷ expected decode tok/s for its request
class. A region is only a candidate when it holds the change: the instruction names it
("the function split", "parse_binding()", "class Foo", "method Foo.bar", "lines 10-40")
and, for a rename, the old name appears nowhere else in the file.

Instructions are English, so they are scanned with patterns; the file is parsed with
the real parser (:mod:`coder.edit.source.regions`).
"""

from __future__ import annotations

import io
import re
import tokenize
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import PurePath

from coder.edit.source.regions import Region, class_tail, line_range, python_symbols, tree_sitter_symbols
from coder.errors import CoderError

# "function split", "the method Foo.bar", "class `Foo`", "def load"
_KIND_WORD = re.compile(r"\b(function|func|def|method|class)\s+`?([A-Za-z_][\w.]*)`?(\(\))?")
_CALL = re.compile(r"`?\b([A-Za-z_][\w.]*)\(\)`?")
_TICKED = re.compile(r"`([A-Za-z_][\w.]*)(?:\(\))?`")
_LINES = re.compile(r"\blines?\s+(\d+)\s*(?:-|–|—|to|through|until)\s*(\d+)\b|\bline\s+(\d+)\b", re.I)
_CODE_WORD = re.compile(r"(?<![\w.`])([A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)*)(?![\w`(])")
# Words right before a name that mean the symbol is new: not finding it is then expected.
_CREATE = re.compile(r"(\b(add|create|write|introduce|insert|define|implement)\s+(an?\s+|the\s+)?(new\s+)?"
                     r"|\bnew\s+)$", re.I)
_RENAME_OLD = re.compile(r"\brename\s+(?:the\s+)?(?:(?:function|method|class)\s+)?`?([A-Za-z_][\w.]*)", re.I)
_DELETE = re.compile(r"\b(?:delete|remove|drop)\s+(?:the\s+)?(?:(?:function|method|class)\s+)?`?([A-Za-z_][\w.]*)",
                     re.I)
# Plain words that follow a kind word without naming anything ("the class that parses").
_NOT_NAMES = frozenset({
    "that", "which", "who", "to", "in", "of", "and", "or", "the", "a", "an", "with", "for", "it", "its", "is",
    "so", "this", "these", "those", "above", "below", "here", "there", "body", "name", "names", "definition",
    "definitions", "signature", "call", "calls", "docstring", "itself", "at", "on", "by", "from", "as", "be",
    "should", "must", "can", "will", "then", "when", "where", "whose", "variable", "variables", "parameter",
    "parameters", "argument", "arguments", "attribute", "field", "local", "constant", "module", "file", "import",
})
_RENAME = re.compile(r"\brenam(e|es|ed|ing)\b", re.I)
# "to class A", "in the class `A`", "into the A class": where a name the instruction creates belongs
_OWNER = re.compile(r"\b(?:to|in|into|inside|within|on|for)\s+(?:the\s+)?"
                    r"(?:class\s+`?([A-Za-z_][\w.]*)`?|`?([A-Za-z_][\w.]*)`?\s+class\b)", re.I)
_KINDS = {"function": "function", "func": "function", "def": "function", "method": "function",
          "class": "class"}


@dataclass(frozen=True)
class Named:
    """A symbol or line range the instruction names."""

    name: str  # "split", "Foo.bar", "10-40"
    kind: str | None  # "function" | "class" | "lines" | None (a bare code-looking word)
    explicit: bool  # named as code (kind word, call, backticks): a miss is an error
    creating: bool = False  # preceded by "add"/"new"/...: the symbol may not exist yet


def named_in(instruction: str) -> list[Named]:
    """Everything ``instruction`` names, most explicit first, without duplicates."""
    out: dict[str, Named] = {}

    def add(item: Named) -> None:
        if item.name not in out:
            out[item.name] = item

    for m in _LINES.finditer(instruction):
        a, b = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(3))
        add(Named(f"{a}-{b}", "lines", True))
    for m in _RENAME_OLD.finditer(instruction):
        if m.group(1).lower() not in _NOT_NAMES:
            add(Named(m.group(1).rstrip("."), None, True))
    taken = _kind_words(instruction, add)
    # "parse_binding()" must exist; a backticked name may be a variable ("rename `lines`").
    for pattern, sure in ((_CALL, True), (_TICKED, False)):
        for m in pattern.finditer(instruction):
            if any(a <= m.start() < b for a, b in taken):
                continue
            before = instruction[max(0, m.start() - 24):m.start()]
            add(Named(m.group(1).rstrip("."), None, sure, bool(_CREATE.search(before))))
    for m in _CODE_WORD.finditer(instruction):
        word = m.group(1).rstrip(".")
        if _looks_like_code(word):
            add(Named(word, None, False))
    return list(out.values())


def _kind_words(instruction: str, add: Callable[[Named], None]) -> list[tuple[int, int]]:
    """Names after "function", "method", "class", "def"; returns the spans they cover."""
    taken: list[tuple[int, int]] = []
    for m in _KIND_WORD.finditer(instruction):
        before = instruction[max(0, m.start() - 24):m.start()]
        name, kind = m.group(2).rstrip("."), _KINDS[m.group(1)]
        # "the function split" names split; "the class that parses" names nothing.
        if name.lower() in _NOT_NAMES:
            continue
        add(Named(name, kind, True, bool(_CREATE.search(before))))
        taken.append(m.span())
    return taken


def _looks_like_code(word: str) -> bool:
    """snake_case, camelCase, dotted or dunder: never a plain English word."""
    return "_" in word.strip("_") or "." in word or word.startswith("__") or any(c.isupper() for c in word[1:])


@dataclass(frozen=True)
class Target:
    """What auto mode can edit as a region, and why (or why not)."""

    region: Region | None
    why: str  # "function split (named in the instruction)", "no region named", ...


def _symbols(rel: str, text: str) -> list[tuple[str, Region]] | None:
    try:
        if PurePath(rel).suffix.lower() in (".py", ".pyi"):
            return python_symbols(text)
        return tree_sitter_symbols(rel, text)
    except (SyntaxError, CoderError):
        return None  # no parser for it, or it does not parse: only line ranges can be named


def _matches(found: list[tuple[str, Region]], item: Named) -> list[tuple[str, Region]]:
    hits = [(q, r) for q, r in found if q == item.name or q.endswith("." + item.name)]
    if item.kind in ("function", "class"):
        hits = [(q, r) for q, r in hits if r.kind == item.kind or (item.kind == "function" and r.kind
                                                                     in ("function", "method"))]
    exact = [(q, r) for q, r in hits if q == item.name]
    return exact or hits


def find_target(rel: str, text: str, instruction: str) -> Target:
    """The region the instruction names; raises a one-line CoderError for a missing or ambiguous name."""
    named = named_in(instruction)
    found = _symbols(rel, text) if named else None
    return _owned_target(instruction, named, found) or _named_target(rel, text, instruction, named, found)


def _named_target(rel: str, text: str, instruction: str, named: list[Named],
                  found: list[tuple[str, Region]] | None) -> Target:
    """The region of the symbols and line ranges ``named``: one of them, or lines spanning them all."""
    if not named:
        return Target(None, "no region: no function, class or line range named in the instruction")
    regions: list[tuple[Named, Region]] = []
    # a rename or a deletion changes every use too: its name is not a region unless all uses are inside
    renamed = {m.group(1).rstrip(".") for m in _RENAME_OLD.finditer(instruction)}
    changed_everywhere = renamed | {m.group(1).rstrip(".") for m in _DELETE.finditer(instruction)}
    for item in named:
        if item.kind == "lines":
            regions.append((item, line_range(text, item.name)))
            continue
        if found is None:
            continue
        hits = _matches(found, item)
        if len(hits) > 1 and item.name in renamed:
            return Target(None, f"no region: the rename touches {len(hits)} definitions named {item.name}")
        if len(hits) > 1:
            where = ", ".join(f"{r.label} (line {r.start})" for _, r in hits[:5])
            raise CoderError(f"{rel}: the instruction names {item.name!r}, which is ambiguous: {where}; "
                             "qualify it (e.g. method Class.name) or give lines A-B")
        if hits:
            regions.append((item, hits[0][1]))
        elif (item.explicit and not item.creating and not _is_rename_target(instruction, item.name)
              and item.name not in renamed):  # renaming a variable: not a symbol, not missing
            what = f"{item.kind} {item.name}" if item.kind else item.name
            raise CoderError(f"{rel}: the instruction names {what}, which {rel} does not define")
    if not regions:
        return Target(None, "no region: the names in the instruction are not symbols of this file")
    picked = _merge(regions)
    names = ", ".join(r.label for _, r in regions)
    renamed_regions = [r for item, r in regions if item.name in changed_everywhere]
    if renamed_regions:
        outside = _uses_outside(rel, text, renamed_regions)
        if outside:
            what = "rename" if any(item.name in renamed for item, _ in regions) else "deletion"
            return Target(None, f"no region: the {what} also touches line(s) {outside} outside {names}")
    return Target(picked, f"{picked.label} (named in the instruction: {names})")


def _owned_target(instruction: str, named: list[Named], found: list[tuple[str, Region]] | None) -> Target | None:
    """"Add a method foo to class A": foo belongs to A, whatever else in the file is called foo.

    The target is A's own foo when it has one, else the end of A (its last def), where a new
    method goes. None when the instruction creates nothing inside a class of this file.
    """
    owner = _owner(instruction, found)
    if owner is None or found is None:
        return None
    new = [n.name for n in named if n.creating and n.kind != "class" and n.name not in (owner, owner.rsplit(".")[-1])]
    if not new:
        return None
    regions = [next((r for q, r in found if q == f"{owner}.{name}"), None) or class_tail(found, owner)
               for name in new]
    picked = _merge([(Named(name, None, True), r) for name, r in zip(new, regions, strict=True)])
    return Target(picked, f"{picked.label} (the instruction adds {', '.join(new)} to class {owner})")


def _owner(instruction: str, found: list[tuple[str, Region]] | None) -> str | None:
    """The qualified name of the one class the instruction puts something in ("to class A"), if it has one."""
    if found is None:
        return None
    for m in _OWNER.finditer(instruction):
        name = (m.group(1) or m.group(2)).rstrip(".")
        classes = [q for q, r in found if r.kind == "class" and (q == name or q.endswith("." + name))]
        if len(classes) == 1:
            return classes[0]
    return None


def _is_rename_target(instruction: str, name: str) -> bool:
    """``name`` is the new name of a rename ("rename a to b"): it cannot exist yet."""
    return bool(re.search(rf"\b(to|into|as)\s+`?{re.escape(name)}\b", instruction)) and bool(
        _RENAME.search(instruction))


def _merge(regions: list[tuple[Named, Region]]) -> Region:
    spans = {(r.start, r.end): r for _, r in regions}
    if len(spans) == 1:
        return next(iter(spans.values()))
    start, end = min(a for a, _ in spans), max(b for _, b in spans)
    return Region(start, end, f"lines {start}-{end}")


def _uses_outside(rel: str, text: str, regions: list[Region]) -> str:
    """Lines outside ``regions`` that use one of their symbols' names ("12, 40"), Python only."""
    names = {r.name for r in regions if r.name}
    if not names or not rel.endswith((".py", ".pyi")):
        return ""
    lines: set[int] = set()
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type == tokenize.NAME and tok.string in names:
                row = tok.start[0]
                if not any(r.start <= row <= r.end for r in regions):
                    lines.add(row)
    except (tokenize.TokenError, SyntaxError):
        return ""
    shown = sorted(lines)
    return ", ".join(map(str, shown[:6])) + (" …" if len(shown) > 6 else "")


# --- wall-time prediction ------------------------------------------------------------------

DEFAULT_PREFILL_S_PER_TOKEN = 0.005  # 200 tok/s: a CPU with a small model, until measured


@dataclass(frozen=True)
class Prediction:
    """Predicted wall time of one mode, with the figures it was computed from."""

    mode: str
    uncached_tokens: int
    output_tokens: int
    prefill_s: float
    decode_s: float
    prefill_s_per_token: float = DEFAULT_PREFILL_S_PER_TOKEN
    decode_tps: float = 0.0
    prefill_source: str = "default"  # "default" | "start-up probe" | "edits": where the prefill cost came from
    decode_source: str = "default"
    requests: int = 1  # a plan sends one request per region: the figures are their sums

    @property
    def total(self) -> float:
        """Predicted seconds from send to the last token: prefill plus decode."""
        return self.prefill_s + self.decode_s

    def describe(self) -> str:
        """One line for the notice: the mode, its total, how it splits, and the speeds behind it."""
        many = f"{self.requests} requests: " if self.requests != 1 else ""
        return (f"{self.mode} ~{self.total:.1f}s ({many}{self.uncached_tokens} uncached prompt tok × "
                f"{self.prefill_s_per_token * 1000:.1f} ms [{self.prefill_source}] = {self.prefill_s:.1f}s + "
                f"{self.output_tokens} out tok at {self.decode_tps:.0f} tok/s [{self.decode_source}] = "
                f"{self.decode_s:.1f}s)")


@dataclass
class CostModel:
    """Measured prefill cost and expected decode speed per request class.

    Until this session's edits measure them, the backend's start-up probe gives both
    (:meth:`adopt_probe`); without a probe they are defaults, and predictions say so.
    """

    tps: Mapping[str, float]  # prior decode tok/s per class (defaults, bench results)
    prefill_s_per_token: float = DEFAULT_PREFILL_S_PER_TOKEN
    prefill_measured: bool = False
    alpha: float = 0.5  # EMA weight of a new measurement
    measured_tps: dict[str, float] = field(default_factory=dict)  # learned from this session's edits
    prefill_source: str = "default"
    probe_tps: float | None = None  # decode tok/s of the start-up probe (a copy-like stream: the full class)

    def adopt_probe(self, prefill_s_per_token: float | None, decode_tps: float | None) -> None:
        """The costs a backend's start-up probe measured; an edit's own measurements win over them."""
        if prefill_s_per_token and prefill_s_per_token > 0 and self.prefill_source != "edits":
            self.prefill_s_per_token, self.prefill_measured = prefill_s_per_token, True
            self.prefill_source = "start-up probe"
        self.probe_tps = decode_tps if decode_tps and decode_tps > 0 else None

    def observe_timings(self, timings: Mapping[str, object]) -> None:
        """Learn the prefill cost from llama.cpp ``timings`` (``prompt_n`` tokens in ``prompt_ms``)."""
        n, ms = timings.get("prompt_n"), timings.get("prompt_ms")
        if not isinstance(n, int | float) or not isinstance(ms, int | float) or n < 64 or ms <= 0:
            return  # a handful of tokens says little about the per-token cost
        cost = ms / 1000 / n
        if self.prefill_source == "edits":
            cost = self.alpha * cost + (1 - self.alpha) * self.prefill_s_per_token
        self.prefill_s_per_token, self.prefill_measured, self.prefill_source = cost, True, "edits"

    def observe_decode(self, request_class: str, tok_s: float | None, tokens: int | None) -> None:
        """Learn a class's decode speed from a finished edit (long replies only: short ones are noisy)."""
        if not tok_s or not tokens or tokens < 32:
            return
        old = self.measured_tps.get(request_class)
        self.measured_tps[request_class] = tok_s if old is None else self.alpha * tok_s + (1 - self.alpha) * old

    def decode_speed(self, mode: str, request_class: str) -> tuple[float, str]:
        """(tok/s, where it came from) for ``request_class``: this session's edits, the probe, or the prior."""
        if tps := self.measured_tps.get(request_class):
            return tps, "edits"
        prior = self.tps.get(request_class) or self.tps.get(mode) or 30.0
        if self.probe_tps:  # the probe copies its prompt: scale it by the prior's ratio to a full rewrite
            return self.probe_tps * prior / (self.tps.get("full") or prior), "start-up probe"
        return prior, "default"

    def predict(self, mode: str, request_class: str, prompt_tokens: int, cached_tokens: int,
                output_tokens: int) -> Prediction:
        """Predict the wall time of an edit in ``mode`` from its token counts and the learned speeds."""
        uncached = max(0, prompt_tokens - cached_tokens)
        tps, decode_source = self.decode_speed(mode, request_class)
        return Prediction(mode, uncached, output_tokens, uncached * self.prefill_s_per_token, output_tokens / tps,
                          self.prefill_s_per_token, tps, self.prefill_source, decode_source)

    def predict_requests(self, mode: str, parts: list[tuple[str, int, int, int]]) -> Prediction:
        """n requests × their own cost: the sum of each one's prediction (a plan's regions, sent in turn).

        ``parts`` holds (request class, prompt tokens, cached tokens, output tokens) per request.
        """
        each = [self.predict(mode, cls, prompt, cached, out) for cls, prompt, cached, out in parts]
        return Prediction(mode, sum(p.uncached_tokens for p in each), sum(p.output_tokens for p in each),
                          sum(p.prefill_s for p in each), sum(p.decode_s for p in each),
                          self.prefill_s_per_token, each[0].decode_tps if each else 0.0, self.prefill_source,
                          each[0].decode_source if each else "default", requests=len(each))


def decide(full: Prediction | None, region: Prediction | None, target: Target) -> tuple[str, str]:
    """(mode, reason): the faster predicted mode, the reason naming both predicted times.

    ``full`` is None when the whole file cannot fit the context; ``region`` is None when
    the instruction names no region that holds the change.
    """
    if region is None:
        assert full is not None, "neither mode possible: callers raise before"
        return "full", f"auto: full ({target.why}); predicted {full.describe()}"
    if full is None:
        return "region", (f"auto: region {target.why}, the whole file cannot fit the context; "
                          f"predicted {region.describe()}")
    both = f"predicted {region.describe()} vs {full.describe()}"
    if region.total <= full.total:
        return "region", f"auto: region is faster, {target.why}; {both}"
    return "full", f"auto: full is faster than region {target.why}; {both}"


@dataclass(frozen=True)
class Candidate:
    """One mode's request as auto mode sees it (built by the same code that would send it)."""

    mode: str
    request_class: str
    prompt_text: str
    prompt_tokens: int
    output_tokens: int


def choose(full: Candidate | None, region: Candidate | None, target: Target, cost: CostModel,
           cached: Callable[[str, int], int]) -> tuple[str, str, dict[str, Prediction]]:
    """Predict both candidates (``cached(text, tokens)`` estimates reused prompt tokens) and decide."""
    predictions: dict[str, Prediction] = {}
    for cand in (full, region):
        if cand is not None:
            predictions[cand.mode] = cost.predict(cand.mode, cand.request_class, cand.prompt_tokens,
                                                  cached(cand.prompt_text, cand.prompt_tokens),
                                                  cand.output_tokens)
    mode, reason = decide(predictions.get("full"), predictions.get("region"), target)
    if not cost.prefill_measured:
        reason += " (prefill cost not measured yet: default)"
    return mode, reason, predictions
