"""Parsers for the server log lines that prove (or disprove) a live speculator.

Formats are the ones quoted with sources in shared/research/backends.md: llama.cpp
build 11434 (§1.6), vLLM ~0.28–0.32 (§2.2–§2.4) and SGLang 2026 main (§3), checked against the
released sources of vLLM 0.26.0 / 0.33.0 and SGLang 0.5.17 / 0.5.23 (tests/data/engines/SOURCES.md). Each
parser returns the *last* matching record (the freshest state) or all of them.
Known failure lines map to one-line reasons via :func:`known_failures`.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

# --------------------------------------------------------------------------- llama.cpp

_LLAMA_ACCEPT = re.compile(
    r"draft acceptance = \s*(?P<rate>[\d.]+|nan|-?inf) "
    r"\(\s*(?P<acc>\d+) accepted /\s*(?P<gen>\d+) generated\),"
    r" mean len =\s*(?P<mean>[\d.]+)"
)
_LLAMA_IMPL = re.compile(r"adding speculative implementation '(?P<type>[\w-]+)'")
_LLAMA_NPARAMS = re.compile(r"- n_max=(?P<n_max>\d+), n_min=(?P<n_min>\d+), p_min=(?P<p_min>[\d.]+)")
_LLAMA_BLOCK = re.compile(
    r"- block_size=(?P<block>\d+), mask_token_id=(?P<mask>-?\d+), n_extract=(?P<n_extract>\d+),"
    r" sample_from_anchor=(?P<anchor>true|false)"
)
_LLAMA_EXTRACT = re.compile(r"DFlash extract_layers = \[(?P<layers>[^\]]*)\]")
_LLAMA_DFLASH2 = re.compile(
    r"DFlash2 conv kernel = (?P<kernel>\d+), group = (?P<group>\d+), selector rank = (?P<rank>\d+),"
    r" top-k = (?P<top_k>\d+)"
)
_LLAMA_DSPARK = re.compile(r"DFlash with DSpark markov head \(rank = (?P<rank>\d+)\)")
_LLAMA_CLAMP = re.compile(
    r"requested draft size \(n_max=(?P<n_max>\d+), n_min=(?P<n_min>\d+)\) exceeds the trained block size"
    r" (?P<block>\d+) -- clamping to (?P<to>\d+)"
)
_LLAMA_AUTODETECT = re.compile(
    r"auto-detected speculative type '(?P<type>[\w-]+)' from the draft model metadata"
)


@dataclass(frozen=True)
class DraftAcceptance:
    """llama.cpp's per-request ``draft acceptance = … mean len = X`` line."""

    rate: float
    accepted: int
    generated: int
    mean_len: float


def llamacpp_acceptance(text: str) -> list[DraftAcceptance]:
    """Every ``draft acceptance`` line in order (one per finished speculative request)."""
    out = []
    for m in _LLAMA_ACCEPT.finditer(text):
        rate = float(m["rate"]) if m["rate"] not in ("nan", "inf", "-inf") else math.nan
        out.append(DraftAcceptance(rate, int(m["acc"]), int(m["gen"]), float(m["mean"])))
    return out


@dataclass
class LlamaSpecLoad:
    """What llama.cpp's load log says about the speculator (INF lines only; see backends.md §1.6)."""

    impl_types: list[str] = field(default_factory=list)  # only DFlash/DSpark print these at INF
    auto_detected: str | None = None
    n_max: int | None = None
    n_min: int | None = None
    block_size: int | None = None
    n_extract: int | None = None
    sample_from_anchor: bool | None = None
    extract_layers: list[int] = field(default_factory=list)
    dflash2: dict[str, int] | None = None  # conv kernel/group, selector rank/top-k
    dspark_rank: int | None = None
    clamped_to: int | None = None

    @property
    def effective_n_max(self) -> int | None:
        """The draft length in force: the ``- n_max=`` line prints the request before any clamp."""
        return self.clamped_to if self.clamped_to is not None else self.n_max

    @property
    def family(self) -> str | None:
        """DFlash / DFlash 2 / DSpark as proven by the load lines, else None."""
        if self.dspark_rank is not None or "draft-dspark" in self.impl_types:
            return "DSpark"
        if self.dflash2 is not None:
            return "DFlash 2"
        if self.extract_layers or "draft-dflash" in self.impl_types:
            return "DFlash"
        return None


