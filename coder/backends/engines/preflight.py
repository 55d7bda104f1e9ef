"""Pre-flight: check local target/drafter files against an engine before launching anything.

One :class:`Check` per finding; the verdict is ``refuse`` when any check fails,
``provisional`` when something can only be proven by launching (a clean weight map is
necessary, not sufficient, for DFlash 2 on vLLM), else ``ok``. Rules and sources:
shared/research/backends.md §1.5 (llama.cpp GGUF keys), §2.1–§2.3 and §2.8 (vLLM), §3.1
(SGLang), §4 (detection), and the seeds' quantized-LM-head findings.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path

from coder.backends.engines.base import Check
from coder.backends.engines.logscan import LLAMACPP_DFLASH2_FIX
from coder.errors import CoderError
from coder.models.checkpoint import CheckpointInfo, inspect_checkpoint, lm_head_status
from coder.models.gguf_info import FAMILY_DFLASH2, FAMILY_DSPARK, GgufInfo, inspect_gguf

ENGINES = ("llama.cpp", "vllm", "sglang")
QUANT_HEAD_EXPLANATION = (
    "DFlash 2's selector reads the target's top-K candidates straight off the LM head, and vLLM "
    "refuses a quantized head at startup (ValueError: DFlash2 requires an unquantized target LM head "
    "for candidate TopK)"
)
# Entry-point groups through which vLLM loads logits-processor plugins; any of them forces the V1 runner.
LOGITS_PLUGIN_GROUPS = ("vllm.logits_processors",)
# Released vLLM versions whose DFlash 2 reads candidates through the head's own quant method
# (qwen3_dflash2.py compute_candidates -> LogitsProcessor.get_top_k_tokens) with no quantized-head
# refusal: read in the PyPI wheels 0.28.0-0.33.0 (tests/data/engines/SOURCES.md). The refusal quoted
# above is from development builds (commit 030da624, backends.md §2.3) and is still assumed elsewhere.
VLLM_QUANT_HEAD_ACCEPTED = ("0.28.0", "0.29.0", "0.30.0", "0.31.0", "0.32.0", "0.33.0")
# NVLink multicast (NVLS) in NCCL, torch symmetric memory and NVSHMEM, kept off for tensor-parallel launches
# unless the user's environment sets these itself: a multicast fault can leave a shared host's GPUs
# unusable for others, and an all-reduce over two or four GPUs of a small model gains little from it.
MULTICAST_OFF = {"NCCL_NVLS_ENABLE": "0", "TORCH_SYMM_MEM_DISABLE_MULTICAST": "1", "NVSHMEM_DISABLE_NVLS": "1"}


@dataclass
class PreflightReport:
    """Checks and verdict for one engine + target (+ drafter) combination."""

    engine: str
    model: str
    drafter: str | None
    checks: list[Check] = field(default_factory=list)
    family: str | None = None
    block_size: int | None = None
    k_max: int | None = None

    @property
    def verdict(self) -> str:
        """``ok``, ``provisional`` (something could not be checked) or ``refuse`` (a check failed)."""
        if any(c.ok is False for c in self.checks):
            return "refuse"
        if any(c.ok is None for c in self.checks):
            return "provisional"
        return "ok"

    @property
    def refused(self) -> bool:
        """True when a check failed outright (launching would not work)."""
        return self.verdict == "refuse"

    def add(self, name: str, ok: bool | None, detail: str) -> None:
        """Record one check (``ok``: True pass, False fail, None could not tell)."""
        self.checks.append(Check(name, ok, detail))


def format_report(report: PreflightReport) -> str:
    """One line per check, then the verdict line (what the CLI prints)."""
    mark = {True: "ok  ", False: "FAIL", None: "warn"}
    lines = [f"pre-flight for {report.engine}: target {report.model}"
             + (f", drafter {report.drafter}" if report.drafter else "")]
    width = max((len(c.name) for c in report.checks), default=0)
    lines += [f"  [{mark[c.ok]}] {c.name:<{width}}  {c.detail}" for c in report.checks]
    verdict = report.verdict
    tail = {
        "ok": "verdict: ok",
        "provisional": "verdict: provisional (launch and let coder verify the speculator before trusting it)",
        "refuse": "verdict: REFUSE (fix the failed checks above; nothing was launched)",
    }[verdict]
    lines.append(tail)
    return "\n".join(lines)


def run_preflight(
    engine: str,
    model: Path | str,
    drafter: Path | str | None = None,
    max_model_len: int | None = None,
    k: int | None = None,
    *,
    env: Mapping[str, str] | None = None,
    extra_args: Sequence[str] = (),
    engine_version: str | None = None,
    tensor_parallel_size: int | None = None,
) -> PreflightReport:
    """Run every check that local files allow for ``engine``; never launches anything.

    ``engine_version`` is the vLLM/SGLang release that will serve (default: the one installed here,
    if any); only rules known to differ between releases read it.
    """
    if engine not in ENGINES:
        raise CoderError(f"unknown engine {engine!r} (choose {', '.join(ENGINES)})")
    report = PreflightReport(engine, str(model), str(drafter) if drafter else None)
    if engine == "llama.cpp":
        _llamacpp(report, Path(model).expanduser(), Path(drafter).expanduser() if drafter else None, k)
    else:
        version = engine_version if engine_version is not None else _installed_version(engine)
        _hf(report, engine, model, drafter, max_model_len, k, os.environ if env is None else env, extra_args,
            version)
        if tensor_parallel_size and tensor_parallel_size > 1:
            problem = tensor_parallel_problem(tensor_parallel_size, model, os.environ if env is None else env)
            report.add("tensor parallel", problem is None,
                       problem or f"{tensor_parallel_size}: enough GPUs visible, the heads divide evenly")
    return report


# --------------------------------------------------------------------------- tensor parallelism


def visible_gpus(env: Mapping[str, str], physical: Sequence[str] | None = None) -> tuple[int, str]:
    """How many GPUs a launch from ``env`` can use, and how that was read (nvidia-smi, CUDA_VISIBLE_DEVICES).

    ``physical`` is nvidia-smi's one line per GPU (default: asked now). CUDA stops at the first
    entry of CUDA_VISIBLE_DEVICES it cannot use ("-1" hides all), so the count does too.
    """
    from coder.hardware import gpus

    found = list(gpus() if physical is None else physical)
    if not found:
        return 0, "no NVIDIA GPU on this machine (nvidia-smi lists none)"
    listed = env.get("CUDA_VISIBLE_DEVICES")
    if listed is None:
        return len(found), f"{len(found)} GPU(s) (nvidia-smi)"
    usable = 0
    for entry in (e.strip() for e in listed.split(",")):
        if not (entry.startswith(("GPU-", "MIG-")) or (entry.isdigit() and int(entry) < len(found))):
            break
        usable += 1
    usable = min(usable, len(found))
    return usable, f"{usable} of {len(found)} GPU(s) visible (CUDA_VISIBLE_DEVICES={listed!r})"


def tensor_parallel_problem(tp: int, model: Path | str | None, env: Mapping[str, str],
                            physical: Sequence[str] | None = None, *, count_gpus: bool = True) -> str | None:
    """Why ``tensor_parallel_size = tp`` cannot launch ``model`` here, in one line; None when it can.

    vLLM's rules: the attention heads must divide by tp (``ModelConfig.verify_with_parallel_config``),
    and the KV heads must divide by tp or, when tp exceeds them, tp by the KV heads (each KV head is
    then replicated: ``QKVParallelLinear``). A Hub id cannot be read here: only the GPU count is checked.
    """
    if tp <= 1:
        return None
    problems: list[str] = []
    if count_gpus:
        have, how = visible_gpus(env, physical)
        if tp > have:
            problems.append(f"{tp} GPUs asked, {how}")
    heads = kv = None
    with contextlib.suppress(CoderError):  # not a local checkpoint: its heads cannot be read
        info = inspect_checkpoint(Path(str(model)).expanduser())
        heads, kv = info.num_attention_heads, info.num_key_value_heads or info.num_attention_heads
    if heads and heads % tp:
        problems.append(f"{heads} attention heads do not divide by {tp}")
    if kv and (kv % tp if tp < kv else tp % kv):
        problems.append(f"{kv} KV heads and {tp} do not divide one by the other")
    if not problems:
        return None
    return f"tensor_parallel_size = {tp} refused: " + "; ".join(problems)


# --------------------------------------------------------------------------- llama.cpp (GGUF)


def _llamacpp(report: PreflightReport, model: Path, drafter: Path | None, k: int | None) -> None:
    target = _gguf(report, "target", model)
    if drafter is None:
        if target is not None and target.has_mtp_heads:
            detail = f"MTP heads in the target ({target.mtp_layers}): --spec-type draft-mtp"
            report.add("drafter", True, detail)
        else:
            report.add("drafter", True, "none (n-gram speculation or no speculation)")
        return
    draft = _gguf(report, "drafter", drafter)
    if draft is None:
        return
    if draft.drafter_family is None:
        report.add("drafter family", None, f"plain {draft.architecture} model: needs --spec-type "
                   "draft-simple (plain drafts are not auto-detected)")
    else:
        block = f", block size {draft.block_size}" if draft.block_size else ""
        default = " (dflash.block_size absent: runtime default)" if draft.block_size_defaulted else ""
        detail = f"{draft.drafter_family}{block}{default} → --spec-type {draft.spec_type}"
        report.add("drafter family", True, detail)
    report.family, report.block_size, report.k_max = draft.drafter_family, draft.block_size, draft.k_max
    if draft.dflash2_missing:
        report.add("DFlash 2 metadata", False, f"missing {', '.join(draft.dflash2_missing)}: llama.cpp refuses "
                   "it ('DFlash2 model is missing conv/selector metadata'); re-convert the drafter")
    if draft.architecture == "dflash" and not draft.target_layers:
        report.add("target layers", False, "dflash.target_layers missing: llama.cpp refuses this drafter "
                   "(re-convert with --target-model-dir)")
    elif draft.target_layers and target is not None and target.block_count:
        # the converter stores layer id + 1
        bad = [t for t in draft.target_layers if t - 1 >= target.block_count]
        report.add("target layers", not bad, f"extract layers {draft.target_layers} (id+1) vs target's "
                   f"{target.block_count} layers" + (f": {bad} out of range" if bad else ""))
    _k_cap(report, k, clamps=True)
    if target is not None and draft.vocab_size and target.vocab_size:
        same = draft.vocab_size == target.vocab_size
        report.add("vocab", same, f"target {target.vocab_size}, drafter {draft.vocab_size}")
    if draft.drafter_family == FAMILY_DFLASH2:
        report.add("LM head", True, "llama.cpp reads the target head whatever its quantization")


def _gguf(report: PreflightReport, role: str, path: Path) -> GgufInfo | None:
    try:
        info = inspect_gguf(path)
    except CoderError as exc:
        report.add(role, False, str(exc))
        return None
    ctx, vocab = info.context_length or "?", info.vocab_size or "?"
    report.add(role, True, f"{info.architecture}, context {ctx}, vocab {vocab}")
    return info


def _k_cap(report: PreflightReport, k: int | None, clamps: bool) -> None:
    if k is None or report.k_max is None:
        return
    if k <= 0:
        report.add("k", False, f"k={k}: must be at least 1")
    elif k > report.k_max:
        unit = "block_size" if report.family == FAMILY_DSPARK else "block_size−1"
        if clamps:
            report.add("k", None, f"k={k} > largest useful k {report.k_max} ({unit}): llama.cpp clamps to "
                       f"{report.k_max}; set k={report.k_max}")
        else:
            report.add("k", False, f"k={k} > largest useful k {report.k_max} ({unit} of the drafter)")
    else:
        report.add("k", True, f"k={k} ≤ {report.k_max}")


# --------------------------------------------------------------------------- vLLM / SGLang (HF checkpoints)


def _checkpoint(report: PreflightReport, role: str, ref: Path | str) -> CheckpointInfo | None:
    path = Path(ref).expanduser()
    if not path.exists():
        # vLLM/SGLang also take Hub ids; those cannot be read here
        report.add(role, None, f"{ref} is not a local path: its files cannot be checked before launch")
        return None
    if path.suffix == ".gguf":
        report.add(role, False, f"{path.name} is a GGUF; this engine needs a Hugging Face checkpoint dir")
        return None
    try:
        info = inspect_checkpoint(path)
    except CoderError as exc:
        report.add(role, False, str(exc))
        return None
    arch = ", ".join(info.architectures) or info.model_type or "?"
    report.add(role, True, f"{arch}, vocab {info.vocab_size or '?'}, "
               f"max_position_embeddings {info.max_position_embeddings or '?'}")
    return info


def _hf(
    report: PreflightReport,
    engine: str,
    model: Path | str,
    drafter: Path | str | None,
    max_model_len: int | None,
    k: int | None,
    env: Mapping[str, str],
    extra_args: Sequence[str],
    version: str | None = None,
) -> None:
    target = _checkpoint(report, "target", model)
    if target is not None and target.mtp_layers:
        report.add("MTP", True, f"target has {target.mtp_layers} MTP layer(s): usable with method mtp")
    if drafter is None:
        return
    draft = _checkpoint(report, "drafter", drafter)
    if draft is None:
        return
    fam = draft.drafter_family
    report.family, report.block_size, report.k_max = fam, draft.block_size, draft.k_max
    _family_line(report, draft)
    dflash2 = fam == FAMILY_DFLASH2
    if dflash2 and engine == "vllm" and "DFlash2DraftModel" not in draft.architectures:
        report.add("DFlash 2 dispatch", False, "the config has DFlash 2 fields but architectures lacks "
                   "DFlash2DraftModel: vLLM picks the speculator by architecture and would draft as DFlash 1")
    _k_cap(report, k, clamps=False)
    if dflash2 and engine == "vllm" and k is not None and report.k_max and 0 < k < report.k_max:
        report.add("k", False, f"DFlash 2 on vLLM runs its in-block convolution over 1+k positions, so serve "
                   f"it with k={report.k_max} (block size {draft.block_size} − 1), not {k}")

    if target is not None:
        _pair_checks(report, engine, draft, target, dflash2, version)

    _context_check(report, engine, draft, target, max_model_len)
    if engine == "vllm" and fam in (FAMILY_DFLASH2, FAMILY_DSPARK):
        _v2_runner(report, fam, env, extra_args)


def _family_line(report: PreflightReport, draft: CheckpointInfo) -> None:
    fam = draft.drafter_family
    if fam is None:
        report.add("drafter family", None, f"architectures {draft.architectures}: not a recognised drafter "
                   "(DFlash, DFlash 2, DSpark, EAGLE3)")
        return
    why = f" ({'; '.join(draft.dflash2_signals)})" if draft.dflash2_signals else ""
    block = f", block size {draft.block_size} [{draft.block_size_source}]" if draft.block_size else ""
    variant = f", {draft.variant} variant" if draft.variant else ""
    report.add("drafter family", True, f"{fam}{why}{variant}{block}")


def _pair_checks(report: PreflightReport, engine: str, draft: CheckpointInfo, target: CheckpointInfo,
                 dflash2: bool, version: str | None = None) -> None:
    if draft.vocab_size and target.vocab_size:
        report.add("vocab", draft.vocab_size == target.vocab_size,
                   f"target {target.vocab_size}, drafter {draft.vocab_size}")
    if draft.target_layer_ids and target.num_hidden_layers:
        bad = [i for i in draft.target_layer_ids if i >= target.num_hidden_layers]
        report.add("target layers", not bad, f"target_layer_ids {draft.target_layer_ids} vs target's "
                   f"{target.num_hidden_layers} layers" + (f": {bad} out of range" if bad else ""))
    if dflash2:
        _head(report, engine, target, version)


def _context_check(report: PreflightReport, engine: str, draft: CheckpointInfo, target: CheckpointInfo | None,
                   max_model_len: int | None) -> None:
    served = max_model_len or (target.max_position_embeddings if target else None)
    if draft.drafter_family is not None and draft.max_position_embeddings and served:
        short = draft.max_position_embeddings < served
        src = "--max-model-len" if max_model_len else "the target's max_position_embeddings"
        detail = f"drafter max_position_embeddings {draft.max_position_embeddings} vs {src} {served}"
        if short and engine == "vllm":
            report.add("drafter context", False, detail + ": vLLM's V2 runner crashes (CUDA illegal "
                       f"memory access) on the first request past it (vLLM PR #57964); pass --max-model-len "
                       f"{draft.max_position_embeddings} or less")
        else:
            report.add("drafter context", None if short else True,
                       detail + (": drafts stop helping past the drafter's context" if short else ""))


def _installed_version(engine: str) -> str | None:
    try:
        return metadata.version(engine)
    except metadata.PackageNotFoundError:
        return None


def _head(report: PreflightReport, engine: str, target: CheckpointInfo, version: str | None = None) -> None:
    status = lm_head_status(target)
    if status.state == "quantized":
        if engine == "vllm" and version in VLLM_QUANT_HEAD_ACCEPTED:
            report.add("LM head", None, f"quantized ({status.reason}); vLLM {version} does not refuse it: its DFlash 2 "
                       "takes the candidate top-K through the head's own quantized matmul (the unquantized-head "
                       "refusal exists only in development builds); only the launch proves acceptance")
        elif engine == "vllm":
            fix = LLAMACPP_DFLASH2_FIX[0].upper() + LLAMACPP_DFLASH2_FIX[1:]
            report.add("LM head", False, f"{QUANT_HEAD_EXPLANATION}: {status.reason}. {fix}")
        else:
            report.add("LM head", None, f"quantized ({status.reason}): SGLang before PR #35496 refuses it "
                       "(DFlash2 selector requires a dense target lm_head)")
    elif status.state == "unknown":
        report.add("LM head", None, f"cannot tell whether the head is quantized: {status.reason}")
    elif engine == "vllm":
        report.add("LM head", None, f"looks unquantized ({status.reason}); necessary, not sufficient: "
                   "only the launch proves vLLM accepts it")
    else:
        report.add("LM head", True, f"unquantized ({status.reason})")


def _v2_runner(report: PreflightReport, fam: str, env: Mapping[str, str], extra_args: Sequence[str]) -> None:
    forcing: list[str] = []
    if env.get("VLLM_USE_V2_MODEL_RUNNER", "").strip() in ("0", "false", "False"):
        forcing.append("VLLM_USE_V2_MODEL_RUNNER=0 in the environment")
    if any(a == "--logits-processors" or a.startswith("--logits-processors=") for a in extra_args):
        forcing.append("--logits-processors in the extra args")
    for group in LOGITS_PLUGIN_GROUPS:
        names = [ep.name for ep in metadata.entry_points(group=group)]
        if names:
            forcing.append(f"logits-processor plugin(s) {', '.join(names)} installed ({group})")
    if forcing:
        report.add("model runner", False, f"{fam} needs vLLM's V2 model runner, but "
                   f"{'; '.join(forcing)} forces V1 (vLLM then fails with 'Model Runner V1 does not "
                   "support', older builds silently drafted as DFlash 1)")
    else:
        report.add("model runner", True, "nothing forces the V1 runner "
                   "(the launch must log 'Using V2 Model Runner')")
