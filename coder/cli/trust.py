"""``coder trust``: allow a repository's ``.coder.toml`` to set launch and exposure settings."""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from pathlib import Path

from coder import trust
from coder.cli import Subparsers
from coder.config import read_toml, repo_config_path
from coder.config_schema import parse_file
from coder.errors import CoderError
from coder.repo import find_repo_root
from coder.textsafe import visible

EPILOG = """\
examples:
  coder trust                 trust this repository's .coder.toml as it is now (by content hash)
  coder trust --show          say what it would enable, change nothing
  coder trust --revoke        withdraw the trust
  coder trust --list          every trusted file

Until a file is trusted, coder ignores its binary, engine, extra_args, host, url and api_key
settings (they run programs or widen exposure). Editing the file withdraws the trust.
"""


def _target(args: argparse.Namespace) -> Path:
    if args.file:
        return Path(args.file).expanduser().absolute()  # not resolved: a link is refused, never followed
    root = find_repo_root(Path.cwd())
    if root is None:
        raise CoderError("not inside a git repository; name the file: coder trust PATH/.coder.toml")
    return repo_config_path(root)


def _trust(args: argparse.Namespace) -> int:
    if args.list:
        files = trust.trusted_files()
        for name, sha in sorted(files.items()):
            print(visible(f"{sha[:12]}  {name}"))
        if not files:
            print("no trusted files")
        return 0
    path = _target(args)
    if args.revoke:
        print(visible(f"{'revoked trust in' if trust.revoke(path) else 'was not trusted:'} {path}"))
        return 0
    if not path.is_file():
        raise CoderError(f"{path}: no such file")
    data, raw = read_toml(path, follow_links=False)  # a symbolic link is refused in one line
    settings = parse_file(raw, path)  # refuse to trust a file coder cannot read
    keys = trust.untrusted_keys(settings.profiles)
    enabled = ", ".join(f"{k} = {_value(settings.profiles, k)}" for k in keys) or "nothing beyond the defaults"
    if args.show:
        state = "trusted" if trust.is_trusted(path, data) else "not trusted"
        print(visible(f"{path} ({state}, sha256 {trust.digest(data)[:12]}): trusting it enables {enabled}"))
        return 0
    sha = trust.trust(path)
    print(visible(f"trusted {path} (sha256 {sha[:12]}); enabled: {enabled}"))
    return 0


def _value(profiles: Mapping[str, object], dotted: str) -> str:
    _, name, key = dotted.split(".", 2)
    body = profiles.get(name)
    value = body.get(key) if isinstance(body, dict) else None
    from coder.redact import REDACTED

    return REDACTED if key == "api_key" else repr(value)


def register(sub: Subparsers) -> None:
    """Add the ``trust`` subcommand (trust, list and revoke repository config files) to ``sub``."""
    p = sub.add_parser("trust", help="trust this repository's .coder.toml (by content hash)",
                       epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("file", nargs="?", help="the file to trust (default: .coder.toml at the repository root)")
    group = p.add_mutually_exclusive_group()
    group.add_argument("--show", action="store_true", help="say what trusting would enable; change nothing")
    group.add_argument("--revoke", action="store_true", help="withdraw the trust")
    group.add_argument("--list", action="store_true", help="list trusted files")
    p.set_defaults(func=_trust)
