"""Test doubles and recorders: recorded real server traffic and the loopback server that replays it.

Shipped so scripts (``scripts/dev/bench_tui.py``) and tests share one replay server; nothing else under
``coder/`` imports this package (``tests/unit/test_architecture.py`` checks).
"""
