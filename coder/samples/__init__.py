"""Real, self-contained source files shipped for benchmarks and demos of edits.

``intervals.py`` (~310 lines) is the 200–400-line file for full-versus-region
benchmarks; ``ttl_cache.py`` (~110 lines) is a quick one for integration tests;
``topics.js`` (~220 lines) is a non-Python file (regions via tree-sitter when installed).
"""

from __future__ import annotations

from pathlib import Path

SAMPLES_DIR = Path(__file__).parent
LARGE = "intervals.py"
SMALL = "ttl_cache.py"
JAVASCRIPT = "topics.js"


def sample_path(name: str) -> Path:
    """Path of a shipped sample file; raises FileNotFoundError for unknown names."""
    path = SAMPLES_DIR / name
    if name.startswith("_") or not path.is_file():
        raise FileNotFoundError(f"no sample named {name!r} in {SAMPLES_DIR}")
    return path


def sample_names() -> list[str]:
    """Names of every shipped sample file, sorted."""
    return sorted(p.name for p in SAMPLES_DIR.iterdir() if p.is_file() and not p.name.startswith("_"))
