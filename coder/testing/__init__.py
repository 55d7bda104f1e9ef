"""Test doubles and recorders: recorded real server traffic and the servers that stand in for real ones.

Every test double lives here, named as one: :mod:`~coder.testing.replay` (recorded traffic replayed on
loopback) and its recorder :mod:`~coder.testing.record`, :mod:`~coder.testing.stream_double` (a chat
stream that breaks part-way), :mod:`~coder.testing.hostile_server` (a llama.cpp look-alike that answers
badly) and :data:`FAKE_VLLM` (a ``vllm`` executable that replays vLLM's log lines and metrics).
Shipped so scripts (``scripts/dev/bench_tui.py``) and tests share them; nothing else under ``coder/``
imports this package (``tests/unit/test_architecture.py`` checks).
"""

from pathlib import Path

FAKE_VLLM = Path(__file__).with_name("fake_vllm")
"""The fake ``vllm`` executable (a test double run as a process: ``FAKE_VLLM serve MODEL ...``)."""
