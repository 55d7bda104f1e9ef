"""Drafter/target facts from a GGUF file's metadata, read in one bounded pass (:mod:`coder.models.gguf_meta`).

The key and tensor names follow llama.cpp build 11434 (gguf-py ``constants.py``,
``src/models/dflash.cpp``): every DFlash-family drafter has ``general.architecture ==
"dflash"``; DFlash 2 adds ``dflash.selector_top_k > 0`` (and ``selector_hidden.weight``);
DSpark adds the ``markov_w1.weight`` tensor. A target with MTP heads carries
``blk.{N-1}.nextn.eh_proj.weight`` / ``<arch>.nextn_predict_layers``.
"""

from __future__ import annotations

import copy
import functools
from dataclasses import asdict, dataclass, field
from pathlib import Path

from coder.errors import CoderError
from coder.jsontypes import JSONObject
from coder.models.gguf_meta import read_meta

DEFAULT_BLOCK_SIZE = 16  # llama.cpp's runtime default when dflash.block_size is absent
# with selector_hidden.weight present, llama.cpp's loader requires all of these > 0 (src/models/dflash.cpp)
DFLASH2_KEYS = ("dflash.selector_rank", "dflash.block_size", "dflash.selector_top_k",
                "dflash.conv_kernel_size", "dflash.conv_group_size")

FAMILY_DFLASH = "DFlash"
FAMILY_DFLASH2 = "DFlash 2"
FAMILY_DSPARK = "DSpark"
FAMILY_EAGLE3 = "EAGLE3"


def k_max_for(family: str | None, block_size: int | None) -> int | None:
    """Largest useful k: block_size−1 for DFlash/DFlash 2 (the anchor takes a slot), block_size for DSpark."""
    if block_size is None or family is None:
        return None
    if family in (FAMILY_DFLASH, FAMILY_DFLASH2):
        return max(block_size - 1, 1)
    if family == FAMILY_DSPARK:
        return block_size
    return None


@dataclass
class GgufInfo:
    """What ``coder model inspect`` prints for one GGUF file."""

    path: str
    architecture: str
    name: str | None = None
    context_length: int | None = None
    vocab_size: int | None = None
    block_count: int | None = None
    embedding_length: int | None = None
    drafter_family: str | None = None  # DFlash / DFlash 2 / DSpark / EAGLE3; None for a plain model
    block_size: int | None = None
    block_size_defaulted: bool = False  # dflash.block_size absent: the runtime assumes 16
    k_max: int | None = None
    has_mtp_heads: bool = False
    mtp_layers: int | None = None
    target_layers: list[int] = field(default_factory=list)
    selector_top_k: int | None = None
    dflash2_missing: list[str] = field(default_factory=list)  # DFlash 2 keys llama.cpp's loader requires
    spec_type: str | None = None  # the llama.cpp --spec-type this file serves with
    chat_template: bool = False  # tokenizer.chat_template present (coder needs it to chat with a target)

    def to_dict(self) -> JSONObject:
        """All fields as a dict (for ``--json``)."""
        return asdict(self)


CHAT_TEMPLATE_KEY = "tokenizer.chat_template"


def _int(value: object) -> int | None:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None


def inspect_gguf(path: Path | str) -> GgufInfo:
    """Read architecture, sizes and drafter family of a GGUF; CoderError on a missing or corrupt file."""
    p = Path(path).expanduser()
    if not p.is_file():
        raise CoderError(f"{p}: no such file")
    st = p.stat()
    # a file version is read once per process (the TUI and doctor ask again and again)
    info = copy.deepcopy(_inspect_cached(str(p.resolve()), st.st_size, st.st_mtime_ns))
    info.path = str(p)
    return info


@functools.lru_cache(maxsize=32)
def _inspect_cached(path: str, size: int, mtime_ns: int) -> GgufInfo:
    return _inspect(Path(path))


def check_magic(path: Path, label: str = "model") -> None:
    """One line unless ``path`` starts with the GGUF magic."""
    try:
        with path.open("rb") as fh:
            magic = fh.read(4)
    except OSError as exc:
        raise CoderError(f"{label} {path}: cannot read: {exc.strerror}") from None
    if magic != b"GGUF":
        raise CoderError(f"{label} is not a GGUF file (bad magic): {path}")


