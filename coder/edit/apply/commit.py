"""Writing one accepted proposal and committing it: the lock, the checks that nothing moved, git's cases."""

from __future__ import annotations

from pathlib import Path

import git

from coder.edit.apply import gitops
from coder.edit.apply.files import FileSnapshot, apply_lock, check_unchanged, write_edit
from coder.edit.proposal import ApplyResult


def apply_proposal(snap: FileSnapshot, new: str, instruction: str, repo: git.Repo | None, *,
                   snapshot_dirty: bool) -> ApplyResult:
    """Write ``new`` over ``snap``'s file under the apply lock and commit it; raises CoderError untouched.

    An edit applied meanwhile is seen (the snapshot no longer matches), never reverted. Uncommitted
    changes of the user are committed first when ``snapshot_dirty``, else the edit is written uncommitted.
    """
    git_dir = Path(repo.git_dir) if repo is not None else None
    with apply_lock(snap, git_dir) as tmp_dir:
        check_unchanged(snap)
        if repo is not None:
            gitops.check_usable(repo)  # git broke since prepare: write nothing
        notes: list[str] = []
        snapshot_sha = None
        commit = True
        if repo is None:
            commit = False
            notes.append("not a git repository: edit written without a commit (no undo)")
        elif gitops.is_ignored(repo, snap.rel):
            commit = False
            notes.append(f"{snap.rel} is ignored by git: edit written without a commit")
        elif gitops.is_dirty(repo, snap.rel):
            if snapshot_dirty:
                snapshot_sha = gitops.snapshot(repo, snap.rel)
                notes.append(f"your uncommitted changes to {snap.rel} were committed first as {snapshot_sha[:8]}")
            else:
                commit = False
                notes.append(f"{snap.rel} had uncommitted changes: edit written without a commit "
                             "(snapshot_dirty = false)")
        write_edit(snap, new, tmp_dir)
        sha = None
        if commit and repo is not None:
            sha = gitops.commit_edit(repo, snap.rel, instruction)
            notes.append(f"committed {sha[:8]} (undo with `coder undo`)")
        return ApplyResult(snap.rel, True, sha, snapshot_sha, notes)
