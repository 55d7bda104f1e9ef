"""Aider's ``--edit-format whole`` on the same edit and server, for ``scripts/bench_latency.py --aider``.

The runner lives in :mod:`coder.bench.edits.aider` (``coder bench --edits --aider`` uses it too).
"""

from __future__ import annotations

from coder.bench.edits.aider import run_aider

__all__ = ["run_aider"]
