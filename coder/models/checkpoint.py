"""Facts about a local Hugging Face checkpoint directory, read from its JSON files only.

Reads ``config.json`` (drafter family, block size, vocab, context), the safetensors
weight names (``model.safetensors.index.json``'s ``weight_map``, or the headers of the
``*.safetensors`` files themselves) and the quantization config (``quantization_config``
in config.json, or ModelOpt's ``hf_quant_config.json``). Detection follows
shared/research/backends.md §4; the LM-head rules follow how vLLM builds the head for
each quantization format (§2.3 and the seeds' pre-flight check).
"""

from __future__ import annotations

import fnmatch
import json
import re
import struct
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from coder.errors import CoderError
from coder.fsutil import read_json
from coder.jsontypes import JSONObject
from coder.models.gguf_info import (
    DEFAULT_BLOCK_SIZE,
    FAMILY_DFLASH,
    FAMILY_DFLASH2,
    FAMILY_DSPARK,
    FAMILY_EAGLE3,
    k_max_for,
)

DFLASH2_ARCHS = {"DFlash2DraftModel"}
DFLASH_ARCHS = {"DFlashDraftModel", "Qwen3DFlashDraftModel", "MuseGlimmerAssistantModel"}
DSPARK_ARCHS = {"Qwen3DSparkModel", "DSparkDraftModel", "DSparkSpeculator", "Gemma4DSparkModel"}
EAGLE3_ARCHS = {"LlamaForCausalLMEagle3", "Eagle3LlamaForCausalLM", "Eagle3Speculator"}
DFLASH2_CONFIG_KEYS = ("selector_rank", "selector_top_k", "conv_kernel_size", "conv_group_size")

# Formats whose vLLM config never builds ParallelLMHead quantized (they only replace LinearBase layers).
KNOWN_HEAD_SAFE = ("fp8", "awq", "awq_marlin", "bitsandbytes", "bnb", "gguf", "mxfp4", "fbgemm_fp8")

# Tensor-name suffixes that only exist when a weight is stored quantized (compressed-tensors,
# ModelOpt, FP8 block scales, GPTQ/AWQ/AutoRound packing, bitsandbytes).
QUANT_SUFFIXES = (
    "weight_scale", "weight_scale_inv", "weight_scale_2", "weight_global_scale", "weight_packed",
    "weight_shape", "weight_zero_point", "input_scale", "input_global_scale", "qweight", "qzeros",
    "scales", "g_idx", "SCB", "absmax", "quant_map", "quant_state", "nested_absmax",
)
_HEAD_KEY = re.compile(r"(?:^|\.)lm_head\.(?P<rest>.+)$")
_EMBED_KEY = re.compile(r"(?:^|\.)embed_tokens\.(?P<rest>.+)$")
EXCLUDE_FIELDS = (
    "modules_to_not_convert", "ignore", "ignored_layers", "exclude_modules", "llm_int8_skip_modules",
)


@dataclass
class HeadStatus:
    """Whether the target's LM head would be quantized when vLLM builds it."""

    state: str  # "quantized" | "clean" | "unknown"
    reason: str
    certain: bool = False  # True only when the weights themselves show it


@dataclass
class CheckpointInfo:
    """What pre-flight needs from one checkpoint directory."""

    path: str
    architectures: list[str] = field(default_factory=list)
    model_type: str | None = None
    vocab_size: int | None = None
    max_position_embeddings: int | None = None
    num_hidden_layers: int | None = None
    num_attention_heads: int | None = None
    num_key_value_heads: int | None = None  # None: the config names none (then as many as attention heads)
    drafter_family: str | None = None
    variant: str | None = None  # Domino / JetSpec sub-variants of DFlash
    dflash2_signals: list[str] = field(default_factory=list)
    block_size: int | None = None
    block_size_source: str | None = None
    k_max: int | None = None
    target_layer_ids: list[int] = field(default_factory=list)
    mtp_layers: int | None = None
    tie_word_embeddings: bool = False
    quantization: JSONObject | None = None
    quant_source: str | None = None
    weight_names: list[str] | None = None  # None when no weight index or safetensors header was found
    weight_source: str | None = None

    @property
    def quant_method(self) -> str | None:
        """The quantization method named in the config, lower-cased."""
        if not self.quantization:
            return None
        method = self.quantization.get("quant_method") or self.quantization.get("quant_algo")
        return str(method).lower() if method else None

    @property
    def head_keys(self) -> list[str]:
        """Weight names that belong to the LM head."""
        return [n for n in self.weight_names or [] if _HEAD_KEY.search(n)]


def _read_json(path: Path) -> dict[str, Any]:
    data = read_json(path)
    if not isinstance(data, dict):
        raise CoderError(f"{path}: expected a JSON object")
    return data