def llamacpp_spec_load(text: str) -> LlamaSpecLoad:
    """Collect llama.cpp's speculator load lines (draft family, block size, effective n_max)."""
    info = LlamaSpecLoad()
    info.impl_types = [m["type"] for m in _LLAMA_IMPL.finditer(text)]
    if m := _last(_LLAMA_AUTODETECT, text):
        info.auto_detected = m["type"]
    if m := _last(_LLAMA_NPARAMS, text):
        info.n_max, info.n_min = int(m["n_max"]), int(m["n_min"])
    if m := _last(_LLAMA_BLOCK, text):
        info.block_size, info.n_extract = int(m["block"]), int(m["n_extract"])
        info.sample_from_anchor = m["anchor"] == "true"
    if m := _last(_LLAMA_EXTRACT, text):
        info.extract_layers = [int(x) for x in re.findall(r"-?\d+", m["layers"])]
    if m := _last(_LLAMA_DFLASH2, text):
        info.dflash2 = {k: int(v) for k, v in m.groupdict().items()}
    if m := _last(_LLAMA_DSPARK, text):
        info.dspark_rank = int(m["rank"])
    if m := _last(_LLAMA_CLAMP, text):
        info.clamped_to = int(m["to"])
    return info


# --------------------------------------------------------------------------- vLLM

_VLLM_VERSION = re.compile(r"Initializing a V\d LLM engine \(v(?P<version>[^)\s]+)\)")
_VLLM_SPEC = re.compile(r"SpeculativeConfig\((?P<body>[^()]*)\)")
_VLLM_FIELD = re.compile(r"(?P<key>\w+)=(?P<val>'(?:[^'\\]|\\.)*'|\"[^\"]*\"|[^,\s)]+)")
_VLLM_CAPTURE = re.compile(r"Capturing model for (?P<name>[\w.-]+) speculator\.\.\.")
_VLLM_SPEC_LINE = re.compile(
    r"SpecDecoding metrics: Mean acceptance length: (?P<mean>[\d.]+|nan), "
    r"Accepted throughput: (?P<acc_tps>[\d.]+|nan) tokens/s, "
    r"Drafted throughput: (?P<dft_tps>[\d.]+|nan) tokens/s, "
    r"Accepted: (?P<acc>\d+) tokens, Drafted: (?P<dft>\d+) tokens, "
    r"Per-position acceptance rate: (?P<pos>[\d., ]*?), Avg Draft acceptance rate: (?P<rate>[\d.]+|nan)%"
)
V2_RUNNER_LINE = "Using V2 Model Runner"
_V2_FALLBACK = re.compile(
    r"Model Runner V2 does not yet support (?P<what>.+?); using the V1 model runner instead"
)


@dataclass(frozen=True)
class VllmSpecConfig:
    """The engine banner's ``SpeculativeConfig(method=…, model=…, num_spec_tokens=…)``."""

    method: str
    model: str | None
    num_spec_tokens: int | None


def vllm_spec_config(text: str) -> VllmSpecConfig | None:
    """The last SpeculativeConfig repr in the log (the engine banner), or None."""
    m = _last(_VLLM_SPEC, text)
    if m is None:
        return None
    fields = {f["key"]: f["val"] for f in _VLLM_FIELD.finditer(m["body"])}
    if "method" not in fields:
        return None

    def unquote(v: str | None) -> str | None:
        if v is None or v == "None":
            return None
        return v[1:-1] if v[:1] in "'\"" and v[-1:] == v[:1] else v

    nst = fields.get("num_spec_tokens")
    return VllmSpecConfig(
        method=unquote(fields["method"]) or "",
        model=unquote(fields.get("model")),
        num_spec_tokens=int(nst) if nst and nst.isdigit() else None,
    )


def vllm_version(text: str) -> str | None:
    """The vLLM version printed in the launch log, if any."""
    m = _VLLM_VERSION.search(text)
    return m["version"] if m else None


