"""Repository trust, the way direnv does it: a ``.coder.toml`` counts only once trusted by content.

A cloned repository must not make coder run a program, widen who can reach the
server, choose which files the engine parses, or how much memory and how many cores it
takes. So the settings in :data:`coder.config_schema.TRUSTED_ONLY` (and the test and lint
commands, :data:`coder.config_schema.TRUSTED_SETTINGS`) are taken from a repository's
``.coder.toml`` only when the user ran ``coder trust`` on that exact file:
its resolved path and the SHA-256 of its bytes are stored in the user's config dir.
Any change to the file withdraws the trust until it is reviewed again. A symbolic link
is never trusted (nor read: :func:`coder.config.load`), so trust cannot move from one
repository to another through a link to the trusted file.

Binding a non-loopback address needs ``--expose`` for the process as well (any source).
"""

from __future__ import annotations

import hashlib
import ipaddress
import json
import sys
from collections.abc import Collection, Mapping
from pathlib import Path

from coder.errors import CoderError
from coder.paths import config_dir

_expose_granted = False
_notified: set[str] = set()


def store_path() -> Path:
    """Where trusted file hashes live (the user's config dir, never a repository)."""
    return config_dir() / "trusted.json"


def digest(data: bytes) -> str:
    """SHA-256 hex digest of ``data``: the identity a trusted file is recorded under."""
    return hashlib.sha256(data).hexdigest()


def _load_store() -> dict[str, str]:
    path = store_path()
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        raise CoderError(f"{path}: unreadable trust store ({exc}); delete it and trust again") from None
    files = data.get("files") if isinstance(data, dict) else None
    if not isinstance(files, dict):
        raise CoderError(f"{path}: unreadable trust store (no \"files\" table); delete it and trust again")
    return {str(k): str(v) for k, v in files.items()}


def _save_store(files: dict[str, str]) -> None:
    from coder.fsutil import atomic_write

    path = store_path()
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    atomic_write(path, (json.dumps({"version": 1, "files": files}, indent=2) + "\n").encode(), mode=0o600)


def is_trusted(path: Path, data: bytes) -> bool:
    """True when the user trusted exactly these bytes at this path (never through a symbolic link)."""
    if path.is_symlink():
        return False
    return _load_store().get(str(path.resolve())) == digest(data)


def trust(path: Path) -> str:
    """Record the current content of ``path`` as trusted; returns its hash. A symbolic link is refused."""
    if path.is_symlink():
        raise CoderError(f"{path} is a symbolic link: coder trusts a regular file only (trust the file it "
                         "points to by its own path, or replace the link with a copy)")
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise CoderError(f"{path}: cannot read: {exc.strerror}") from None
    files = _load_store()
    files[str(path.resolve())] = digest(data)
    _save_store(files)
    return digest(data)


def revoke(path: Path) -> bool:
    """Forget any trust in ``path``; False when it was not trusted."""
    files = _load_store()
    if files.pop(str(path.resolve()), None) is None:
        return False
    _save_store(files)
    return True


def trusted_files() -> dict[str, str]:
    """Every trusted path with its hash."""
    return _load_store()


def _needs_trust(key: str, value: object, known_models: Collection[str]) -> bool:
    from coder.config_schema import NAMED_MODEL_KEYS, TRUSTED_ONLY

    if key in NAMED_MODEL_KEYS and isinstance(value, str) and value in known_models:
        return False  # a model the user already has, by the name the user's own config gives it
    return key in TRUSTED_ONLY


def untrusted_keys(raw_profiles: Mapping[str, object], known_models: Collection[str] = ()) -> list[str]:
    """``profiles.NAME.KEY`` for each trust-only setting present in the profile tables.

    ``model``/``drafter`` naming one of ``known_models`` (the user's own) need no trust.
    """
    return [f"profiles.{name}.{key}" for name, body in raw_profiles.items() if isinstance(body, dict)
            for key, value in body.items() if _needs_trust(key, value, known_models)]


def strip_untrusted(raw_profiles: Mapping[str, Mapping[str, object]],
                    known_models: Collection[str] = ()) -> dict[str, dict[str, object]]:
    """The profile tables without any setting that needs trust."""
    return {name: {k: v for k, v in body.items() if not _needs_trust(k, v, known_models)}
            for name, body in raw_profiles.items()}


def ignored_line(path: Path, keys: list[str]) -> str:
    """The one line saying what an untrusted file did not get to set."""
    return (f"{path} is not trusted: ignored {', '.join(keys)} "
            f"(review the file, then run `coder trust` to use them)")


def commands_not_run_line(path: Path, keys: list[str]) -> str:
    """The one line an edit says when a repository's ``test_command``/``lint_command`` were not run on it, and why."""
    verb = "was" if len(keys) == 1 else "were"
    return (f"{path}: its {' and '.join(keys)} {verb} not run on this edit: the file is not trusted, and a "
            "repository's commands run only once you trust it (review it, then run `coder trust`)")


def notify_once(line: str) -> None:
    """Print ``line`` on stderr once per process (every command loads the config)."""
    if line not in _notified:
        _notified.add(line)
        print(f"coder: {line}", file=sys.stderr)


def is_loopback(host: str) -> bool:
    """True for ``localhost`` and loopback IP addresses (IPv6 in brackets too)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def grant_expose() -> None:
    """The user passed ``--expose``: this process may bind a non-loopback address."""
    global _expose_granted
    _expose_granted = True


def check_exposure(host: str) -> None:
    """Refuse a non-loopback bind address unless ``--expose`` was given; warn when it was."""
    if is_loopback(host):
        return
    if not _expose_granted:
        raise CoderError(f"host = {host!r} would expose the server beyond this machine; pass --expose to "
                         "allow it (the random API key stays required)")
    notify_once(f"warning: binding {host}: the server is reachable from other machines "
                "(API key required)")
