"""Slash commands: the table shown by /help and the command palette, and parsing (no Textual)."""

from __future__ import annotations

import shlex
from dataclasses import dataclass

MODES = ("full", "region", "auto")


@dataclass(frozen=True)
class CommandSpec:
    """One slash command: name, usage line and help."""

    name: str
    usage: str
    help: str


COMMANDS: dict[str, CommandSpec] = {c.name: c for c in (
    CommandSpec("add", "/add PATH…", "add files to the context (or type @path in a message)"),
    CommandSpec("drop", "/drop [PATH…]", "remove files from the context (all when none given)"),
    CommandSpec("mode", "/mode full|region|auto", "how edits are requested: whole file, one region, or chosen"),
    CommandSpec("k", "/k [N|auto]", "draft depth for the next requests (auto: coder's per-class choice)"),
    CommandSpec("undo", "/undo", "revert the last edit coder committed"),
    CommandSpec("diff", "/diff", "show uncommitted changes in the repository"),
    CommandSpec("backend", "/backend", "open the backend screen: start, stop, restart, log, doctor"),
    CommandSpec("bench", "/bench", "how to measure this backend (coder bench)"),
    CommandSpec("theme", "/theme [NAME]", "switch theme (kept for next time); no name lists them"),
    CommandSpec("clear", "/clear", "clear the conversation (context files stay)"),
    CommandSpec("help", "/help", "this list, plus keys"),
)}


@dataclass(frozen=True)
class Parsed:
    """A parsed command line."""

    name: str
    args: list[str]


class CommandError(ValueError):
    """A slash command that cannot run; the message is shown to the user as is."""


def parse(text: str) -> Parsed:
    """``/name arg…`` -> Parsed; raises CommandError with a polite one-liner."""
    body = text.strip()[1:]
    try:
        words = shlex.split(body)
    except ValueError:
        words = body.split()
    if not words:
        raise CommandError("Type a command after '/', e.g. /help.")
    name, args = words[0].lower(), words[1:]
    if name not in COMMANDS:
        close = [c for c in COMMANDS if c.startswith(name[:1])]
        hint = f" Did you mean {', '.join('/' + c for c in close)}?" if close else ""
        raise CommandError(f"Unknown command /{name}.{hint} /help lists them all.")
    if name == "mode" and (len(args) != 1 or args[0] not in MODES):
        raise CommandError("Usage: /mode full|region|auto")
    if name == "k" and args and not (args[0] == "auto" or (args[0].isdigit() and 0 <= int(args[0]) <= 64)):
        raise CommandError("Usage: /k N (0–64) or /k auto")
    if name == "add" and not args:
        raise CommandError("Usage: /add PATH… (or type @path in a message)")
    return Parsed(name, args)


def help_text() -> str:
    """The /help text: commands, then what a message does, then keys."""
    width = max(len(c.usage) for c in COMMANDS.values())
    lines = [f"{c.usage:<{width}}  {c.help}" for c in COMMANDS.values()]
    lines += [
        "",
        "A message edits the context files (one reply per file); with no files, or starting with '?', "
        "it is a chat question.",
        "Keys: tab completes @files and /commands · ctrl+p palette · ctrl+b backend · "
        "ctrl+t theme · escape stops a reply · ctrl+q quit",
    ]
    return "\n".join(lines)
