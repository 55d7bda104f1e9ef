"""``coder model``: fetch and list the named models, inspect GGUF files and checkpoint directories."""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict
from pathlib import Path

from coder.cli import Subparsers
from coder.errors import CoderError
from coder.jsontypes import JSONObject

EPILOG = """\
examples:
  coder model fetch qwen-coder-1.5b              Qwen2.5-Coder-1.5B-Instruct (Q4_K_M GGUF, 1,117 MB)
  coder model fetch qwen-coder-0.5b              Qwen2.5-Coder-0.5B-Instruct (Q4_K_M GGUF, 491 MB)
  coder model fetch demo                         SmolLM2-135M-Instruct (Q4_1 GGUF, 98 MB; the fast test model)
  coder model list                               what is installed, where, and how big
  coder model inspect ~/models/Qwen3.8-27B-DFlash2-Q4_K_M.gguf
  coder model inspect ./Qwen3.8-27B-DFlash2      a Hugging Face checkpoint directory
  coder model inspect ./drafter.gguf --json
"""


def _fetch(args: argparse.Namespace) -> int:
    import time

    from coder.cli.progress import phase_bar
    from coder.models.catalog import MODELS
    from coder.models.store import fetch_model

    spec = MODELS.get(args.name)
    if spec is None:
        raise CoderError(f"unknown model {args.name!r} (known: {', '.join(MODELS)})")
    with phase_bar(spec.name) as update:
        started: dict[str, float] = {}

        def progress(phase: str, done: int, total: int) -> None:
            kind = phase.split()[0]  # the rate spans all parts of one kind of work
            begun = started.setdefault(kind, time.monotonic())
            rate = done / 1e6 / max(time.monotonic() - begun, 1e-3)
            detail = f"{done / 1e6:,.0f}/{total / 1e6:,.0f} MB · {rate:,.1f} MB/s" if total else ""
            update(phase, done / total if total else 0.0, detail)

        path = fetch_model(spec, progress)
        update("verified", 1.0, f"{spec.size / 1e6:,.0f} MB, sha256 ok")
    print(path)
    return 0


def _list(args: argparse.Namespace) -> int:
    from coder.models.catalog import MODELS
    from coder.models.store import installed, model_path, models_dir

    rows = []
    for spec in MODELS.values():
        path = installed(spec)
        rows.append((spec.name, f"{spec.size / 1e6:,.0f} MB", "installed" if path else "not fetched",
                     str(path or model_path(spec)), f"{spec.title} ({spec.license})"))
    known = {spec.filename for spec in MODELS.values()}
    for other in sorted(models_dir().glob("*.gguf")) if models_dir().is_dir() else []:
        if other.name not in known:
            rows.append(("-", f"{other.stat().st_size / 1e6:,.0f} MB", "file", str(other), "not in the catalog"))
    if args.json:
        keys = ("name", "size", "state", "path", "model")
        print(json.dumps([dict(zip(keys, row, strict=True)) for row in rows], indent=2))
        return 0
    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    for row in rows:
        print("  ".join(cell.ljust(w) for cell, w in zip(row[:4], widths, strict=True)) + "  " + row[4])
    return 0


def checkpoint_lines(path: Path) -> tuple[list[str], JSONObject]:
    """Human lines and a JSON-able dict for a Hugging Face checkpoint directory."""
    from coder.models.checkpoint import inspect_checkpoint, lm_head_status

    info = inspect_checkpoint(path)
    head = lm_head_status(info) if info.drafter_family is None else None
    rows = [
        ("checkpoint", info.path),
        ("architectures", ", ".join(info.architectures) or "-"),
        ("model type", info.model_type or "-"),
        ("context length", str(info.max_position_embeddings or "-")),
        ("vocab size", str(info.vocab_size or "-")),
        ("layers", str(info.num_hidden_layers or "-")),
    ]
    if info.drafter_family:
        rows.append(("drafter", info.drafter_family + (f" ({info.variant})" if info.variant else "")))
        if info.block_size:
            rows.append(("block size", f"{info.block_size} [{info.block_size_source}]"))
        if info.k_max:
            rows.append(("largest useful k", str(info.k_max)))
    elif info.mtp_layers:
        rows.append(("drafter", f"MTP heads in target ({info.mtp_layers} layer(s))"))
    else:
        rows.append(("drafter", "none (plain model)"))
    if info.quant_method:
        rows.append(("quantization", f"{info.quant_method} ({info.quant_source})"))
    if head is not None:
        rows.append(("LM head", f"{head.state}: {head.reason}"))
    data = asdict(info)
    data.pop("weight_names", None)  # can be tens of thousands of names
    data["lm_head"] = asdict(head) if head else None
    width = max(len(k) for k, _ in rows)
    return [f"{k:<{width}}  {v}" for k, v in rows], data


def _inspect(args: argparse.Namespace) -> int:
    path = Path(args.path).expanduser()
    if path.is_dir() or path.name == "config.json":
        lines, data = checkpoint_lines(path)
    elif path.suffix.lower() == ".gguf" or path.is_file():
        from coder.models.gguf_info import format_info, inspect_gguf

        info = inspect_gguf(path)
        lines, data = format_info(info), info.to_dict()
    else:
        raise CoderError(f"{path}: no such file or directory")
    print(json.dumps(data, indent=2) if args.json else "\n".join(lines))
    return 0


def register(sub: Subparsers) -> None:
    """Add this command group's parsers."""
    model = sub.add_parser("model", help="fetch and list models; inspect GGUF files and checkpoints",
                           epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    msub = model.add_subparsers(dest="model_command", metavar="ACTION", required=True)
    p = msub.add_parser("fetch", help="download, verify and install a named model", epilog=EPILOG,
                        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("name", help="qwen-coder-1.5b, qwen-coder-0.5b or demo")
    p.set_defaults(func=_fetch)
    p = msub.add_parser("list", help="the named models: installed or not, where, size", epilog=EPILOG,
                        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=_list)
    p = msub.add_parser("inspect", help="architecture, context, vocab, drafter family, block size, largest k",
                        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("path", help="a .gguf file or a Hugging Face checkpoint directory")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=_inspect)