def check_chat_model(path: Path) -> None:
    """One line unless ``path`` is a GGUF that carries a chat template (coder chats with its target)."""
    if CHAT_TEMPLATE_KEY not in read_meta(path).values:
        raise CoderError(f"{path}: the GGUF has no chat template ({CHAT_TEMPLATE_KEY}); coder needs an "
                         "instruct model that carries one")


def _inspect(p: Path) -> GgufInfo:
    meta = read_meta(p)
    _value = meta.values.get
    arch = _value("general.architecture")
    if not isinstance(arch, str) or not arch:
        raise CoderError(f"{p}: GGUF lacks general.architecture")
    tensors = meta.tensors
    name = _value("general.name")
    vocab = _int(_value(f"{arch}.vocab_size")) or meta.array_lengths.get("tokenizer.ggml.tokens")
    info = GgufInfo(
        path=str(p),
        architecture=arch,
        name=name if isinstance(name, str) else None,
        context_length=_int(_value(f"{arch}.context_length")),
        vocab_size=vocab,
        block_count=_int(_value(f"{arch}.block_count")),
        embedding_length=_int(_value(f"{arch}.embedding_length")),
        chat_template=CHAT_TEMPLATE_KEY in meta.values,
    )

    if arch == "dflash":
        top_k = _int(_value("dflash.selector_top_k"))
        info.selector_top_k = top_k
        if "markov_w1.weight" in tensors:
            info.drafter_family, info.spec_type = FAMILY_DSPARK, "draft-dspark"
        elif (top_k or 0) > 0 or "selector_hidden.weight" in tensors:
            info.drafter_family, info.spec_type = FAMILY_DFLASH2, "draft-dflash"
            info.dflash2_missing = [k for k in DFLASH2_KEYS if (_int(_value(k)) or 0) <= 0]
        else:
            info.drafter_family, info.spec_type = FAMILY_DFLASH, "draft-dflash"
        block = _int(_value("dflash.block_size"))
        info.block_size_defaulted = block is None
        info.block_size = block if block is not None else DEFAULT_BLOCK_SIZE
        layers = _value("dflash.target_layers")
        if isinstance(layers, list):
            info.target_layers = [x for x in layers if isinstance(x, int) and not isinstance(x, bool)]
    elif arch == "eagle3":
        info.drafter_family, info.spec_type = FAMILY_EAGLE3, "draft-eagle3"
    else:
        nextn = _int(_value(f"{arch}.nextn_predict_layers"))
        last = (info.block_count or 0) - 1
        has_head_tensor = last >= 0 and f"blk.{last}.nextn.eh_proj.weight" in tensors
        if has_head_tensor or (nextn or 0) > 0:
            info.has_mtp_heads = True
            info.mtp_layers = nextn if nextn else 1
            info.spec_type = "draft-mtp"
    info.k_max = k_max_for(info.drafter_family, info.block_size)
    return info


def format_info(info: GgufInfo) -> list[str]:
    """Human lines for ``coder model inspect``."""
    rows = [
        ("file", info.path),
        ("architecture", info.architecture),
        ("name", info.name or "-"),
        ("context length", str(info.context_length or "-")),
        ("vocab size", str(info.vocab_size or "-")),
        ("layers", str(info.block_count or "-")),
        ("chat template", "yes" if info.chat_template else "no"),
    ]
    if info.drafter_family:
        size = f"{info.block_size}" + (" (absent: runtime default)" if info.block_size_defaulted else "")
        rows.append(("drafter", info.drafter_family))
        if info.block_size is not None and info.drafter_family != FAMILY_EAGLE3:
            rows.append(("block size", size))
        if info.k_max is not None:
            rows.append(("largest useful k", str(info.k_max)))
    elif info.has_mtp_heads:
        rows.append(("drafter", f"MTP heads in target ({info.mtp_layers} layer(s))"))
    else:
        rows.append(("drafter", "none (plain model)"))
    if info.spec_type:
        rows.append(("llama.cpp --spec-type", info.spec_type))
    width = max(len(k) for k, _ in rows)
    return [f"{k:<{width}}  {v}" for k, v in rows]
