"""``coder [PATH]``: find the repository, load config and the conversation, run the TUI."""

from __future__ import annotations

import argparse
from pathlib import Path

from coder import config as config_mod
from coder import conversations
from coder.errors import CoderError
from coder.repo import find_repo_root


def run_tui(args: argparse.Namespace) -> int:
    """Open the TUI in the repository around ``args.path``; CoderError when there is none."""
    start = Path(getattr(args, "path", ".") or ".").expanduser()
    if not start.exists():
        raise CoderError(f"{start}: no such file or directory")
    root = find_repo_root(start.resolve())
    if root is None:
        raise CoderError(f"{start.resolve()} is not inside a git repository (coder commits every edit; "
                         "run `git init` first)")
    cfg = config_mod.load(root)
    profile = getattr(args, "profile", None)
    cfg.profile(profile)  # unknown profile: fail before the screen opens
    conversation = conversations.load_last(root) if getattr(args, "resume", False) else None
    if getattr(args, "resume", False) and conversation is None:
        print("coder: no earlier conversation in this repository; starting a new one")
    conversation = conversation or conversations.new_conversation(root)
    attach_url = getattr(args, "attach", None)
    attach = (attach_url, getattr(args, "api_key", None)) if attach_url else None

    from coder.ui.app import CoderApp  # Textual loads only here

    app = CoderApp(root, cfg, conversation, profile=profile, attach=attach)
    app.run()
    if conversation.turns or conversation.context_files:
        conversations.save(conversation)
    return 0
