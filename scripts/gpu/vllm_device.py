#!/usr/bin/env python3
"""vLLM (and SGLang) on the GPU device: can it install against the device's torch, and how to run it.

    python scripts/gpu/vllm_device.py check                 # pins of vllm 0.33.0 / sglang 0.5.23 vs the device,
                                                        # the newest releases that fit, and their wheel sets
    python scripts/gpu/vllm_device.py prepare               # download the vLLM set, pack it into ≤58 MB pieces
    python scripts/gpu/vllm_device.py commands --gguf PATH  # the device commands (each ≤ 2000 chars), in order

Everything is read from wheel METADATA (scripts/gpu/engine_wheels.py); the device's packages are the ones
device_packages.txt lists (torch 2.11.0+cu130, Python 3.12.3). ``prepare`` writes ignored folders
``.carry/vllm/boot`` (the gguf wheel and the GGUF→HF converter's input) and ``.carry/vllm/pNN``; each
device call carries one of them. No DFlash 2 checkpoint is available here, so the speculator is vLLM's
n-gram method (no drafter checkpoint needed).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shlex
import sys
import tarfile
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import engine_wheels as ew  # a sibling script, not a package

ASKED = {"vllm": "0.33.0", "sglang": "0.5.23"}  # the versions the product brief names
PIECE = 58 * 1000 * 1000  # one device call carries ≤ 64 MiB together with the repository
# Left out of the lean vLLM set (checked in vllm 0.26.0's sources: no module-level import of them);
# carried as extra pieces only if the launch asks for one.
LEAN_SKIP = {
    "tokenspeed-mla": "MLA attention kernels (DeepSeek-style models); pulls tokenspeed-triton, 95 MB",
    "tilelang": "kernel DSL for specific models; pulls z3-solver, 29 MB",
    "pynvvideocodec": "video decoding for multimodal inputs",
    "torchcodec": "audio/video decoding for multimodal inputs",
    "humming-kernels": "optional kernels; pulls nvidia-cuda-nvcc/nvvm/cccl/crt (127 MB) the image already has",
    "numpy": "keep the device's numpy 2.5.2: only mistral-common caps it (<2.4), for Mistral tokenizers",
}
SERVED_NAME = "qwen2.5-coder-1.5b"
SPEC = {"method": "ngram", "num_speculative_tokens": 5, "prompt_lookup_max": 4, "prompt_lookup_min": 2}


def _index(args: argparse.Namespace) -> ew.Index:
    return ew.Index(Path(args.cache).expanduser())


def release_pins(index: ew.Index, name: str, newest: str, oldest: str) -> list[tuple[str, dict[str, str | None]]]:
    """(version, {abi-bound name: specifier}) for each release of ``name`` in [oldest, newest], newest first."""
    out: list[tuple[str, dict[str, str | None]]] = []
    seen: set[str] = set()
    for wheel in index.wheels(name):
        version = str(wheel.version)
        if version in seen or not ew.Version(oldest) <= wheel.version <= ew.Version(newest):
            continue
        seen.add(version)
        dist = index.metadata(wheel)
        out.append((version, {n: dist.pin(n) for n in ew.ABI_BOUND}))
    return out


def fits_device(pins: dict[str, str | None], device: dict[str, str | None] | None = None) -> bool:
    """True when every ABI-bound pin admits the device's version (an absent pin admits anything)."""
    device = ew.device_packages() if device is None else device
    for name, spec in pins.items():
        have = device.get(ew.canonicalize_name(name))
        if spec in (None, "(any)") or have is None:
            continue
        if not ew.SpecifierSet(spec).contains(have, prereleases=True):
            return False
    return True


def newest_fitting(pins: list[tuple[str, dict[str, str | None]]]) -> str | None:
    """The newest version whose ABI-bound pins all admit the device's versions."""
    return next((v for v, p in pins if fits_device(p)), None)


