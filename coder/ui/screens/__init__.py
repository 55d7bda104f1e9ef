"""Screens of the TUI: main, review, backend, start."""
