"""Compiled regular expressions kept between processes: :mod:`coder.lazy`'s patterns, compiled once per Python.

``re.compile`` parses a pattern and generates its matching code in Python (``re._parser``,
``re._compiler``); only the last step, ``_sre.compile``, is C. The instruction reader's and the
checks' patterns are long alternations: the few dozen one ``coder edit`` uses took ~20-35 ms of
every edit on a 2-core box, each time the same. This store keeps what ``_sre.compile`` is given
for each (pattern, flags) in one ``marshal`` file under :func:`coder.paths.cache_dir`, named by the
interpreter's exact version and ``_sre.MAGIC`` (the code format), so a later process builds the
same pattern object from it in microseconds.

A pattern enters the store only when the object built from the stored arguments equals the one
``re.compile`` returned (``re.Pattern`` equality compares pattern, flags and code), and ``_sre``
validates the code it is given; anything unexpected (a file that does not load, internals that
moved in another Python) falls back to ``re.compile``. New entries are written once, at exit
(atomically: a file of the process's own, then renamed over the store). Only coder.lazy's patterns
come here: the ~100 other patterns ``coder edit`` compiles (module-level ones while importing, the
stdlib's) measured ~3 ms together, not worth wrapping ``re`` itself.
"""

from __future__ import annotations

import atexit
import contextlib
import importlib
import marshal
import os
import re
import sys
from pathlib import Path
from typing import Any

_sre: Any = importlib.import_module("_sre")  # no stub: the C half of re

# (pattern, flags) -> the arguments of _sre.compile after the pattern: flags, code, groups, groupindex, indexgroup
Entry = tuple[int, list[int], int, dict[str, int], tuple[str | None, ...]]
_STORE: dict[tuple[str, int], Entry] | None = None
_ADDED: list[tuple[str, int]] = []  # entries this process compiled: written at exit
# what is worth keeping: a short pattern compiles in tens of microseconds, and patterns built from a file's
# names (re.escape of an identifier) differ per edit; the cap bounds the file (and its load) whatever comes
MIN_LENGTH = 32
MAX_ENTRIES = 1500


def path() -> Path:
    """The store's file: one per interpreter version and ``_sre`` code format."""
    from coder.paths import cache_dir

    return cache_dir() / f"regex-{sys.implementation.name}-{sys.hexversion:x}-{_sre.MAGIC}.marshal"


def _load() -> dict[tuple[str, int], Entry]:
    global _STORE
    if _STORE is None:
        _STORE = {}
        with contextlib.suppress(OSError, ValueError, EOFError, TypeError):
            loaded = marshal.loads(path().read_bytes())
            if isinstance(loaded, dict):
                _STORE = loaded
    return _STORE


def _arguments(pattern: str, flags: int) -> Entry:
    """What ``re._compiler.compile`` passes to ``_sre.compile`` for ``pattern``, as plain ints (marshal's types)."""
    parser: Any = importlib.import_module("re._parser")
    compiler: Any = importlib.import_module("re._compiler")
    parsed = parser.parse(pattern, flags)
    code = [int(c) for c in compiler._code(parsed, flags)]
    groupindex = {str(k): int(v) for k, v in parsed.state.groupdict.items()}
    indexgroup: list[str | None] = [None] * parsed.state.groups
    for name, index in groupindex.items():
        indexgroup[index] = name
    return int(flags | parsed.state.flags), code, int(parsed.state.groups - 1), groupindex, tuple(indexgroup)


def compile_pattern(pattern: str, flags: int) -> re.Pattern[str]:
    """``re.compile(pattern, flags)``, from the store when it holds the pattern (see the module docstring)."""
    flags = int(flags)  # a RegexFlag is an int subclass marshal cannot write
    store = _load()
    entry = store.get((pattern, flags))
    if entry is not None:
        with contextlib.suppress(TypeError, ValueError, RuntimeError, OverflowError):
            built: re.Pattern[str] = _sre.compile(pattern, *entry)
            return built
    compiled = re.compile(pattern, flags)
    try:
        entry = _arguments(pattern, flags)
        same = _sre.compile(pattern, *entry) == compiled
    except Exception:  # noqa: BLE001 (re's internals differ in this Python: the store is simply not used)
        return compiled
    if same and len(pattern) >= MIN_LENGTH and len(store) < MAX_ENTRIES:
        if not _ADDED:
            atexit.register(save)
        store[(pattern, flags)] = entry
        _ADDED.append((pattern, flags))
    return compiled


def save() -> None:
    """Write the store if this process added to it (merged with the file as it is now); errors are ignored."""
    if not _ADDED or _STORE is None:
        return
    target = path()
    with contextlib.suppress(OSError, ValueError, EOFError, TypeError):
        merged: dict[tuple[str, int], Entry] = {}
        with contextlib.suppress(OSError, ValueError, EOFError, TypeError):
            on_disk = marshal.loads(target.read_bytes())
            merged = on_disk if isinstance(on_disk, dict) else {}
        merged.update({key: _STORE[key] for key in _ADDED})
        target.parent.mkdir(parents=True, exist_ok=True)
        own = target.with_name(f"{target.name}.{os.getpid()}.tmp")
        own.write_bytes(marshal.dumps(merged))
        os.replace(own, target)
        _ADDED.clear()