def format_resolution(res: ew.Resolution, skipped: dict[str, str] | None = None) -> str:
    """The report: verdict, unmet pins, the wheel set with sizes, shadowed device packages."""
    mb = res.carry_bytes / 1e6
    lines = [f"{res.root}: {'FEASIBLE' if res.feasible else 'NOT INSTALLABLE'} on the device "
             f"(Python 3.12.3, torch {ew.device_packages()['torch']}+cu130)"]
    lines += [f"  unmet pin: {c}" for c in res.conflicts] + [f"  no wheel: {c}" for c in res.no_wheel]
    lines.append(f"  wheels to carry: {len(res.carry)}, {mb:.1f} MB ({-(-res.carry_bytes // PIECE)} pieces of "
                 f"≤ {PIECE // 1_000_000} MB)")
    for name, wheel in sorted(res.carry.items(), key=lambda kv: -kv[1].size):
        shadow = f"  [shadows device {name} {res.replaces[name]}]" if name in res.replaces else ""
        lines.append(f"    {wheel.size / 1e6:8.1f} MB  {wheel.filename}{shadow}")
    for name, why in (skipped or {}).items():
        lines.append(f"  left out: {name} ({why})")
    if res.banned:
        lines.append(f"  older releases chosen instead of: {', '.join(res.banned)}")
    return "\n".join(lines)


def cmd_check(args: argparse.Namespace) -> int:
    """Print the verdict for the asked versions, the newest fitting ones, and their wheel sets."""
    index = _index(args)
    for name, asked in ASKED.items():
        res = ew.resolve(f"{name}=={asked}", index.metadata, index.wheels)
        print(format_resolution(res))
        pins = release_pins(index, name, asked, "0.20.0" if name == "vllm" else "0.5.11")
        print(f"\n{name}: torch/torchvision/torchaudio/triton pins by release (device: torch 2.11.0, "
              "torchvision 0.26.0, torchaudio 2.11.0, triton 3.6.0)")
        for version, pin in pins:
            mark = "fits" if fits_device(pin) else "    "
            print(f"  {mark} {name} {version:<14} " + ", ".join(f"{k}{v}" for k, v in pin.items() if v))
        best = newest_fitting(pins)
        print(f"  newest {name} that fits the device's torch: {best or 'none'}\n")
        if best and name == "vllm":
            skip = LEAN_SKIP if args.lean else {}
            print(format_resolution(ew.resolve(f"vllm=={best}", index.metadata, index.wheels, skip=skip), skip))
        elif best:
            print(format_resolution(ew.resolve(f"{name}=={best}", index.metadata, index.wheels)))
        print()
    return 0


@dataclass(frozen=True)
class Plan:
    """What ``prepare`` wrote: piece folders, the tar's sha256, the wheel names."""

    pieces: list[str]
    sha256: str
    wheels: list[str]
    extra_pieces: list[str]
    extra_sha256: str | None


def _download(index: ew.Index, wheel: ew.WheelFile, dest: Path) -> Path:
    path = dest / wheel.filename
    if not path.exists() or hashlib.sha256(path.read_bytes()).hexdigest() != wheel.sha256:
        with index._http.stream("GET", wheel.url) as resp, path.open("wb") as out:
            resp.raise_for_status()
            for chunk in resp.iter_bytes(1 << 20):
                out.write(chunk)
        if hashlib.sha256(path.read_bytes()).hexdigest() != wheel.sha256:
            raise SystemExit(f"{wheel.filename}: sha256 does not match the index")
    return path


def pack(files: list[Path], tar_path: Path, out_dir: Path, prefix: str, piece: int = PIECE) -> tuple[list[str], str]:
    """Tar ``files`` (stored, wheels are compressed already), split into ``piece``-byte parts, one folder each.

    Returns the folder names (``{prefix}00`` …) and the tar's sha256.
    """
    with tarfile.open(tar_path, "w") as tar:
        for f in files:
            tar.add(f, arcname=f.name)
    data = tar_path.read_bytes()
    names = []
    for i in range(0, len(data), piece):
        folder = out_dir / f"{prefix}{i // piece:02d}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "piece").write_bytes(data[i:i + piece])
        names.append(folder.name)
    return names, hashlib.sha256(data).hexdigest()


