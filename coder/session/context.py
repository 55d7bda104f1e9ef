"""Context files: git-tracked file listing, @-mentions and the checks a context file must pass.

Everything here may block on git or the disk, so it runs on worker threads (never the UI
thread). Fuzzy ranking while typing is the prompt widget's job (``textual.fuzzy.Matcher``);
on submit a mention must resolve exactly, so ``@missing.py`` never silently becomes another file.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

MENTION = re.compile(r"(?:(?<=\s)|^)@([^\s@]+)")
MAX_CONTEXT_BYTES = 256 * 1024  # a file bigger than this is refused as context


def tracked_files(root: Path) -> list[str]:
    """Git-tracked files (POSIX, repo-relative), plus untracked ones not ignored."""
    import git  # deferred: GitPython costs ~0.1 s of startup and is only needed in workers

    repo = git.Repo(root)
    tracked = repo.git.ls_files("--cached", "--others", "--exclude-standard").splitlines()
    return sorted(dict.fromkeys(p for p in tracked if p))


def mentions(text: str) -> list[str]:
    """``@path`` tokens in a message, in order, without the ``@``."""
    return [m.group(1).rstrip(",.;:!?") for m in MENTION.finditer(text)]


def strip_mentions(text: str) -> str:
    """The message with each ``@path`` replaced by the bare path."""
    return MENTION.sub(lambda m: m.group(1), text)


@dataclass
class FileCheck:
    """Whether one file can be context, with the polite reason when not."""

    rel: str
    ok: bool
    reason: str = ""


def check_context_file(root: Path, rel: str) -> FileCheck:
    """Can ``rel`` be added as context? Missing, outside, binary and huge files are refused."""
    path = (root / rel)
    try:
        real = path.resolve()
    except OSError as exc:
        return FileCheck(rel, False, f"{rel}: cannot be read ({exc.strerror})")
    if not real.is_relative_to(root.resolve()):
        return FileCheck(rel, False, f"{rel}: is outside the repository")
    if not real.exists():
        return FileCheck(rel, False, f"{rel}: no such file in the repository")
    if real.is_dir():
        return FileCheck(rel, False, f"{rel}: is a directory; add the files inside it")
    try:
        size = real.stat().st_size
        head = real.read_bytes()[:8192]
    except OSError as exc:
        return FileCheck(rel, False, f"{rel}: cannot be read ({exc.strerror})")
    if b"\0" in head:
        return FileCheck(rel, False, f"{rel}: looks binary; only text files can be edited")
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.start < len(head) - 4:  # a cut multi-byte char at the end is fine
            return FileCheck(rel, False, f"{rel}: is not UTF-8 text")
    if size > MAX_CONTEXT_BYTES:
        return FileCheck(rel, False, f"{rel}: is {size // 1024} KiB; the limit is {MAX_CONTEXT_BYTES // 1024} KiB")
    return FileCheck(rel, True)


@dataclass
class MentionResult:
    """The mentions that were added, and one line per refused one."""

    added: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)  # one polite line each


def resolve_mention(token: str, files: list[str]) -> str:
    """The tracked path a mention means: exact, else the one file whose path ends with it.

    Fuzzy matches are only offered while typing (tab); on submit a mention must be
    unambiguous, so ``@missing.py`` never silently becomes some other file.
    """
    if token in files:
        return token
    suffix = [f for f in files if f.endswith("/" + token)]
    return suffix[0] if len(suffix) == 1 else token


def check_mentions(root: Path, tokens: list[str], files: list[str]) -> MentionResult:
    """Resolve and check each mention token (reads the files: call it off the UI thread)."""
    result = MentionResult()
    for token in tokens:
        rel = resolve_mention(token, files) if files else token
        check = check_context_file(root, rel)
        if check.ok:
            result.added.append(rel)
        else:
            result.refused.append(check.reason if rel == token else f"@{token} -> {check.reason}")
    return result


def read_context(root: Path, rels: list[str]) -> list[tuple[str, str]]:
    """(path, text) of each context file that still reads as text."""
    out: list[tuple[str, str]] = []
    for rel in rels:
        try:
            out.append((rel, (root / rel).read_text(encoding="utf-8")))
        except (OSError, UnicodeDecodeError):
            continue
    return out
