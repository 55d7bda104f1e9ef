"""``--mode auto``: find the region the change spec targets, then pick the mode with the shorter predicted wall time.

Predicted time of a mode = uncached prompt tokens × measured prefill cost (s/token,
from server timings) + expected output tokens ÷ expected decode tok/s for its request
class. A region is only a candidate when it holds the change: the instruction names it
("the function split", "parse_binding()", "class Foo", "method Foo.bar", "lines 10-40")
and, for a rename, the old name appears nowhere else in the file.

The instruction is read once, into a :class:`~coder.edit.intent.spec.ChangeSpec`
(:mod:`coder.edit.intent.read`); the file is parsed with the real parser
(:mod:`coder.edit.source.regions`).
"""

from __future__ import annotations

import ast
import io
import tokenize
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import TYPE_CHECKING

from coder.edit.source.regions import Region, class_tail, line_range, python_symbols, tree_sitter_symbols
from coder.errors import CoderError

if TYPE_CHECKING:
    from coder.edit.intent.spec import ChangeSpec


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


def find_target(rel: str, text: str, spec: ChangeSpec) -> Target:
    """The region the spec targets; raises a one-line CoderError for a missing or ambiguous name."""
    if spec.facts.missing:
        raise CoderError(f"{rel}: the instruction names {spec.facts.missing[0]}, which {rel} does not define")
    found = _symbols(rel, text)
    if spec.ambiguous:
        name = spec.ambiguous[0]
        hits = [r for q, r in (found or []) if q.lower() == name.lower() or q.lower().endswith("." + name.lower())]
        where = ", ".join(f"{r.label} (line {r.start})" for r in hits[:5])
        raise CoderError(f"{rel}: the instruction names {name!r}, which is ambiguous: {where}; "
                         "qualify it (e.g. method Class.name) or give lines A-B")
    if found is None and not spec.lines:
        return Target(None, "no region: the file has no symbols coder can parse")
    owned = _owned_target(spec, found or [])
    return owned or _named_target(rel, text, spec, found or [])


def _named_target(rel: str, text: str, spec: ChangeSpec, found: list[tuple[str, Region]]) -> Target:
    """The region of the symbols and line ranges the spec targets: one of them, or lines spanning them all."""
    by_name = dict(found)
    regions = [line_range(text, f"{a}-{b}") for a, b in spec.lines]
    regions += [by_name[s.qualname] for s in spec.targets if s.rel == rel and s.qualname in by_name]
    if not regions:
        if spec.facts.code_words or spec.renames:
            return Target(None, "no region: the names in the instruction are not symbols of this file")
        return Target(None, "no region: no function, class or line range named in the instruction")
    olds = {a for a, _ in spec.renames}
    if olds:
        many = [name for name in olds if sum(1 for q, _ in found if q.rsplit(".", 1)[-1] == name) > 1]
        if many:
            n = sum(1 for q, _ in found if q.rsplit(".", 1)[-1] == many[0])
            return Target(None, f"no region: the rename touches {n} definitions named {many[0]}")
    picked = _merge(regions)
    names = ", ".join(r.label for r in dict.fromkeys(regions))
    # a rename or a deletion changes every use too: its name is not a region unless all uses are inside
    everywhere = [r for r in regions if r.name in olds or (spec.action == "delete" and r.kind is not None)]
    if everywhere:
        outside = _uses_outside(rel, text, everywhere)
        if outside:
            what = "rename" if olds else "deletion"
            return Target(None, f"no region: the {what} also touches line(s) {outside} outside {names}")
    picked = _class_header(text, spec, picked)
    return Target(picked, f"{picked.label} (named in the instruction: {names})")


CLASS_HEADER_AFTER = 40  # a class this long gets only its header asked for a docstring


def _class_header(text: str, spec: ChangeSpec, region: Region) -> Region:
    """A long class's docstring is asked of its header: the class line through the comments before its first member.

    Asked to rewrite all of ``sched.scheduler`` (117 lines) to add a docstring, the 1.5B on the H200 dropped
    its last method in every wording; the header is a few lines to copy. "Every method of C" is the
    members' docstrings, and keeps the whole class.
    """
    if (spec.action != "docstring" or spec.allows != {"docstrings"} or spec.facts.members or region.kind != "class"
            or region.n_lines <= CLASS_HEADER_AFTER):  # "turn its comment block into a docstring" reads the body
        return region
    try:
        cls = next(n for n in ast.walk(ast.parse(text)) if isinstance(n, ast.ClassDef) and n.lineno == region.start)
    except (SyntaxError, ValueError, RecursionError, StopIteration):
        return region
    body = cls.body
    first = body[1] if len(body) > 1 and _is_docstring(body[0]) else body[0]
    if first is body[0] and _is_docstring(first):
        return region
    decorators: list[ast.expr] = getattr(first, "decorator_list", [])
    end = min([first.lineno, *(d.lineno for d in decorators)]) - 1
    if end < region.start:  # a one-line class body ("class C: x = 1")
        return region
    return Region(region.start, end, f"{region.label} (its header)", region.name, region.kind)


def _is_docstring(node: ast.stmt) -> bool:
    return isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)


def _owned_target(spec: ChangeSpec, found: list[tuple[str, Region]]) -> Target | None:
    """"Add a method foo to class A": foo belongs to A, whatever else in the file is called foo.

    The target is A's own foo when it has one, else the end of A (its last def), where a new
    method goes. None when the spec creates nothing inside a class of this file.
    """
    owner = spec.owner
    if owner is None or not any(q == owner.qualname for q, _ in found):
        return None
    new = [n for n in spec.new_names if n != owner.name] or [""]
    regions = [next((r for q, r in found if q == f"{owner.qualname}.{name}"), None)
               or class_tail(found, owner.qualname) for name in new]
    picked = _merge(regions)
    what = ", ".join(n for n in new if n) or "a method"
    return Target(picked, f"{picked.label} (the instruction adds {what} to class {owner.qualname})")


def _merge(regions: list[Region]) -> Region:
    spans = {(r.start, r.end): r for r in regions}
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
