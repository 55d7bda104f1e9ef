"""Locating the git repository coder works in."""

from __future__ import annotations

from pathlib import Path

import git


def find_repo_root(start: Path) -> Path | None:
    """The working-tree root of the git repository containing ``start``, or None."""
    try:
        repo = git.Repo(start if start.is_dir() else start.parent, search_parent_directories=True)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError):
        return None
    return Path(repo.working_tree_dir) if repo.working_tree_dir else None
