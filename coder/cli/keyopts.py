"""API key options shared by every command that talks to an attached server.

``--api-key-file PATH`` and the ``CODER_API_KEY`` environment variable keep the key
out of ``ps``; ``--api-key KEY`` still works but says that it shows there.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from coder.errors import CoderError

ENV = "CODER_API_KEY"


def add_key_options(parser: argparse.ArgumentParser, what: str = "--attach") -> None:
    """Add ``--api-key`` and ``--api-key-file`` to ``parser``."""
    parser.add_argument("--api-key", metavar="KEY",
                        help=f"API key for {what} (visible to other users in `ps`: prefer {ENV} or --api-key-file)")
    parser.add_argument("--api-key-file", metavar="PATH", type=Path,
                        help=f"read the API key for {what} from this file (first line)")


def api_key(args: argparse.Namespace) -> str | None:
    """The key from --api-key-file, --api-key (with a warning) or $CODER_API_KEY, in that order."""
    if not hasattr(args, "resolved_api_key"):  # asked again: no second warning, no second read
        args.resolved_api_key = _resolve(args)
    key: str | None = args.resolved_api_key
    return key


def _resolve(args: argparse.Namespace) -> str | None:
    path: Path | None = getattr(args, "api_key_file", None)
    given: str | None = getattr(args, "api_key", None)
    if path is not None and given:
        raise CoderError("give either --api-key or --api-key-file, not both")
    if path is not None:
        try:
            text = path.expanduser().read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) else "not UTF-8 text"
            raise CoderError(f"--api-key-file {path}: cannot read: {reason}") from None
        key = text.strip().splitlines()[0].strip() if text.strip() else ""
        if not key:
            raise CoderError(f"--api-key-file {path}: the file is empty")
        return key
    if given:
        print(f"coder: warning: --api-key is visible to other users in `ps`; use {ENV}=... or --api-key-file",
              file=sys.stderr)
        return given
    return os.environ.get(ENV) or None
