#!/usr/bin/env python3
"""Turn a GGUF model into a Hugging Face checkpoint directory (config, tokenizer, bf16 safetensors).

    python scripts/gguf_to_hf.py model.gguf out_dir [tokenizer_dir]

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


def convert(gguf: Path, out: Path, tokenizer_dir: Path | None = None) -> list[str]:
    """Write ``out`` (config.json, tokenizer files, model.safetensors) from ``gguf``; returns the file names."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    start = time.monotonic()
    if tokenizer_dir is not None:
        tok = AutoTokenizer.from_pretrained(tokenizer_dir)
    else:
        tok = AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name)
    out.mkdir(parents=True, exist_ok=True)
    tok.save_pretrained(out)  # first: a later failure still leaves the slow part done
    print(f"tokenizer {type(tok).__name__}, {len(tok)} tokens, {time.monotonic() - start:.1f} s", flush=True)
    # transformers' GGUF path dequantizes through accelerate (present on the device image)
    model = AutoModelForCausalLM.from_pretrained(gguf.parent, gguf_file=gguf.name, dtype=torch.bfloat16)
    print(f"model {type(model).__name__}, {time.monotonic() - start:.1f} s", flush=True)
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
