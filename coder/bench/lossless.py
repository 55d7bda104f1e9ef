"""Explain where a speculative greedy output first differs from plain greedy output.

Speculative decoding is lossless only up to numerics: verification batches of different widths
take different kernels, so near-tied logits can flip. A divergence is therefore judged against a
noise floor measured the same way, on the same server, at the same position:

- the context is the prompt plus the reference output up to the first differing token;
- its next-token candidates are read (``n_probs``) under several batch shapes: the whole
  context evaluated cold (no prompt cache), and with all but the last ``w`` tokens cached, so the
  last ``w`` are evaluated in one batch of width ``w``, the shape of a verification step;
- the margin is logprob(reference token) − logprob(speculative token) under each shape.

The floor has two parts. Locally, the spread of the margin across shapes at that position.
Globally, the largest margin at which plain greedy decoding diverged from itself (the same prompt
with and without prompt-cache reuse): flips that large happen with no speculation at all. A
divergence is *within the floor* when some shape already prefers the speculative token, when its
margin is no larger than the local spread, or when its smallest margin over the shapes is no
larger than the global floor; otherwise it is *real*, which would point at a bug in the
speculator's verification (a real bug accepts tokens the target ranks far below its choice).

:func:`verify` runs the whole check for ``coder bench --verify-lossless``; ``scripts/bench_copy.py``
uses the same pieces on its own runs.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NotRequired, Protocol, TypedDict

from coder.backends.runtime.http import Response
from coder.jsontypes import JSONObject

DEFAULT_WIDTHS = (1, 8, 65)  # a plain decode step, a block-8 verification, a cap-64 verification
TOP_N = 10


class Poster(Protocol):
    """What is needed of a server: ``post(path, body)`` (coder's ServerAPI has it)."""

    def post(self, path: str, body: Mapping[str, object]) -> Response:
        """POST ``body`` as JSON to ``path`` on the server and return the response."""
        ...


class CandidateJSON(TypedDict):
    """A :class:`Candidate` as stored in a report."""

    token: int
    piece: str
    logprob: float


class DivergenceJSON(TypedDict):
    """A :class:`Divergence` as stored in a report (:meth:`Divergence.to_json`)."""

    index: int | None
    compared: int
    ref_token: int | None
    cand_token: int | None
    margins: dict[str, float | None]
    top: dict[str, list[CandidateJSON]]
    margin: float | None
    floor: float | None
    verdict: str


class CheckItemJSON(TypedDict):
    """One prompt of :func:`verify`: where the speculative output first differs, and the verdict."""

    workload: str
    index: int | None
    compared: int
    ref_token: int | None
    cand_token: int | None
    ref_piece: str | None
    cand_piece: str | None
    margin: float | None
    verdict: str
    detail: DivergenceJSON
    plain_vs_plain: dict[str, int | float | None]


class CheckJSON(TypedDict):
    """The result of :func:`verify` (``k``/``spec_type`` are added by the bench: the speculating server's)."""

    items: list[CheckItemJSON]
    noise_floor: float
    real: int
    widths: list[int]
    verdicts: dict[str, int]
    k: NotRequired[int | None]
    spec_type: NotRequired[str | None]


@dataclass(frozen=True)
class Candidate:
    """One next-token candidate and its log-probability."""

    token: int
    piece: str
    logprob: float


@dataclass
class Divergence:
    """Where two greedy outputs first differ, and whether numerics explain it."""

    index: int | None  # first differing output token; None when the outputs agree
    compared: int  # tokens compared (the shorter output's length)
    ref_token: int | None = None
    cand_token: int | None = None
    margins: dict[str, float | None] = field(default_factory=dict)  # shape -> lp(ref) - lp(cand)
    top: dict[str, list[Candidate]] = field(default_factory=dict)  # shape -> candidates
    margin: float | None = None  # under the cold shape
    floor: float | None = None  # spread of the margin across shapes
    verdict: str = "identical"  # identical | length | within floor | real | unexplained
    ref_piece: str | None = None  # the two tokens as text (/detokenize)
    cand_piece: str | None = None

    def to_json(self) -> DivergenceJSON:
        """Plain JSON (candidates as dicts)."""
        top = {shape: [CandidateJSON(token=c.token, piece=c.piece, logprob=c.logprob) for c in cands]
               for shape, cands in self.top.items()}
        return DivergenceJSON(index=self.index, compared=self.compared, ref_token=self.ref_token,
                              cand_token=self.cand_token, margins=dict(self.margins), top=top, margin=self.margin,
                              floor=self.floor, verdict=self.verdict)


def first_difference(ref: Sequence[int], cand: Sequence[int]) -> int | None:
    """Index of the first differing token, the shorter length when one is a prefix, or None if equal."""
    for i, (a, b) in enumerate(zip(ref, cand, strict=False)):
        if a != b:
            return i
    return None if len(ref) == len(cand) else min(len(ref), len(cand))


def _answer(resp: Response) -> dict[str, Any]:
    """The JSON object a llama.cpp endpoint answered (``ValueError`` for anything else)."""
    data = resp.json()
    if not isinstance(data, dict):
        raise ValueError(f"the server answered a JSON {type(data).__name__}, not an object")
    return data


def candidates(api: Poster, context: Sequence[int], *, cache_prompt: bool,
               extra: Mapping[str, object] | None = None) -> list[Candidate]:
    """Top next-token candidates after ``context`` (token ids), greedy, one token generated."""
    body: dict[str, object] = {"prompt": list(context), "n_predict": 1, "n_probs": TOP_N, "temperature": 0,
                            "cache_prompt": cache_prompt, "post_sampling_probs": False, **(extra or {})}
    resp = api.post("/completion", body)
    resp.raise_for_status()
    probs = _answer(resp).get("completion_probabilities") or []
    if not probs:
        return []
    return [Candidate(int(c["id"]), str(c.get("token", "")), float(c["logprob"]))
            for c in probs[0].get("top_logprobs", [])]


def detokenize(api: Poster, token: int) -> str:
    """One token id as text (llama.cpp ``/detokenize``)."""
    resp = api.post("/detokenize", {"tokens": [token]})
    resp.raise_for_status()
    return str(_answer(resp).get("content", ""))


def prompt_tokens(api: Poster, messages: Sequence[Mapping[str, str]],
                  extra: Mapping[str, object] | None = None) -> list[int]:
    """The chat-templated prompt as token ids (sent as ids, so every run sees the same tokens)."""
    resp = api.post("/apply-template", {"messages": list(messages), **(extra or {})})
    resp.raise_for_status()
    text = _answer(resp)["prompt"]
    resp = api.post("/tokenize", {"content": text, "add_special": True, "parse_special": True})
    resp.raise_for_status()
    return [int(t) for t in _answer(resp)["tokens"]]


def greedy(api: Poster, prompt: Sequence[int], max_tokens: int, *, cache_prompt: bool) -> list[int]:
    """The greedy output token ids after ``prompt`` (the server's own speculation, if any, at its launch k)."""
    body: dict[str, Any] = {"prompt": list(prompt), "n_predict": max_tokens, "temperature": 0, "top_k": 1,
                            "cache_prompt": cache_prompt, "return_tokens": True}
    resp = api.post("/completion", body)
    resp.raise_for_status()
    return [int(t) for t in _answer(resp).get("tokens", [])]


def margin(top: list[Candidate], ref: int, cand: int) -> float | None:
    """logprob(ref) − logprob(cand); a token outside the top candidates sits below the last one."""
    if not top:
        return None
    lp = {c.token: c.logprob for c in top}
    floor = top[-1].logprob
    return lp.get(ref, floor) - lp.get(cand, floor)


def classify(margins: Mapping[str, float | None], cold: str = "cold",
             global_floor: float = 0.0) -> tuple[str, float | None, float | None]:
    """(verdict, cold margin, spread) from the margins measured under each batch shape."""
    values = [m for m in margins.values() if m is not None]
    if not values:
        return "unexplained", None, None
    spread = max(values) - min(values)
    base = margins.get(cold)
    base = values[0] if base is None else base
    if min(values) <= 0 or abs(base) <= spread or min(values) <= global_floor:
        return "within floor", base, spread
    return "real", base, spread


def noise_floor(plain_pairs: Sequence[DivergenceJSON]) -> float:
    """The largest cold-shape margin at which plain greedy output diverged from itself."""
    margins = [abs(float(m)) for d in plain_pairs if d.get("index") is not None
               and (m := d.get("margin")) is not None]
    return max(margins, default=0.0)


def judge(div: DivergenceJSON, global_floor: float) -> str:
    """The verdict of a stored divergence (``Divergence.to_json``) against ``global_floor``."""
    if div.get("index") is None or div.get("verdict") in ("identical", "length"):
        return str(div.get("verdict", "identical"))
    return classify(div.get("margins", {}), global_floor=global_floor)[0]


def explain(api: Poster, prompt: Sequence[int], ref: Sequence[int], cand: Sequence[int],
            widths: Sequence[int] = DEFAULT_WIDTHS, extra: Mapping[str, object] | None = None,
            cold: bool = True) -> Divergence:
    """The first divergence of ``cand`` from ``ref`` (both after ``prompt``) and its verdict.

    ``api`` should be a server without speculation (or with the request cap at 0 in ``extra``), the
    same model and settings that produced ``ref``. It leaves the slot's prompt cache changed.
    ``cold=False`` skips the whole-context evaluation (a full prefill: slow on a CPU).
    """
    index = first_difference(ref, cand)
    out = Divergence(index=index, compared=min(len(ref), len(cand)))
    if index is None:
        return out
    if index >= len(ref) or index >= len(cand):
        out.verdict = "length"  # one output stops early; the tokens it has all agree
        return out
    out.ref_token, out.cand_token = ref[index], cand[index]
    out.ref_piece, out.cand_piece = detokenize(api, out.ref_token), detokenize(api, out.cand_token)
    context = [*prompt, *ref[:index]]
    shapes: dict[str, list[Candidate]] = {}
    if cold:
        shapes["cold"] = candidates(api, context, cache_prompt=False, extra=extra)
    for w in widths:
        if w >= len(context):
            continue
        # cache all but the last w tokens, so they are evaluated together in one batch of width w
        candidates(api, context[:-w], cache_prompt=True, extra=extra)
        shapes[f"width {w}"] = candidates(api, context, cache_prompt=True, extra=extra)
    out.top = shapes
    out.margins = {name: margin(top, out.ref_token, out.cand_token) for name, top in shapes.items()}
    out.verdict, out.margin, out.floor = classify(out.margins)
    return out


def summarize(items: Sequence[Divergence]) -> JSONObject:
    """Counts per verdict, plus the largest margin among real divergences."""
    counts: dict[str, int] = {}
    for d in items:
        counts[d.verdict] = counts.get(d.verdict, 0) + 1
    real = [d.margin for d in items if d.verdict == "real" and d.margin is not None]
    return {"runs": len(items), "verdicts": counts, "real": len(real), "max_real_margin": max(real, default=None)}


def verify(api: Poster, prompts: Mapping[str, Sequence[int]], spec: Mapping[str, Sequence[int]],
           max_tokens: int, widths: Sequence[int] = DEFAULT_WIDTHS,
           on_prompt: Callable[[str], None] | None = None) -> CheckJSON:
    """The lossless check of ``coder bench --verify-lossless`` on a server **without** speculation.

    ``spec[name]`` is the prompt's greedy output on the speculating server (:func:`greedy`, cold).
    Per prompt: plain greedy output cold (the reference), then again with its prompt cached (the
    noise floor: plain against plain), then the speculative output against the reference. Every
    divergence, plain or speculative, is explained the same way (:func:`explain`); the speculative
    ones are judged against the largest plain-vs-plain margin (:func:`judge`).
    """
    plain: dict[str, Divergence] = {}
    refs: dict[str, list[int]] = {}
    for name, prompt in prompts.items():
        refs[name] = greedy(api, prompt, max_tokens, cache_prompt=False)
        greedy(api, prompt, 1, cache_prompt=True)  # fill the cache: the next run reuses the prompt
        warm = greedy(api, prompt, max_tokens, cache_prompt=True)
        plain[name] = explain(api, prompt, refs[name], warm, widths)
        if on_prompt is not None:
            on_prompt(name)
    floor = noise_floor([d.to_json() for d in plain.values()])
    items: list[CheckItemJSON] = []
    for name, prompt in prompts.items():
        if name not in spec:
            continue
        d = explain(api, prompt, refs[name], spec[name], widths)
        d.verdict = judge(d.to_json(), floor)
        base = plain[name]
        items.append({"workload": name, "index": d.index, "compared": d.compared, "ref_token": d.ref_token,
                      "cand_token": d.cand_token, "ref_piece": d.ref_piece, "cand_piece": d.cand_piece,
                      "margin": d.margin, "verdict": d.verdict, "detail": d.to_json(),
                      "plain_vs_plain": {"index": base.index, "margin": base.margin}})
    real = sum(1 for i in items if i["verdict"] == "real")
    return {"items": items, "noise_floor": floor, "real": real, "widths": list(widths),
            "verdicts": {v: sum(1 for i in items if i["verdict"] == v) for v in {i["verdict"] for i in items}}}