def safetensors_names(path: Path) -> list[str]:
    """Tensor names from a .safetensors header (8-byte length + JSON), without reading the weights."""
    try:
        with path.open("rb") as fh:
            raw = fh.read(8)
            if len(raw) != 8:
                raise CoderError(f"{path}: truncated safetensors file")
            (size,) = struct.unpack("<Q", raw)
            if size > 100 * 1024 * 1024:
                raise CoderError(f"{path}: implausible safetensors header size {size}")
            header = json.loads(fh.read(size))
    except OSError as exc:
        raise CoderError(f"{path}: cannot read: {exc.strerror}") from None
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise CoderError(f"{path}: corrupt safetensors header") from None
    return [k for k in header if k != "__metadata__"]


def _weight_names(root: Path) -> tuple[list[str] | None, str | None]:
    index = root / "model.safetensors.index.json"
    if index.is_file():
        wmap = _read_json(index).get("weight_map")
        if not isinstance(wmap, dict):
            raise CoderError(f"{index}: no weight_map object")
        return list(wmap), index.name
    shards = sorted(root.glob("*.safetensors"))
    if shards:
        names: list[str] = []
        for shard in shards:
            names.extend(safetensors_names(shard))
        return names, ", ".join(s.name for s in shards[:3]) + (" …" if len(shards) > 3 else "")
    return None, None


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _family(cfg: dict[str, Any], archs: list[str]) -> tuple[str | None, list[str]]:
    dcfg: dict[str, Any] = cfg["dflash_config"] if isinstance(cfg.get("dflash_config"), dict) else {}
    signals = [f"architectures has {a}" for a in archs if a in DFLASH2_ARCHS]
    signals += [f"dflash_config.{k}" for k in DFLASH2_CONFIG_KEYS if k in dcfg]
    if set(archs) & DSPARK_ARCHS or any(k.startswith("markov_") for k in {**cfg, **dcfg}):
        return FAMILY_DSPARK, []
    if signals:
        return FAMILY_DFLASH2, signals
    if set(archs) & DFLASH_ARCHS or "dflash_config" in cfg:
        return FAMILY_DFLASH, []
    if set(archs) & EAGLE3_ARCHS or "eagle3" in str(cfg.get("speculators_model_type", "")).lower():
        return FAMILY_EAGLE3, []
    return None, []


def inspect_checkpoint(path: Path | str) -> CheckpointInfo:
    """Read a checkpoint directory (or its config.json); CoderError when it is not one."""
    p = Path(path).expanduser()
    root = p.parent if p.is_file() and p.name == "config.json" else p
    if not root.is_dir():
        raise CoderError(f"{p}: not a checkpoint directory")
    config_path = root / "config.json"
    if not config_path.is_file():
        raise CoderError(f"{root}: no config.json (not a Hugging Face checkpoint)")
    cfg = _read_json(config_path)
    text: dict[str, Any] = cfg["text_config"] if isinstance(cfg.get("text_config"), dict) else {}

    def get(key: str) -> Any:
        return cfg.get(key, text.get(key))

    archs = [str(a) for a in cfg.get("architectures") or []]
    info = CheckpointInfo(
        path=str(root),
        architectures=archs,
        model_type=cfg.get("model_type"),
        vocab_size=_int(get("vocab_size")),
        max_position_embeddings=_int(get("max_position_embeddings")),
        num_hidden_layers=_int(get("num_hidden_layers")),
        num_attention_heads=_int(get("num_attention_heads")),
        num_key_value_heads=_int(get("num_key_value_heads")),
        tie_word_embeddings=bool(get("tie_word_embeddings")),
    )
    info.drafter_family, info.dflash2_signals = _family(cfg, archs)
    dcfg: dict[str, Any] = cfg["dflash_config"] if isinstance(cfg.get("dflash_config"), dict) else {}
    if info.drafter_family in (FAMILY_DFLASH, FAMILY_DFLASH2, FAMILY_DSPARK):
        if _int(dcfg.get("block_size")):
            info.block_size, info.block_size_source = dcfg["block_size"], "dflash_config.block_size"
        elif _int(cfg.get("block_size")):
            info.block_size, info.block_size_source = cfg["block_size"], "block_size"
        else:
            info.block_size, info.block_size_source = DEFAULT_BLOCK_SIZE, "absent: engines assume 16"
        ids = dcfg.get("target_layer_ids") or cfg.get("target_layer_ids") or []
        info.target_layer_ids = [int(i) for i in ids if isinstance(i, int)]
        if dcfg.get("projector_type") == "domino":
            info.variant = "Domino"
        elif dcfg.get("causal") is True:
            info.variant = "JetSpec"
    info.k_max = k_max_for(info.drafter_family, info.block_size)
    info.mtp_layers = _int(get("num_nextn_predict_layers")) or _int(get("mtp_num_hidden_layers"))

    quant = get("quantization_config")
    if isinstance(quant, dict):
        info.quantization, info.quant_source = quant, "config.json quantization_config"
    elif (root / "hf_quant_config.json").is_file():
        hq = _read_json(root / "hf_quant_config.json")
        body: dict[str, Any] = hq["quantization"] if isinstance(hq.get("quantization"), dict) else hq
        info.quantization = {"quant_method": "modelopt", **body}
        info.quant_source = "hf_quant_config.json"
    info.weight_names, info.weight_source = _weight_names(root)
    return info