def vllm_v2_runner(text: str) -> bool:
    """True when gpu_worker logged ``Using V2 Model Runner`` (MRV2 selected)."""
    return V2_RUNNER_LINE in text


def vllm_v2_fallback(text: str) -> str | None:
    """What MRV2 said it does not support when it fell back to V1 (WARN), or None."""
    m = _last(_V2_FALLBACK, text)
    return m["what"] if m else None


def vllm_captured_speculators(text: str) -> list[str]:
    """Names from ``Capturing model for <Name> speculator...`` (``DFlash2`` proves the DFlash 2 path)."""
    return [m["name"] for m in _VLLM_CAPTURE.finditer(text)]


@dataclass(frozen=True)
class VllmSpecLine:
    """vLLM's periodic ``SpecDecoding metrics:`` line (an interval, reset after each log)."""

    mean_acceptance_length: float
    accepted: int
    drafted: int
    per_position: tuple[float, ...]
    draft_acceptance_rate: float  # percent


def vllm_spec_lines(text: str) -> list[VllmSpecLine]:
    """vLLM's periodic speculative-decoding metric lines in the log."""
    out = []
    for m in _VLLM_SPEC_LINE.finditer(text):
        pos = tuple(float(x) for x in m["pos"].split(",") if x.strip())
        out.append(
            VllmSpecLine(
                mean_acceptance_length=float(m["mean"]),
                accepted=int(m["acc"]),
                drafted=int(m["dft"]),
                per_position=pos,
                draft_acceptance_rate=float(m["rate"]),
            )
        )
    return out


# --------------------------------------------------------------------------- SGLang

# SGLang 0.5.17–0.5.23 (srt/managers/scheduler_components/metrics_reporter.py, the ``Decode batch`` msg):
# an optional `` [iter]`` (SGLANG_LOG_FORWARD_ITERS), and ``#full token:`` in place of ``#token:`` for
# hybrid SWA / linear-attention models (pool_stats_observer.get_decode_usage_msg_parts).
_SGL_DECODE = re.compile(
    r"Decode batch(?: \[\d+\])?[.,] #running-req: (?P<running>\d+), #(?:full )?token: (?P<tokens>\d+), .*?"
    r"accept len: (?P<len>[\d.]+)(?:, accept rate: (?P<rate>[\d.]+))?"
)
_SGL_THROUGHPUT = re.compile(r"gen throughput \(token/s\): (?P<tps>[\d.]+)")


@dataclass(frozen=True)
class SglangDecode:
    """SGLang's ``Decode batch. … accept len: X, accept rate: Y …`` scheduler line (interval averages)."""

    running: int
    tokens: int
    accept_len: float
    accept_rate: float | None
    gen_throughput: float | None


def sglang_decode_lines(text: str) -> list[SglangDecode]:
    """SGLang's ``Decode batch`` lines (with accept length) in the log."""
    out = []
    for line in text.splitlines():
        m = _SGL_DECODE.search(line)
        if not m:
            continue
        tps = _SGL_THROUGHPUT.search(line)
        out.append(
            SglangDecode(
                running=int(m["running"]),
                tokens=int(m["tokens"]),
                accept_len=float(m["len"]),
                accept_rate=float(m["rate"]) if m["rate"] else None,
                gen_throughput=float(tps["tps"]) if tps else None,
            )
        )
    return out


# --------------------------------------------------------------------------- failures

LLAMACPP_DFLASH2_FIX = (
    "serve the DFlash 2 drafter with llama.cpp instead: a GGUF target plus the DFlash 2 GGUF drafter "
    "with --spec-type draft-dflash (llama.cpp has no unquantized-head restriction)"
)