def cmd_prepare(args: argparse.Namespace) -> int:
    """Download the lean vLLM set (+ gguf for the converter) and write the piece folders and plan.json."""
    index = _index(args)
    dest = Path(args.dest)
    wheels_dir = Path(args.cache).expanduser() / "wheels"
    wheels_dir.mkdir(parents=True, exist_ok=True)
    res = ew.resolve(f"vllm=={args.version}", index.metadata, index.wheels, skip=LEAN_SKIP)
    print(format_resolution(res, LEAN_SKIP))
    if not res.feasible:
        return 1
    full = ew.resolve(f"vllm=={args.version}", index.metadata, index.wheels, skip=("numpy",))
    extra = {n: w for n, w in full.carry.items() if n not in res.carry}
    gguf = ew.resolve("gguf", index.metadata, index.wheels)
    boot = dest / "boot"
    boot.mkdir(parents=True, exist_ok=True)
    for wheel in gguf.carry.values():
        (boot / wheel.filename).write_bytes(_download(index, wheel, wheels_dir).read_bytes())
    files = [_download(index, w, wheels_dir) for w in res.carry.values()]
    pieces, sha = pack(files, wheels_dir / "set.tar", dest, "p")
    extra_files = [_download(index, w, wheels_dir) for w in extra.values()] if args.with_extra else []
    extra_pieces, extra_sha = pack(extra_files, wheels_dir / "extra.tar", dest, "x") if extra_files else ([], None)
    plan = Plan(pieces, sha, sorted(w.filename for w in res.carry.values()), extra_pieces, extra_sha)
    (dest / "plan.json").write_text(json.dumps(plan.__dict__, indent=1))
    print(f"wrote {dest}/boot ({len(gguf.carry)} wheel(s)), {len(pieces)} pieces (sha256 {sha[:16]}…)"
          + (f", {len(extra_pieces)} extra pieces" if extra_pieces else "") + f", {dest}/plan.json")
    return 0


def device_commands(plan: Plan, dest: str, gguf: str, port: int = 8000,
                    root: str = "/root/vllm") -> list[tuple[list[str], str]]:
    """(carry, command) per device call, in order; every command ≤ 2000 characters.

    Call 1 carries ``boot`` (the gguf wheel, and ``boot/tok`` tokenizer files if present) and starts
    the GGUF→HF conversion in the background; the piece calls follow while it runs; then install;
    then serve, record and verify.
    """
    q = shlex.quote(gguf)
    tok = f"$(test -d {dest}/boot/tok && echo {root}/tok)"
    first = (f"mkdir -p {root}/w && python3 -m pip install -q --no-index --no-deps --target {root}/boot "
             f"{dest}/boot/*.whl && (test ! -d {dest}/boot/tok || cp -r {dest}/boot/tok {root}/) && test -s {q} && "
             f"(setsid nohup env PYTHONPATH={root}/boot python3 scripts/gpu/gguf_to_hf.py {q} {root}/hf {tok} "
             f"> {root}/convert.log 2>&1 &); sleep 2; ls -l {root}; cat {root}/convert.log")
    calls: list[tuple[list[str], str]] = [([f"{dest}/boot"], first)]
    calls += [([f"{dest}/{p}"], f"cp {dest}/{p}/piece {root}/{p} && ls {root} | wc -l && tail -2 {root}/convert.log")
              for p in plan.pieces]
    install = (f"set -e; cd {root}; cat {' '.join(plan.pieces)} > set.tar; "
               f"echo '{plan.sha256}  set.tar' | sha256sum -c; tar -xf set.tar -C w; "
               f"time python3 -m pip install -q --no-index --no-deps --no-compile --target {root}/site w/*.whl; "
               f"PYTHONPATH={root}/site python3 -c 'import vllm, torch, numpy, transformers as t; "
               "print(vllm.__version__, torch.__version__, numpy.__version__, t.__version__)'; cat convert.log")
    calls.append(([], install))
    spec = json.dumps(SPEC, separators=(",", ":"))
    serve = (f"cd {root}; for i in $(seq 400); do grep -q '^wrote' convert.log && break; sleep 1; done; "
             f"tail -3 convert.log; (setsid nohup env PYTHONPATH={root}/site python3 -m vllm.entrypoints.cli.main "
             f"serve {root}/hf --served-model-name {SERVED_NAME} --port {port} --api-key k22 --max-model-len 8192 "
             f"--enforce-eager --gpu-memory-utilization 0.4 --speculative-config '{spec}' > serve.log 2>&1 & "
             "echo $! > serve.pid); "
             f"cd - >/dev/null; P=$(cat {root}/serve.pid); "
             f"for i in $(seq 400); do curl -sf localhost:{port}/health >/dev/null && break; "
             f"kill -0 $P 2>/dev/null || break; sleep 1; done; cp {root}/serve.log $OUT/vllm_serve.log; "
             "PYTHONPATH=$PWD${CODER_SITE:+:$CODER_SITE} python3 scripts/gpu/vllm_record.py "
             f"--port {port} --key k22 --model {SERVED_NAME} "
             f"--log {root}/serve.log --out $OUT; grep -E 'SpeculativeConfig|Model Runner|SpecDecoding' "
             f"{root}/serve.log | cut -c1-400 | tail -5")
    calls.append(([], serve))
    for _, cmd in calls:
        if len(cmd) > 2000:
            raise ValueError(f"device command longer than 2000 characters: {cmd[:80]}…")
    return calls


