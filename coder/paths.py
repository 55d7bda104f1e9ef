"""Where coder keeps its files (platformdirs), overridable for tests via CODER_HOME."""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

APP = "coder"


def _root(kind: str) -> Path | None:
    home = os.environ.get("CODER_HOME")
    return Path(home) / kind if home else None


def config_dir() -> Path:
    """coder's config directory (``CODER_HOME`` overrides the platform default)."""
    return _root("config") or Path(platformdirs.user_config_dir(APP))


def data_dir() -> Path:
    """Sessions, learned k statistics: per-user data (moves with CODER_HOME)."""
    return _root("data") or Path(platformdirs.user_data_dir(APP))


def artifacts_dir() -> Path:
    """Installed llama-server builds and models: expensive, so shared even under CODER_HOME."""
    override = os.environ.get("CODER_ARTIFACTS")
    return Path(override) if override else Path(platformdirs.user_data_dir(APP))


def cache_dir() -> Path:
    """Build trees and downloads; shared across CODER_HOME overrides unless CODER_CACHE is set."""
    cache = os.environ.get("CODER_CACHE")
    return Path(cache) if cache else Path(platformdirs.user_cache_dir(APP))


def log_dir() -> Path:
    """Where managed servers write their logs."""
    return _root("log") or Path(platformdirs.user_log_dir(APP))


def state_dir() -> Path:
    """Runtime state: pid files, API keys of managed servers."""
    return _root("state") or Path(platformdirs.user_state_dir(APP))


def ensure(path: Path, mode: int = 0o700) -> Path:
    """Create ``path`` (and parents) with ``mode`` if missing; returns it."""
    path.mkdir(parents=True, exist_ok=True, mode=mode)
    return path
