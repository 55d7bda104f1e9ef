"""Widgets of the TUI, grouped by area."""