def coder_calls(port: int = 8000) -> list[str]:
    """Optional device calls after :func:`device_commands`: coder against the recorded server (attached),
    then coder's own managed launch of the same model (the recorded server is stopped first to free
    the GPU memory). ``CODER_SITE`` names a folder holding coder's own dependencies on the device."""
    env = "export PYTHONPATH=$PWD${CODER_SITE:+:$CODER_SITE} CODER_API_KEY=k22; "
    url = f"http://127.0.0.1:{port}"
    attached = (env + f"python3 -m coder backend attach {url} --json > $OUT/coder_attach.json 2>&1; "
                f"python3 -m coder bench --quick --attach {url} > $OUT/coder_bench.txt 2>&1; "
                "tail -c 3000 $OUT/coder_attach.json $OUT/coder_bench.txt")
    managed = (env + "kill $(cat /root/vllm/serve.pid) 2>/dev/null; sleep 5; "
               "export PYTHONPATH=$PYTHONPATH:/root/vllm/site; "
               "python3 -m coder backend start --engine vllm --model /root/vllm/hf --spec-type ngram --k 5 "
               "--binary python3 --json > $OUT/coder_start.json 2>&1; python3 -m coder backend status --json "
               "> $OUT/coder_status.json 2>&1; python3 -m coder doctor > $OUT/coder_doctor.txt 2>&1; "
               "python3 -m coder backend stop > $OUT/coder_stop.txt 2>&1; sleep 3; "
               "pgrep -af vllm.entrypoints > $OUT/orphans.txt; tail -c 4000 $OUT/coder_*")
    return [attached, managed]


def cmd_commands(args: argparse.Namespace) -> int:
    """Print the device calls that ``prepare`` planned."""
    plan = Plan(**json.loads((Path(args.dest) / "plan.json").read_text()))
    calls = device_commands(plan, args.dest, args.gguf, args.port)
    for i, (carry, cmd) in enumerate(calls, 1):
        print(f"# call {i}/{len(calls)}  carry={json.dumps(carry)}  ({len(cmd)} chars)\n{cmd}\n")
    for i, cmd in enumerate(coder_calls(args.port), 1):
        print(f"# optional coder call {i} (needs coder's dependencies under $CODER_SITE)  ({len(cmd)} chars)\n{cmd}\n")
    if plan.extra_pieces:
        print(f"# only if the launch fails on a missing module: carry {plan.extra_pieces} the same way, then "
              f"cat them to extra.tar (sha256 {plan.extra_sha256}) and pip install its wheels into the same --target")
    return 0


def main(argv: list[str] | None = None) -> int:
    """Command-line entry."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cache", default="~/.cache/coder-engine-wheels", help="index pages, METADATA, wheels")
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("check", help="pins and wheel sets from metadata only")
    p.add_argument("--full", dest="lean", action="store_false", help="the whole metadata closure, nothing left out")
    p.set_defaults(func=cmd_check)
    p = sub.add_parser("prepare", help="download and pack the lean vLLM set into piece folders")
    p.add_argument("--version", default="0.26.0")
    p.add_argument("--dest", default=".carry/vllm")
    p.add_argument("--with-extra", action="store_true", help="also pack the left-out wheels as x-pieces")
    p.set_defaults(func=cmd_prepare)
    p = sub.add_parser("commands", help="print the device calls for a prepared set")
    p.add_argument("--dest", default=".carry/vllm")
    p.add_argument("--gguf", required=True, help="the Qwen2.5-Coder-1.5B GGUF's path on the device")
    p.add_argument("--port", type=int, default=8000)
    p.set_defaults(func=cmd_commands)
    args = ap.parse_args(argv)
    return int(args.func(args))


if __name__ == "__main__":
    raise SystemExit(main())
