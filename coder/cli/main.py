"""``coder`` entry point: the TUI by default, subcommands for everything headless."""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import sys
from collections.abc import Sequence

from coder import __version__
from coder.errors import CoderError

# subcommand -> (module under coder.cli that defines register(subparsers), one-line help)
COMMANDS = {
    "backend": ("backend", "install, start, verify and supervise the inference server"),
    "model": ("model", "fetch the demo model, inspect GGUF files and checkpoints"),
    "doctor": ("doctor", "check binary, models, drafter/target compatibility, port, GPU, config"),
    "edit": ("edit", "edit a file (full rewrite, region or auto) and commit it"),
    "undo": ("edit", "revert the last coder commit"),
    "bench": ("bench", "measure tok/s and acceptance length on your own prompts"),
    "trust": ("trust", "trust this repository's .coder.toml (its launch and exposure settings)"),
}

EPILOG = """\
examples:
  coder                         open the TUI in the current git repository
  coder --resume                continue this repository's last conversation
  coder backend install llama.cpp
  coder model fetch qwen-coder-1.5b
  coder backend start qwen-1.5b  start a real coding model (`coder backend start`: the demo model)
  coder edit app.py -m "add type hints" --mode auto
  coder bench --quick
  coder doctor
  coder trust                   let this repository's .coder.toml set binary/host/url/extra_args
"""


class Formatter(argparse.RawDescriptionHelpFormatter):
    """Help formatter that keeps the hand-wrapped examples as written."""

    pass


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The subcommand parser; ``only`` imports just that command's module (fast startup)."""
    parser = argparse.ArgumentParser(
        prog="coder",
        description="A terminal coding assistant for a local LLM server with speculative decoding.",
        epilog=EPILOG,
        formatter_class=Formatter,
    )
    parser.add_argument("--version", action="version", version=f"coder {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    modules = [COMMANDS[only][0]] if only else [m for m, _ in COMMANDS.values()]
    for module in dict.fromkeys(modules):
        importlib.import_module(f"coder.cli.{module}").register(sub)
    return parser


def tui_parser() -> argparse.ArgumentParser:
    """The parser for plain ``coder [PATH]`` (the TUI)."""
    parser = argparse.ArgumentParser(
        prog="coder",
        description="Open the coder TUI in the git repository containing PATH (default: cwd).\n\n"
        "commands (coder COMMAND --help for each):\n"
        + "\n".join(f"  {name:<9} {text}" for name, (_, text) in COMMANDS.items()),
        epilog=EPILOG,
        formatter_class=Formatter,
    )
    parser.add_argument("--version", action="version", version=f"coder {__version__}")
    parser.add_argument("path", nargs="?", default=".", help="a path inside the repository")
    parser.add_argument("--resume", action="store_true", help="continue this repository's last conversation")
    parser.add_argument("--expose", action="store_true",
                        help="allow the profile's non-loopback host (the server is reachable from other machines)")
    parser.add_argument("--profile", help="backend profile to use (default: the config's default_profile)")
    parser.add_argument("--attach", metavar="URL", help="use an already running server at URL")
    from coder.cli.keyopts import add_key_options

    add_key_options(parser)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """The ``coder`` console script: a subcommand, or the TUI; returns the exit status.

    Output into a closed pipe (``coder backend status | head -1``) ends quietly with 141,
    as a shell's own tools do, never with a BrokenPipeError traceback.
    """
    import coder

    if argv is None:  # the process's own command line: a test calling main([...]) in its process is not the command
        coder.WHOLE_PROCESS = True
    try:
        code = _main(argv)
        sys.stdout.flush()  # a buffered write to a closed pipe fails here, inside the handler
        if coder.WHOLE_PROCESS and coder.QUICK_EXIT:
            _exit_now(code)
        return code
    except BrokenPipeError:
        # later flushes (at exit) go nowhere instead of printing "Exception ignored"
        devnull = os.open(os.devnull, os.O_WRONLY)
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(OSError, ValueError):
                os.dup2(devnull, stream.fileno())
        return 141


def _exit_now(code: int) -> None:
    """End the process with ``code`` now: the atexit handlers run, the streams are flushed, no teardown follows.

    The interpreter's teardown (clearing every module, freeing what the edit path built) came after
    ``coder edit``'s last line: 10-70 ms of its wall time that wrote nothing (issue 35). Every file the
    command writes is complete when it returns (atomic writes, the git commit's subprocess waited for),
    atexit handlers (a temporary directory's finalizer, logging) still run here, and a live non-daemon
    thread, which a normal exit would wait for, keeps the normal exit.
    """
    import atexit
    import threading

    main_thread = threading.main_thread()
    if any(t is not main_thread and not t.daemon and t.is_alive() for t in threading.enumerate()):
        return
    atexit._run_exitfuncs()
    sys.stdout.flush()
    sys.stderr.flush()  # a closed pipe raises here: main's handler turns it into 141 as before
    os._exit(code)


def dash_message(argv: list[str], parser: argparse.ArgumentParser) -> list[str]:
    """``argv`` with an instruction that starts with a dash joined to its ``-m``: ``-m "-1 is the default"`` becomes
    ``--message=-1 is the default``.

    argparse takes a word after ``-m`` that starts with a dash for an option, and refuses the command with
    "expected one argument", although the user meant the instruction (a property test found it with ``-m -\\x00``).
    An option the command knows (``-m --yes``: the instruction left out) and ``--`` stay as they are, so that
    mistake is still refused as before.
    """
    known = _flags(parser)
    if "--message" not in known:  # only `coder edit` takes an instruction
        return argv
    out: list[str] = []
    words = iter(argv)
    for word in words:
        if word in ("-m", "--message"):
            value = next(words, None)
            if value is not None and value.startswith("-") and value != "--" and value.split("=", 1)[0] not in known:
                out.append(f"--message={value}")
                continue
            out += [word] if value is None else [word, value]
            continue
        out.append(word)
    return out


def _flags(parser: argparse.ArgumentParser) -> set[str]:
    """Every option string of ``parser`` and of its subcommands' parsers."""
    out: set[str] = set()
    for action in parser._actions:
        out.update(action.option_strings)
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                out |= _flags(sub)
    return out


def _main(argv: Sequence[str] | None) -> int:
    args_in = list(sys.argv[1:] if argv is None else argv)
    try:
        if args_in and args_in[0] in COMMANDS:
            parser = build_parser(args_in[0])
            args = parser.parse_args(dash_message(args_in, parser))
            return int(args.func(args) or 0)
        args = tui_parser().parse_args(args_in)
        from coder.cli.keyopts import api_key

        args.api_key = api_key(args)
        if args.expose:
            from coder.trust import grant_expose

            grant_expose()
        from coder.ui.run import run_tui  # Textual is imported only for the TUI

        return run_tui(args)
    except CoderError as exc:
        from coder.textsafe import visible  # a message may quote what a server or file sent

        print(f"coder: error: {visible(str(exc))}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("coder: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