# (engine, pattern, reason). The pattern's first group, when present, is appended to the reason.
_FAILURES: list[tuple[str, re.Pattern[str], str]] = [
    ("llama.cpp", re.compile(r"failed to initialize speculative decoding context: ?(.*)"),
     "llama.cpp could not start the speculator and serves WITHOUT speculation"),
    ("llama.cpp", re.compile(r"speculative decoding not supported by this context"),
     "this target context cannot remove sequences, so llama.cpp disabled speculation"),
    ("llama.cpp", re.compile(r"DFlash2 model is missing conv/selector metadata"),
     "the DFlash 2 GGUF lacks its conv/selector metadata (re-convert the drafter)"),
    ("llama.cpp", re.compile(r"DFlash model requires 'target_layers' in GGUF metadata"),
     "the DFlash GGUF lacks dflash.target_layers (re-convert with --target-model-dir)"),
    ("llama.cpp", re.compile(r"draft model is not eagle3 \((.*)\)"),
     "the drafter is not an EAGLE3 model"),
    ("llama.cpp", re.compile(r"DSpark draft has no confidence head"),
     "the DSpark drafter has no confidence head: set --spec-draft-p-min 0"),
    ("llama.cpp", re.compile(r"exiting due to model loading error"),
     "llama-server could not load a model"),
    ("llama.cpp", re.compile(r"DFlash model has no target_layer_ids"),
     "the drafter is not a DFlash GGUF (no dflash.target_layers): use the spec type that matches it"),
    ("llama.cpp", re.compile(r"GGML_ASSERT\((.*)\) failed"),
     "llama-server aborted on an internal assertion"),
    ("vllm", re.compile(r"DFlash2 requires an unquantized target LM head for candidate TopK;? ?(.*)"),
     "vLLM refused DFlash 2: the target's LM head is quantized (the selector reads the head's top-K); "
     + LLAMACPP_DFLASH2_FIX),
    ("vllm", re.compile(r"Model Runner V1 does not support: (.*)"),
     "vLLM selected the V1 model runner, which cannot run this drafter (DFlash 2 needs Model Runner V2; "
     "unset VLLM_USE_V2_MODEL_RUNNER=0 and drop logits-processor plugins)"),
    ("vllm", re.compile(r"does not have non-causal support, which is required for DFlash"),
     "the drafter's attention backend is causal-only; "
     "set \"attention_backend\":\"flash_attn\" in the speculative config"),
    ("vllm", re.compile(r"CUDA error: an illegal memory access was encountered"),
     "CUDA illegal memory access (with DFlash on MRV2 a known cause is a drafter "
     "max_position_embeddings below --max-model-len, vLLM PR #57964)"),
    ("vllm", re.compile(r"Engine core initialization failed"),
     "the vLLM engine core failed to start (see the lines above it)"),
    # the DFlash2 wording is sglang issue #35534's build; 0.5.23 says "DFlash candidate top-k requires a
    # dense ... target lm_head or a supported lm_head.quant_method" (srt/models/dflash.py:127)
    ("sglang", re.compile(r"DFlash(?:2 selector| candidate top-k) requires a dense FP16/BF16/FP32 target lm_head"),
     "SGLang refused DFlash: the target's lm_head is quantized with no supported quant method "
     "(fixed for some by sglang PR #35496); " + LLAMACPP_DFLASH2_FIX),
]


@dataclass(frozen=True)
class LogFailure:
    """A known failure line found in a log, with the reason to show the user."""

    engine: str
    line: str
    reason: str


def known_failures(engine: str, text: str) -> list[LogFailure]:
    """Every known failure line of ``engine`` in ``text``, in log order, deduplicated by reason."""
    found: list[tuple[int, LogFailure]] = []
    seen: set[str] = set()
    for eng, pattern, reason in _FAILURES:
        if eng != engine:
            continue
        m = pattern.search(text)
        if m is None or reason in seen:
            continue
        seen.add(reason)
        start = text.rfind("\n", 0, m.start()) + 1
        end = text.find("\n", m.end())
        line = text[start : end if end >= 0 else len(text)].strip()
        detail = m.group(1).strip() if m.groups() and m.group(1) else ""
        found.append((m.start(), LogFailure(eng, line, f"{reason}" + (f" ({detail})" if detail else ""))))
    return [f for _, f in sorted(found, key=lambda t: t[0])]


def _last(pattern: re.Pattern[str], text: str) -> re.Match[str] | None:
    m = None
    for m in pattern.finditer(text):  # noqa: B007 - the last one is the freshest state
        pass
    return m
