"""Anchored source edits: the one way coder's llama.cpp patches change a source tree.

An edit inserts its text right after (or in place of) an anchor that must occur exactly once, so a
moved llama.cpp source fails the build loudly instead of patching the wrong place. Every patch module
(``*_patch.py``) lists its edits as :class:`AnchoredEdit` and applies them with :func:`apply_edits`;
the build key hashes the edits' fields, never this module's name.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from coder.errors import CoderError


@dataclass(frozen=True)
class AnchoredEdit:
    """Insert ``text`` right after the single occurrence of ``anchor`` in ``path``.

    With ``replace`` the text takes the anchor's place instead (it must not contain the anchor).
    """

    path: str
    anchor: str
    text: str
    replace: bool = False


def apply_edits(patch_name: str, edits: tuple[AnchoredEdit, ...], llama_root: Path) -> None:
    """Apply ``edits`` in order (idempotent); an anchor that is not there exactly once fails loudly.

    Shared by every patch module so they all fail, and skip already-applied edits, the same way.
    """
    for edit in edits:
        path = llama_root / edit.path
        source = path.read_text(encoding="utf-8")
        if edit.text in source:
            continue
        count = source.count(edit.anchor)
        if count != 1:
            raise CoderError(
                f"{patch_name} patch: anchor found {count}× in {edit.path}; the llama.cpp source moved"
            )
        new = edit.text if edit.replace else edit.anchor + edit.text
        path.write_text(source.replace(edit.anchor, new), encoding="utf-8")