def _excluded(patterns: list[str], module: str = "lm_head") -> bool:
    """True when an exclusion list names the head (name, suffix, glob, or compressed-tensors ``re:``)."""
    for pat in patterns:
        if pat.startswith("re:"):
            if re.search(pat[3:], module) or re.search(pat[3:], f"model.{module}"):
                return True
        elif pat == module or pat.endswith("." + module) or fnmatch.fnmatch(module, pat):
            return True
    return False


def _exclusions(quant: dict[str, Any]) -> tuple[list[str], list[str]]:
    fields_found, patterns = [], []
    for key in EXCLUDE_FIELDS:
        val = quant.get(key)
        if isinstance(val, list):
            fields_found.append(key)
            patterns += [str(v) for v in val]
    return fields_found, patterns


def lm_head_status(info: CheckpointInfo) -> HeadStatus:
    """Decide whether vLLM would build a quantized LM head for this target.

    The weights decide first (a scale or packed tensor on the head is certain). Then the
    quantization config: formats whose config quantizes every Linear unless told otherwise
    (compressed-tensors, ModelOpt) must list the head in their exclusions; GPTQ/AutoRound
    can opt the head in; and vLLM's AutoRound/INC path hands even an unquantized head a
    linear method that the original DFlash 2 check rejects (the seeds' AutoRound case).
    """
    head = info.head_keys
    if not head and info.tie_word_embeddings:
        head = [n for n in info.weight_names or [] if _EMBED_KEY.search(n)]
    quantized = [n for n in head if n.rsplit(".", 1)[-1] in QUANT_SUFFIXES or ".quant_state." in n]
    if quantized:
        return HeadStatus("quantized", f"the weights carry {', '.join(sorted(quantized)[:4])}", certain=True)

    quant = info.quantization
    if not quant:
        if info.weight_names is None:
            return HeadStatus("unknown", "no weight index or safetensors header to read")
        return HeadStatus("clean", f"no quantization_config; head tensors: {', '.join(head) or 'none'}")
    method = info.quant_method or "unknown"
    fields_found, patterns = _exclusions(quant)
    excluded = _excluded(patterns)
    where = f"{info.quant_source} (quant_method {method!r})"

    if (verdict := _config_verdict(method, quant, where, excluded, fields_found)) is not None:
        return verdict
    shown = ", ".join(head) if head else "none (tied to embeddings)" if info.tie_word_embeddings else "none"
    return HeadStatus(
        "clean",
        f"head tensors {shown} in {info.weight_source or 'no weight index'}; {where}"
        + (" excludes lm_head" if excluded else " leaves the head unquantized in vLLM"),
    )


def _config_verdict(method: str, quant: dict[str, Any], where: str, excluded: bool,
                    fields_found: list[str]) -> HeadStatus | None:
    """What the quantization config alone says about the head (None: it does not decide)."""
    if method == "gptq" or method == "gptqmodel":
        if quant.get("lm_head") is True:
            return HeadStatus("quantized", f"{where} sets lm_head: true")
    elif method in ("auto-round", "intel/auto-round", "inc", "autoround"):
        extra: dict[str, Any] = quant["extra_config"] if isinstance(quant.get("extra_config"), dict) else {}
        head_cfg = next((v for k, v in extra.items() if _excluded([k]) and isinstance(v, dict)), None)
        if quant.get("quant_lm_head") is True or (head_cfg and int(head_cfg.get("bits", 16)) < 16):
            return HeadStatus("quantized", f"{where} quantizes lm_head")
        return HeadStatus(
            "quantized",
            f"{where}: an AutoRound checkpoint whose weight map looks clean still fails; vLLM's INC path "
            "gives the unquantized head UnquantizedLinearMethod, which the DFlash 2 check rejected until "
            "vLLM PR #52883 (the seeds' AutoRound case: confirm by launching, not by reading the config)",
        )
    elif method in ("compressed-tensors", "modelopt", "modelopt_fp4", "nvfp4", "fp4", "quark"):
        algo = str(quant.get("quant_algo", "")).upper()
        if method == "modelopt" and algo.startswith("FP8"):
            pass  # ModelOpt FP8, like vLLM's fp8 config, leaves ParallelLMHead unquantized
        elif not excluded:
            listed = "/".join(fields_found) or "ignore/exclude_modules"
            return HeadStatus(
                "quantized",
                f"{where} does not exclude lm_head ({listed} lacks it), so the head is built quantized",
            )
    elif method not in KNOWN_HEAD_SAFE and not excluded:
        return HeadStatus("unknown", f"{where}: format not recognised and lm_head not listed as excluded")
    return None
