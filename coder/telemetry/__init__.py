"""Speculation telemetry: engine counters, deltas and the streaming chat client (headless)."""
