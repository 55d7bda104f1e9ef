"""Reading bench prompt inputs safely: regular text files only, bounded size and JSON depth.

A prompts directory may come from a cloned repository, so nothing it names may make
``coder bench`` hang (a FIFO), read outside it (``"file": "/etc/passwd"``, a symlink),
crash (a JSON line nested 100k deep) or send binary data to the server.
"""

from __future__ import annotations

import json
import os
import re
import stat
from collections.abc import Sequence
from pathlib import Path

from coder.errors import CoderError
from coder.jsontypes import JSONValue

MAX_PROMPT_BYTES = 16 * 1024 * 1024  # a prompt file or a file an edit prompt rewrites
MAX_JSON_DEPTH = 32  # prompt records are flat: {"messages": [{"role": ..., "content": ...}]}
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_BRACKET = re.compile(r"[\[\]{}]")
_KINDS = ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISDIR, "a directory"))


def read_text(path: Path, limit: int = MAX_PROMPT_BYTES) -> str:
    """The UTF-8 text of a regular file of at most ``limit`` bytes; one-line CoderError otherwise."""
    try:
        # O_NONBLOCK: opening a FIFO must not wait for a writer; fstat then refuses it
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as exc:
        raise CoderError(f"{path}: cannot read: {exc.strerror}") from None
    with os.fdopen(fd, "rb") as fh:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            kind = next((name for test, name in _KINDS if test(info.st_mode)), "not a regular file")
            raise CoderError(f"{path}: is {kind}, not a regular file")
        if info.st_size > limit:
            raise CoderError(f"{path}: {info.st_size} bytes is more than the {limit}-byte limit for a prompt input")
        data = fh.read(limit + 1)
    if len(data) > limit:
        raise CoderError(f"{path}: more than the {limit}-byte limit for a prompt input")
    if b"\0" in data:
        line = data[: data.index(b"\0")].count(b"\n") + 1
        raise CoderError(f"{path}:{line}: contains NUL bytes (a binary file?); prompts must be text")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise CoderError(f"{path}:{line}: not UTF-8 text") from None


def json_depth(text: str) -> int:
    """Deepest nesting of arrays/objects in ``text`` (string contents skipped)."""
    depth = deepest = 0
    for match in _BRACKET.finditer(_STRING.sub("", text)):
        if match.group() in "[{":
            depth += 1
            deepest = max(deepest, depth)
        else:
            depth -= 1
    return deepest


def parse_json(text: str, where: str, max_depth: int = MAX_JSON_DEPTH) -> JSONValue:
    """``json.loads`` after a depth check, so a deep document is one line, never a RecursionError."""
    if json_depth(text) > max_depth:
        raise CoderError(f"{where}: JSON nested deeper than {max_depth} levels")
    try:
        value: JSONValue = json.loads(text)
        return value
    except json.JSONDecodeError as exc:
        raise CoderError(f"{where}: not valid JSON: {exc.msg} (column {exc.colno})") from None
    except RecursionError:  # the depth check counts brackets; this is only a backstop
        raise CoderError(f"{where}: JSON nested too deep") from None


def allowed_roots(prompts_dir: Path) -> list[Path]:
    """Where prompt inputs may live: the prompts directory and the repository around the cwd."""
    from coder.repo import find_repo_root

    roots = [prompts_dir.resolve()]
    if (repo := find_repo_root(Path.cwd())) is not None:
        roots.append(repo.resolve())
    return roots


def confine(path: Path, roots: Sequence[Path], where: str) -> Path:
    """The real path of ``path`` when it lies inside one of ``roots`` (symlinks resolved)."""
    real = path.expanduser().resolve()
    if not any(real.is_relative_to(root) for root in roots):
        shown = " or ".join(str(r) for r in roots)
        raise CoderError(f"{where}: {path} is outside the prompts directory and the repository ({shown}); "
                         "refused")
    return real
