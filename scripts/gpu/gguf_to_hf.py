#!/usr/bin/env python3
"""Turn a GGUF model into a Hugging Face checkpoint directory (config, tokenizer, bf16 safetensors).

    python scripts/gpu/gguf_to_hf.py model.gguf out_dir [tokenizer_dir]

vLLM 0.24+ reads GGUF only through the separate ``vllm-gguf-plugin`` (a compiled extension built
against one torch) and, even then, wants an HF ``config.json`` beside the file; SGLang likewise. The
GPU device has transformers and torch, so its CPU dequantizes the Q4_K_M weights once here through
transformers' GGUF loader (needs the ``gguf`` package) and vLLM serves the plain checkpoint.
Building the tokenizer from the GGUF's vocabulary is the slow part (minutes on a busy 2-core CPU):
``tokenizer_dir``, when given, holds tokenizer files saved earlier and is copied instead.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path


def gguf_eos_id(gguf: Path) -> int | None:
    """``tokenizer.ggml.eos_token_id`` from the GGUF header, if present."""
    from gguf import GGUFReader

    field = GGUFReader(gguf).fields.get("tokenizer.ggml.eos_token_id")
    return int(field.parts[field.data[0]][0]) if field is not None else None


def convert(gguf: Path, out: Path, tokenizer_dir: Path | None = None) -> list[str]:
    """Write ``out`` (config.json, tokenizer files, model.safetensors) from ``gguf``; returns the file names."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer, GgufConfig

    start = time.monotonic()
    if tokenizer_dir is not None:
        tok = AutoTokenizer.from_pretrained(tokenizer_dir)
    else:
        tok = AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name)
    eos = gguf_eos_id(gguf)
    if eos is not None and tok.eos_token_id != eos:
        # transformers' GGUF tokenizer names <|endoftext|> as EOS; the chat model ends turns with the
        # GGUF's tokenizer.ggml.eos_token_id (<|im_end|> for Qwen2.5 Instruct), which a server must stop on
        tok.eos_token = tok.convert_ids_to_tokens(eos)
    out.mkdir(parents=True, exist_ok=True)
    tok.save_pretrained(out)  # first: a later failure still leaves the slow part done
    print(f"tokenizer {type(tok).__name__}, {len(tok)} tokens, {time.monotonic() - start:.1f} s", flush=True)
    # transformers (5.x) keeps GGUF blocks packed where it has a matmul kernel for them (e.g. on CUDA) and
    # refuses to save such a model: ask for dense weights, check they are, then drop the GGUF quantizer
    # so save_pretrained writes an ordinary bf16 checkpoint. Loading needs accelerate (on the device image).
    model = AutoModelForCausalLM.from_pretrained(gguf.parent, gguf_file=gguf.name, dtype=torch.bfloat16,
                                                 quantization_config=GgufConfig(dequantize=True))
    packed = sorted({str(p.dtype) for p in model.state_dict().values() if not p.dtype.is_floating_point})
    if packed:
        raise SystemExit(f"weights still packed after loading ({', '.join(packed)}): not converted")
    if getattr(model, "hf_quantizer", None) is not None:
        model.hf_quantizer.remove_quantization_config(model)
    print(f"model {type(model).__name__}, {time.monotonic() - start:.1f} s", flush=True)
    if eos is not None:
        model.generation_config.eos_token_id = eos
        model.config.eos_token_id = eos
    model.save_pretrained(out)
    names = sorted(p.name for p in out.iterdir())
    print(f"wrote {out}: {', '.join(names)} in {time.monotonic() - start:.1f} s", flush=True)
    return names


def main(argv: list[str]) -> int:
    """Command-line entry."""
    if len(argv) not in (2, 3):
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    gguf, out = Path(argv[0]), Path(argv[1])
    if not gguf.is_file():
        print(f"no such GGUF file: {gguf}", file=sys.stderr)
        return 1
    convert(gguf, out, Path(argv[2]) if len(argv) == 3 else None)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
